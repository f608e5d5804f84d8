//! The Count-Min sketch commands (`CMS.*`), one file per command family, and the family record;
//! what the commands share of the sketches at keys (totals, lookups) is `values.rs`.
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
mod values;
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

use super::family::{Family, InfoField, InfoSection, Stat};
use values::{COUNTERS, INCREMENTS, TOTALS};

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

/// valkey-bloom has no Count-Min sketch; the names follow its Bloom and Top-K sections.
static INFO_FIELDS: [InfoField; 4] = [
    InfoField::new(c"cms_total_memory_bytes", Stat::Bytes),
    InfoField::new(c"cms_num_objects", Stat::Objects),
    // Width × depth of every sketch.
    InfoField::new(c"cms_num_counters_across_objects", Stat::Count(COUNTERS)),
    // CMS.INFO's count (the sum of the increments each sketch took), wrapping at 2^64.
    InfoField::new(c"cms_total_count_across_objects", Stat::Count(INCREMENTS)),
];
