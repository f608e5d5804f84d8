//! The Top-K commands (`TOPK.*`), one file per command family, and what they share: the
//! family record, its `INFO` totals, and the lookup of a Top-K with RedisBloom's key errors.
//!
//! RedisBloom checks a TOPK command's key before its other arguments (`src/rm_topk.c`),
//! TOPK.LIST's keyword excepted: these do the same. Every write is replicated verbatim and
//! raises a keyspace event named after the command (`topk.add`, …), as the other families'
//! writes do; RedisBloom raises none for Top-K keys. Replicating verbatim is enough for a
//! replica, an AOF replay and a reload to hold the same bytes as the primary even with a
//! decay below 1: the core draws no random number (`core::topk`).
//!
//! Items are replied to as RedisBloom replies to them, cut at their first NUL (it sends C
//! strings); they are kept whole.

mod add;
mod errors;
mod info;
mod list;
mod query;
mod reserve;
mod window;

pub use add::{ADD, INCRBY};
pub use info::INFO;
pub use list::LIST;
pub use query::{COUNT, QUERY};
pub use reserve::RESERVE;
pub use window::ADVANCE;
/// The argument parsers, pure functions of the arguments (fuzzed).
pub use {
    add::parse as parse_incrby,
    list::parse as parse_list,
    reserve::{parse as parse_reserve, ReserveArgs},
};

/// A Top-K: RedisBloom's, or one that forgets (`window.rs`).
use super::classic_or_window::ClassicOrWindow as Topk;
use super::errors::Failure;
use super::family::{Family, InfoField, InfoSection, Stat};
use super::keys::{ReadKey, WriteKey};
use super::metrics::{Footprint, Measured, Totals};
use super::tracked::Tracked;
use crate::core::topk::{Params, TopK, WindowTopK};

/// The Top-K family, as the glue registers it.
pub static FAMILY: Family = Family {
    acl_category: "topk",
    commands: &[
        &RESERVE, &ADD, &INCRBY, &QUERY, &COUNT, &LIST, &INFO, &ADVANCE,
    ],
    settings: &[],
    totals: &TOTALS,
    info: InfoSection {
        name: c"topk_core_metrics",
        fields: &INFO_FIELDS,
    },
    stand_in: |_| None,
};

static TOTALS: Totals = Totals::new();

/// The counts of a Top-K's footprint, by position.
const K: usize = 0;
const BUCKETS: usize = 1;

/// valkey-bloom's field names (its `src/metrics.rs`) where the value keeps what they count,
/// so exporters and dashboards made for it read ours. Its
/// `topk_total_items_added_across_objects` is not: nothing saved counts the items added.
static INFO_FIELDS: [InfoField; 4] = [
    InfoField::new(c"topk_total_memory_bytes", Stat::Bytes),
    InfoField::new(c"topk_num_objects", Stat::Objects),
    // TOPK.INFO's k of every Top-K.
    InfoField::new(c"topk_sum_k_across_objects", Stat::Count(K)),
    // Ours: width × depth of every Top-K.
    InfoField::new(c"topk_num_buckets_across_objects", Stat::Count(BUCKETS)),
];

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
type Writing<'k> = Topk<Tracked<'k, TopK>, Tracked<'k, WindowTopK>>;

/// A Top-K opened for reading.
type Reading<'k> = Topk<&'k TopK, &'k WindowTopK>;

/// The Top-K at a key opened for writing, or RedisBloom's `TopK: key does not exist` /
/// `WRONGTYPE`.
fn topk_to_write<'k>(key: &'k mut WriteKey) -> Result<Writing<'k>, Failure> {
    Writing::to_write(key, errors::NOT_FOUND)
}

/// The Top-K at a key opened for reading (as [`topk_to_write`]).
fn topk_to_read<'k>(key: &'k ReadKey) -> Result<Reading<'k>, Failure> {
    Reading::to_read(key, errors::NOT_FOUND)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::topk::params::Params;
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
