//! The Count-Min sketch commands (`CMS.*`), one file per command family, and what they share:
//! the family record, its `INFO` totals, and the lookup of a sketch with RedisBloom's key
//! errors.
//!
//! RedisBloom checks a CMS command's key before its other arguments (`src/rm_cms.c`), unlike
//! the BF and CF commands: these do the same. Every write is replicated verbatim and raises a
//! keyspace event named after the command (`cms.incrby`, …), as the other families' writes
//! do; RedisBloom raises none for CMS keys.

pub mod config;
mod errors;
mod incrby;
mod info;
mod init;
mod merge;
mod query;
mod window;

pub use incrby::INCRBY;
pub use info::INFO;
pub use init::{INITBYDIM, INITBYPROB};
pub use merge::MERGE;
pub use query::QUERY;
pub use window::ADVANCE;
/// The argument parsers, pure functions of the arguments (fuzzed).
pub use {
    incrby::parse as parse_incrby,
    init::{parse as parse_init, InitArgs},
    merge::{parse as parse_merge, weight as merge_weight, MergeArgs},
};

/// A Count-Min sketch: RedisBloom's, or one that forgets (`window.rs`).
use super::classic_or_window::ClassicOrWindow as Sketch;
use super::errors::Failure;
use super::family::{Family, InfoField, InfoSection, Stat};
use super::keys::{ReadKey, WriteKey};
use super::metrics::{Footprint, Measured, Totals};
use super::tracked::Tracked;
use crate::core::cms::{CountMinSketch, WindowSketch};

/// The Count-Min sketch family, as the glue registers it.
pub static FAMILY: Family = Family {
    acl_category: "cms",
    commands: &[
        &INITBYDIM,
        &INITBYPROB,
        &INCRBY,
        &QUERY,
        &MERGE,
        &INFO,
        &ADVANCE,
    ],
    settings: config::SETTINGS,
    totals: &TOTALS,
    info: InfoSection {
        name: c"cms_core_metrics",
        fields: &INFO_FIELDS,
    },
    stand_in: |_| None,
};

static TOTALS: Totals = Totals::new();

/// The counts of a sketch's footprint, by position.
const COUNTERS: usize = 0;
const INCREMENTS: usize = 1;

/// valkey-bloom has no Count-Min sketch; the names follow its Bloom and Top-K sections.
static INFO_FIELDS: [InfoField; 4] = [
    InfoField::new(c"cms_total_memory_bytes", Stat::Bytes),
    InfoField::new(c"cms_num_objects", Stat::Objects),
    // Width × depth of every sketch.
    InfoField::new(c"cms_num_counters_across_objects", Stat::Count(COUNTERS)),
    // CMS.INFO's count (the sum of the increments each sketch took), wrapping at 2^64.
    InfoField::new(c"cms_total_count_across_objects", Stat::Count(INCREMENTS)),
];

impl Measured for CountMinSketch {
    fn footprint(&self) -> Footprint {
        Footprint::new(
            self.memory_usage(),
            [
                (COUNTERS, self.width().wrapping_mul(self.depth())),
                (INCREMENTS, self.count()),
            ],
        )
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// A sketch opened for writing.
type Writing<'k> = Sketch<Tracked<'k, CountMinSketch>, Tracked<'k, WindowSketch>>;

/// A sketch opened for reading.
type Reading<'k> = Sketch<&'k CountMinSketch, &'k WindowSketch>;

/// The sketch at a key opened for writing, or RedisBloom's `CMS: key does not exist` /
/// `WRONGTYPE`.
fn sketch_to_write<'k>(key: &'k mut WriteKey) -> Result<Writing<'k>, Failure> {
    Writing::to_write(key, errors::NOT_FOUND)
}

/// A sketch that forgets counts as one of its shape; its increments are its window's.
impl Measured for WindowSketch {
    fn footprint(&self) -> Footprint {
        let shape = self.shape();
        Footprint::new(
            self.memory_usage(),
            [
                (COUNTERS, shape.width.wrapping_mul(shape.depth)),
                (INCREMENTS, self.window_count(0)),
            ],
        )
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// The sketch at a key opened for reading (as [`sketch_to_write`]).
fn sketch_to_read<'k>(key: &'k ReadKey) -> Result<Reading<'k>, Failure> {
    Reading::to_read(key, errors::NOT_FOUND)
}
