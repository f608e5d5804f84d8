//! The Top-Ks at keys: what each adds to the family's `INFO` totals, and the lookups that find
//! one with RedisBloom's key errors.

use super::errors;
use crate::commands::errors::Failure;
use crate::commands::keys::{ReadKey, WriteKey};
use crate::commands::metrics::{Footprint, Measured, Totals};
use crate::commands::tracked::Tracked;
use crate::core::topk::{Params, TopK, WindowTopK};

/// A Top-K: RedisBloom's, or one that forgets (`window.rs`).
pub(super) use crate::commands::classic_or_window::ClassicOrWindow as Topk;

pub(super) static TOTALS: Totals = Totals::new();

/// The counts of a Top-K's footprint, by position.
pub(super) const K: usize = 0;
pub(super) const BUCKETS: usize = 1;

impl Measured for TopK {
    /// A Top-K's footprint is a function of its parameters, which no write changes.
    fn changed_by_writes() -> bool {
        false
    }

    fn footprint(&self) -> Footprint {
        footprint_of(self.params(), self.memory_usage())
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// The footprint of a Top-K of `params` taking `bytes`: its k and its buckets.
fn footprint_of(params: &Params, bytes: u64) -> Footprint {
    Footprint::new(
        bytes,
        [
            (K, u64::from(params.k())),
            (
                BUCKETS,
                u64::from(params.width()) * u64::from(params.depth()),
            ),
        ],
    )
}

/// A Top-K that forgets counts as one of its parameters, which no write changes either.
impl Measured for WindowTopK {
    fn changed_by_writes() -> bool {
        false
    }

    fn footprint(&self) -> Footprint {
        footprint_of(&self.shape().params, self.memory_usage())
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// A Top-K opened for writing.
pub(super) type Writing<'k> = Topk<Tracked<'k, TopK>, Tracked<'k, WindowTopK>>;

/// A Top-K opened for reading.
pub(super) type Reading<'k> = Topk<&'k TopK, &'k WindowTopK>;

/// The Top-K at a key opened for writing, or RedisBloom's `TopK: key does not exist` /
/// `WRONGTYPE`.
// Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
#[inline(always)]
pub(super) fn existing_write<'k>(key: &'k mut WriteKey) -> Result<Writing<'k>, Failure> {
    Writing::to_write(key, errors::NOT_FOUND)
}

/// The Top-K at a key opened for reading (as [`existing_write`]).
pub(super) fn existing_read<'k>(key: &'k ReadKey) -> Result<Reading<'k>, Failure> {
    Reading::to_read(key, errors::NOT_FOUND)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::EAGER;

    /// What `changed_by_writes` claims: no write moves a Top-K's footprint, even one that
    /// fills its heap with long items and expels them again.
    #[test]
    fn writes_leave_the_footprint_as_it_was() {
        let mut topk = TopK::new(Params::new(3, 8, 4, 0.9).unwrap(), &EAGER).unwrap();
        let made = topk.footprint();
        for n in 0..2_000u32 {
            let item = vec![b'x'; (n % 300) as usize];
            topk.add(&item, n % 7 + 1).unwrap();
        }
        assert!(!TopK::changed_by_writes());
        assert_eq!(topk.footprint(), made);
    }
}
