//! The module's totals per filter family (its `INFO` section): objects, and the sum of their
//! [`Footprint`]s. The glue keeps the one instance; values entering the keyspace add their
//! footprint ([`Call::store`](super::call::Call::store), RDB load, COPY), freed values take it
//! off, and a write command's change to a value in place is applied by the [`Tracked`] guard
//! that `Call::lookup` hands out, so no command counts anything itself.
//!
//! Threads: commands, RDB loading and COPY run on the server's main thread; `free` may run on
//! the lazy-free thread (UNLINK, FLUSHALL ASYNC, lazyfree-lazy-*). So each total is two
//! counters: one the main thread alone writes, with a plain load and store (no locked
//! read-modify-write on the command path), and one of freed amounts the free callback adds to
//! with `fetch_add`, from whichever thread it runs on. A total is the first minus the second,
//! both wrapping, so it is exact whenever no free is halfway through.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::core::bloom::chain::Chain;
use crate::core::cuckoo::CuckooFilter;
use crate::core::Footprint;

/// The totals of both families.
pub struct Metrics {
    /// Bloom filters, both layouts.
    pub bloom: Family,
    /// Cuckoo filters.
    pub cuckoo: Family,
}

impl Metrics {
    pub const fn new() -> Metrics {
        Metrics {
            bloom: Family::new(),
            cuckoo: Family::new(),
        }
    }
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

/// The totals of one family as they stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    /// Stored values.
    pub objects: u64,
    /// The sum of their footprints.
    pub sum: Footprint,
}

/// One family's totals: what the main thread added, and what frees took off.
pub struct Family {
    added: Counters,
    freed: Counters,
}

/// Objects and the fields of a footprint, in that order.
struct Counters([AtomicU64; 6]);

impl Counters {
    const fn new() -> Counters {
        Counters([const { AtomicU64::new(0) }; 6])
    }

    fn read(&self) -> [u64; 6] {
        self.0.each_ref().map(|counter| counter.load(Relaxed))
    }
}

/// `objects` and `f` as the six counters.
fn fields(objects: u64, f: Footprint) -> [u64; 6] {
    [objects, f.bytes, f.filters, f.items, f.capacity, f.deletes]
}

impl Family {
    const fn new() -> Family {
        Family {
            added: Counters::new(),
            freed: Counters::new(),
        }
    }

    /// A value of footprint `f` entered the keyspace. Main thread only.
    pub fn entered(&self, f: Footprint) {
        self.add(fields(1, f));
    }

    /// A value changed in place from `before` to `after`. Main thread only.
    pub fn changed(&self, before: Footprint, after: Footprint) {
        let (before, after) = (fields(0, before), fields(0, after));
        self.add(std::array::from_fn(|i| after[i].wrapping_sub(before[i])));
    }

    /// Adds `deltas` (wrapping, so a decrease is a wrapped negative) to the main thread's
    /// counters: only the main thread writes them, so a load and a store suffice.
    fn add(&self, deltas: [u64; 6]) {
        for (counter, delta) in self.added.0.iter().zip(deltas) {
            counter.store(counter.load(Relaxed).wrapping_add(delta), Relaxed);
        }
    }

    /// A value of footprint `f` was freed, on any thread.
    pub fn freed(&self, f: Footprint) {
        for (counter, amount) in self.freed.0.iter().zip(fields(1, f)) {
            counter.fetch_add(amount, Relaxed);
        }
    }

    /// The totals now.
    pub fn totals(&self) -> Totals {
        let (added, freed) = (self.added.read(), self.freed.read());
        let [objects, bytes, filters, items, capacity, deletes] =
            std::array::from_fn(|i| added[i].wrapping_sub(freed[i]));
        Totals {
            objects,
            sum: Footprint {
                bytes,
                filters,
                items,
                capacity,
                deletes,
            },
        }
    }
}

/// A stored value the totals count: its footprint, and which family's totals it is in.
pub trait Measured {
    fn footprint(&self) -> Footprint;
    fn family(metrics: &Metrics) -> &Family;
}

impl Measured for Chain {
    fn footprint(&self) -> Footprint {
        Chain::footprint(self)
    }

    fn family(metrics: &Metrics) -> &Family {
        &metrics.bloom
    }
}

impl Measured for CuckooFilter {
    fn footprint(&self) -> Footprint {
        CuckooFilter::footprint(self)
    }

    fn family(metrics: &Metrics) -> &Family {
        &metrics.cuckoo
    }
}

/// A stored value opened for writing: derefs to it, and when dropped applies whatever the
/// command changed in its footprint to the totals.
pub struct Tracked<'k, T: Measured> {
    value: &'k mut T,
    before: Footprint,
    family: &'k Family,
}

impl<'k, T: Measured> Tracked<'k, T> {
    pub fn new(value: &'k mut T, metrics: &'k Metrics) -> Tracked<'k, T> {
        Tracked {
            before: value.footprint(),
            family: T::family(metrics),
            value,
        }
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
        let after = self.value.footprint();
        if after != self.before {
            self.family.changed(self.before, after);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn footprint(n: u64) -> Footprint {
        Footprint {
            bytes: 100 * n,
            filters: n,
            items: 10 * n,
            capacity: 20 * n,
            deletes: n,
        }
    }

    #[test]
    fn totals_add_change_and_free() {
        let family = Family::new();
        family.entered(footprint(1));
        family.entered(footprint(2));
        family.changed(footprint(2), footprint(3));
        family.changed(footprint(3), footprint(1));
        assert_eq!(
            family.totals(),
            Totals {
                objects: 2,
                sum: footprint(2)
            }
        );
        family.freed(footprint(1));
        family.freed(footprint(1));
        assert_eq!(family.totals(), Totals::default());
    }
}
