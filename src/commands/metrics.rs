//! The module's totals per family (its `INFO` sections): objects, bytes, and up to
//! [`COUNTS`] counts that each family names in its [`InfoSection`](super::family::InfoSection).
//! Each family keeps one [`Totals`] in its wing; values entering the keyspace add their
//! [`Footprint`] ([`WriteKey::store`](super::keys::WriteKey::store), RDB load, COPY), freed values
//! take it off, and a command's change to a value in place is applied by the
//! [`Tracked`](super::tracked::Tracked) guard that `WriteKey::lookup` hands out (and that a
//! t-digest read wraps around a compression), so no command counts anything itself.
//!
//! Threads: commands, RDB loading and COPY run on the server's main thread; `free` may run on
//! the lazy-free thread (UNLINK, FLUSHALL ASYNC, lazyfree-lazy-*). So each total is two
//! counters: one the main thread alone writes, with a plain load and store (no locked
//! read-modify-write on the command path), and one of freed amounts the free callback adds to
//! with `fetch_add`, from whichever thread it runs on. A total is the first minus the second,
//! both wrapping, so it is exact whenever no free is halfway through.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// How many counts a footprint has besides its bytes: as many as the family that names most of
/// them in its `INFO` section (the glue checks it against every family's fields).
pub const COUNTS: usize = 4;

/// What one stored value adds to its family's totals. Every field is read from fields the
/// value keeps, in O(sub-filters), so taking it around each write costs next to nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Footprint {
    /// Bytes as `MEMORY USAGE` counts them.
    pub bytes: u64,
    /// The family's counts (sub-filters, items, …), in the order its INFO fields name them.
    pub counts: [u64; COUNTS],
}

impl Footprint {
    /// `bytes`, and each count at its position (the family's constant that its INFO field
    /// names); counts not given are 0.
    pub fn new<const N: usize>(bytes: u64, counts: [(usize, u64); N]) -> Footprint {
        let mut at = [0; COUNTS];
        // The positions are those its INFO fields name (checked against COUNTS at compile
        // time, `glue/families.rs`); a write still never panics on one.
        for (position, count) in counts {
            if let Some(slot) = at.get_mut(position) {
                *slot = count;
            }
        }
        Footprint { bytes, counts: at }
    }
}

/// A stored value the totals count: its footprint, and its family's totals.
pub trait Measured {
    /// Whether a write can change a stored value's footprint. A family whose footprint is
    /// fixed when the value is made says `false`, and its writes skip taking it before and
    /// after ([`Tracked`](super::tracked::Tracked)).
    fn changed_by_writes() -> bool
    where
        Self: Sized,
    {
        true
    }
    fn footprint(&self) -> Footprint;
    fn totals() -> &'static Totals
    where
        Self: Sized;
}

/// Objects, bytes and the counts, in that order.
const FIELDS: usize = 2 + COUNTS;

/// `objects` and `f` as counters.
fn fields(objects: u64, f: Footprint) -> [u64; FIELDS] {
    std::array::from_fn(|i| match i {
        0 => objects,
        1 => f.bytes,
        _ => f.counts.get(i - 2).copied().unwrap_or(0),
    })
}

/// The totals of one family as they stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sums {
    /// Stored values.
    pub objects: u64,
    /// The sum of their footprints.
    pub sum: Footprint,
}

/// One family's totals: what the main thread added, and what frees took off.
pub struct Totals {
    added: [AtomicU64; FIELDS],
    freed: [AtomicU64; FIELDS],
}

impl Totals {
    pub const fn new() -> Totals {
        Totals {
            added: [const { AtomicU64::new(0) }; FIELDS],
            freed: [const { AtomicU64::new(0) }; FIELDS],
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
    fn add(&self, deltas: [u64; FIELDS]) {
        for (counter, delta) in self.added.iter().zip(deltas) {
            counter.store(counter.load(Relaxed).wrapping_add(delta), Relaxed);
        }
    }

    /// A value of footprint `f` was freed, on any thread.
    pub fn freed(&self, f: Footprint) {
        for (counter, amount) in self.freed.iter().zip(fields(1, f)) {
            counter.fetch_add(amount, Relaxed);
        }
    }

    /// The totals now.
    pub fn sums(&self) -> Sums {
        let total = |i: usize| {
            self.added[i]
                .load(Relaxed)
                .wrapping_sub(self.freed[i].load(Relaxed))
        };
        Sums {
            objects: total(0),
            sum: Footprint {
                bytes: total(1),
                counts: std::array::from_fn(|i| total(i + 2)),
            },
        }
    }
}

impl Default for Totals {
    fn default() -> Totals {
        Totals::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn footprint(n: u64) -> Footprint {
        Footprint {
            bytes: 100 * n,
            counts: [n, 10 * n, 20 * n, n],
        }
    }

    #[test]
    fn totals_add_change_and_free() {
        let totals = Totals::new();
        totals.entered(footprint(1));
        totals.entered(footprint(2));
        totals.changed(footprint(2), footprint(3));
        totals.changed(footprint(3), footprint(1));
        assert_eq!(
            totals.sums(),
            Sums {
                objects: 2,
                sum: footprint(2)
            }
        );
        totals.freed(footprint(1));
        totals.freed(footprint(1));
        assert_eq!(totals.sums(), Sums::default());
    }
}
