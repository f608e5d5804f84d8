//! The Bloom-filter commands (`BF.*`), one file per command family, and what they share: the
//! parameter rules, layout names and argument docs (`rules`, also used by the `bf-*` configs),
//! and the values at keys (`values`: their totals, and the lookup of a key that may hold a
//! scalable filter of either layout, a filter that forgets (`window`) or a valkey-bloom filter
//! (`valkey`)).

mod add;
pub mod config;
mod debug;
mod dump;
pub mod errors;
mod exists;
mod info;
mod insert;
mod merge;
mod reserve;
pub mod rules;
mod valkey;
mod values;
mod window;

pub use add::{ADD, MADD};
pub use debug::DEBUG;
pub use dump::{LOADCHUNK, SCANDUMP};
pub use exists::{EXISTS, MEXISTS};
pub use info::{CARD, INFO};
pub use insert::INSERT;
pub use merge::MERGE;
pub use reserve::RESERVE;
pub use valkey::LOAD;
/// The argument parsers, pure functions of the arguments and the configuration (fuzzed).
pub use {
    insert::{parse as parse_insert, InsertArgs},
    merge::{parse as parse_merge, MergeArgs},
    reserve::{parse as parse_reserve, ReserveArgs},
    valkey::{
        parse_insert as parse_valkey_insert, parse_reserve as parse_valkey_reserve,
        InsertArgs as ValkeyInsertArgs,
    },
};

use super::family::{Family, InfoField, InfoSection, Stat};
use values::{CAPACITY_COUNT, ITEMS, SUB_FILTERS, TOTALS};

/// The Bloom-filter family, as the glue registers it.
pub static FAMILY: Family = Family {
    acl_category: "bloom",
    commands: &[
        &RESERVE, &ADD, &MADD, &INSERT, &EXISTS, &MEXISTS, &INFO, &CARD, &SCANDUMP, &LOADCHUNK,
        &DEBUG, &LOAD, &MERGE,
    ],
    settings: config::SETTINGS,
    totals: &TOTALS,
    info: InfoSection {
        name: c"bloom_core_metrics",
        fields: &INFO_FIELDS,
    },
    stand_in: valkey::registered,
};

/// valkey-bloom's field names (its `src/metrics.rs`), same meaning, so exporters and
/// dashboards made for it read ours.
static INFO_FIELDS: [InfoField; 5] = [
    InfoField::new(c"bloom_total_memory_bytes", Stat::Bytes),
    InfoField::new(c"bloom_num_objects", Stat::Objects),
    InfoField::new(
        c"bloom_num_filters_across_objects",
        Stat::Count(SUB_FILTERS),
    ),
    // BF.CARD.
    InfoField::new(c"bloom_num_items_across_objects", Stat::Count(ITEMS)),
    // BF.INFO Capacity.
    InfoField::new(
        c"bloom_capacity_across_objects",
        Stat::Count(CAPACITY_COUNT),
    ),
];
