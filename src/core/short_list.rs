//! [`ShortList`]: a list of numbers that holds its first few in place and allocates only
//! beyond them. A command's arguments and answers are most often one or a few numbers, and an
//! allocation and its free cost a t-digest read about as much as its own arithmetic.

use std::ops::Deref;

use super::Error;
use crate::core::try_vec;

/// How many elements a [`ShortList`] holds without allocating (its place).
const IN_PLACE: usize = 8;

/// A list of `Copy` values: up to eight in the list itself, more in a vector. Its elements
/// are read as a slice.
#[derive(Debug)]
pub struct ShortList<T>(Held<T>);

/// Where a [`ShortList`]'s elements are: private, so that `len` never passes the place.
#[derive(Debug)]
enum Held<T> {
    /// The first `len` elements of `items`; the rest are defaults.
    InPlace { items: [T; IN_PLACE], len: usize },
    /// More than fit in place.
    Spilled(Vec<T>),
}

impl<T: Copy + Default> ShortList<T> {
    /// An empty list with room for `len` elements, or `OutOfMemory` when a vector of `len`
    /// cannot be had (the length comes from a client).
    pub fn with_room(len: usize) -> Result<Self, Error> {
        if len <= IN_PLACE {
            return Ok(ShortList(Held::InPlace {
                items: [T::default(); IN_PLACE],
                len: 0,
            }));
        }
        Ok(ShortList(Held::Spilled(try_vec(len)?)))
    }

    /// Appends `item`, moving the elements to a vector when the place is full.
    #[inline]
    pub fn push(&mut self, item: T) {
        match &mut self.0 {
            Held::InPlace { items, len } => match items.get_mut(*len) {
                Some(slot) => {
                    *slot = item;
                    *len += 1;
                }
                None => self.spill(item),
            },
            Held::Spilled(items) => items.push(item),
        }
    }

    /// Moves the elements, full in place, to a vector, and appends `item` there. Out of line,
    /// so that a push in place is a store and an increment where it is inlined.
    #[cold]
    #[inline(never)]
    fn spill(&mut self, item: T) {
        if let Held::InPlace { items, .. } = &self.0 {
            let mut spilled = items.to_vec();
            spilled.push(item);
            self.0 = Held::Spilled(spilled);
        }
    }
}

impl<T: Copy + Default> Extend<T> for ShortList<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for item in iter {
            self.push(item);
        }
    }
}

impl<T> Deref for ShortList<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.0 {
            Held::InPlace { items, len } => items.get(..*len).unwrap_or_default(),
            Held::Spilled(items) => items,
        }
    }
}

/// Two lists are equal when their elements are, wherever they are held.
impl<T: PartialEq> PartialEq for ShortList<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for ShortList<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        **self == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_was_pushed_in_place_and_past_it() {
        for count in [0, 1, IN_PLACE - 1, IN_PLACE, IN_PLACE + 1, 3 * IN_PLACE] {
            for room in [0, count, IN_PLACE + 1] {
                let mut list = ShortList::with_room(room).unwrap();
                list.extend((0..count).map(|i| i as u64 * 3));
                let expected: Vec<u64> = (0..count).map(|i| i as u64 * 3).collect();
                assert_eq!(&*list, &expected[..], "count {count}, room {room}");
            }
        }
    }

    #[test]
    fn allocates_only_past_its_place() {
        assert!(matches!(
            ShortList::<f64>::with_room(IN_PLACE),
            Ok(ShortList(Held::InPlace { len: 0, .. }))
        ));
        assert!(matches!(
            ShortList::<f64>::with_room(IN_PLACE + 1),
            Ok(ShortList(Held::Spilled(items))) if items.capacity() == IN_PLACE + 1
        ));
    }

    #[test]
    fn refuses_room_beyond_memory() {
        assert_eq!(
            ShortList::<u64>::with_room(usize::MAX).map(|list| list.len()),
            Err(Error::OutOfMemory)
        );
    }
}
