//! A stored value a command may change ([`Tracked`]): whatever the command changes in it
//! reaches its family's totals when the command lets go of it, so no command counts anything
//! itself.
//!
//! The steps from a write's lookup to the command holding its `Tracked` (`WriteKey`'s lookups,
//! `Lookup::of`, `ClassicOrWindow::to_write`, and each family's `existing_write` or
//! `lookup_write`) are inlined (`#[inline(always)]`): a
//! `Tracked` returned from a call was copied 16 bytes at a time just after its footprint was
//! stored field by field, a load that store forwarding cannot serve, on every write command.
//! Measure before extending it: inlining the Cuckoo filter's `filter_for_insert` as well made
//! `CF.ADD` slower (1.02–1.03 of its time, bench/README.md). The footprints are compared field
//! by field (`differ`) for the same reason.

use super::metrics::{Footprint, Measured};

/// A stored value a command may change (opened for writing, or a t-digest a read compresses):
/// derefs to it, and when dropped applies whatever the command changed in its footprint to its
/// family's totals.
pub struct Tracked<'k, T: Measured> {
    value: &'k mut T,
    before: Footprint,
}

impl<'k, T: Measured> Tracked<'k, T> {
    #[inline(always)]
    pub fn new(value: &'k mut T) -> Tracked<'k, T> {
        let before = if T::changed_by_writes() {
            value.footprint()
        } else {
            Footprint::default()
        };
        Tracked { before, value }
    }
}

impl<T: Measured> std::ops::Deref for Tracked<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        &*self.value
    }
}

impl<T: Measured> std::ops::DerefMut for Tracked<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut *self.value
    }
}

impl<T: Measured> Drop for Tracked<'_, T> {
    fn drop(&mut self) {
        if !T::changed_by_writes() {
            return;
        }
        let after = self.value.footprint();
        if differ(&after, &self.before) {
            T::totals().changed(self.before, after);
        }
    }
}

/// Whether two footprints differ in any field, compared one field at a time, not 16 bytes at a
/// time as the derived comparison does.
fn differ(a: &Footprint, b: &Footprint) -> bool {
    let counts = a.counts.iter().zip(&b.counts);
    counts.fold(a.bytes ^ b.bytes, |differ, (x, y)| differ | (x ^ y)) != 0
}
