//! The Top-K commands (`TOPK.*`), one file per command family, and the family record; what the
//! commands share of the Top-Ks at keys (totals, lookups) is `values.rs`.
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
mod values;
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

use super::family::{Family, InfoField, InfoSection, Stat};
use values::{BUCKETS, K, TOTALS};

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
