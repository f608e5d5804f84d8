//! The names of the keys a command opened ([`Opened`]). Two handles of one key would reach
//! one value, so a command opens each name once (merges list a source once however often it is
//! named); a second open of a name is a bug of the command, refused rather than let two
//! handles reach one value.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use super::errors::{self, Failure};

/// The names of the keys one command opened.
#[derive(Default)]
pub struct Opened<'a> {
    /// The first name: most commands open one key, which costs no set.
    first: Cell<Option<&'a [u8]>>,
    /// The later ones (merges), in a set made at the second name.
    others: RefCell<Option<HashSet<&'a [u8]>>>,
}

impl<'a> Opened<'a> {
    /// Whether no name was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.first.get().is_none()
    }

    /// Records `name` as opened; an error if it was already (or if the set cannot grow).
    pub fn admit(&self, name: &'a [u8]) -> Result<(), Failure> {
        let Some(first) = self.first.get() else {
            self.first.set(Some(name));
            return Ok(());
        };
        let mut others = self.others.borrow_mut();
        let others = others.get_or_insert_with(HashSet::new);
        if first == name || others.contains(name) {
            return Err(Failure::Message(errors::INTERNAL_ERROR));
        }
        others
            .try_reserve(1)
            .map_err(|_| Failure::Message(errors::INSUFFICIENT_MEMORY))?;
        others.insert(name);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each name is admitted once, whether it comes first or later, and names that differ only
    /// in case or length are different keys.
    #[test]
    fn a_name_is_opened_once() {
        let opened = Opened::default();
        let refused = Err(Failure::Message(errors::INTERNAL_ERROR));
        assert_eq!(opened.admit(b"dest"), Ok(()));
        assert_eq!(opened.admit(b"dest"), refused);
        assert_eq!(opened.admit(b"src"), Ok(()));
        assert_eq!(opened.admit(b"Src"), Ok(()));
        assert_eq!(opened.admit(b"src\0"), Ok(()));
        assert_eq!(opened.admit(b"src"), refused);
        assert_eq!(opened.admit(b"dest"), refused);
        assert_eq!(opened.admit(b""), Ok(()));
        assert_eq!(opened.admit(b""), refused);
    }
}
