//! The names of the keys a command opened ([`Opened`]). Two handles of one key would reach
//! one value, so a command opens each name once (merges list a source once however often it is
//! named); a second open of a name is a bug of the command, refused rather than let two
//! handles reach one value.

use std::cell::RefCell;
use std::collections::HashSet;

use super::errors::{self, Failure};

/// The names of the keys one command opened, in a set made at the first name recorded (the
/// glue records a command's first key by its argument, and names only from its second on).
#[derive(Default)]
pub struct Opened<'a> {
    names: RefCell<Option<HashSet<&'a [u8]>>>,
}

impl<'a> Opened<'a> {
    /// Whether no name was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.names.borrow().is_none()
    }

    /// Records `name` as opened; an error if it was already (or if the set cannot grow).
    pub fn admit(&self, name: &'a [u8]) -> Result<(), Failure> {
        let mut names = self.names.borrow_mut();
        let names = names.get_or_insert_with(HashSet::new);
        if names.contains(name) {
            return Err(Failure::Message(errors::INTERNAL_ERROR));
        }
        names
            .try_reserve(1)
            .map_err(|_| Failure::Message(errors::INSUFFICIENT_MEMORY))?;
        names.insert(name);
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
        assert!(opened.is_empty());
        let refused = Err(Failure::Message(errors::INTERNAL_ERROR));
        assert_eq!(opened.admit(b"dest"), Ok(()));
        assert!(!opened.is_empty());
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
