//! The Cuckoo-filter commands (`CF.*`), one file per command family, and what they share: the
//! parameter rules and configured defaults (`rules`, also used by the `cf-*` configs), and the
//! filters at keys (`values`: their totals, their lookups, and the steps every insert command
//! takes before its first item).

mod add;
mod compact;
pub mod config;
mod debug;
mod del;
mod dump;
pub mod errors;
mod exists;
mod info;
mod insert;
mod merge;
mod reserve;
pub mod rules;
mod values;

pub use add::{ADD, ADDNX};
pub use compact::COMPACT;
pub use debug::DEBUG;
pub use del::DEL;
pub use dump::{LOADCHUNK, SCANDUMP};
pub use exists::{COUNT, EXISTS, MEXISTS};
pub use info::INFO;
pub use insert::{INSERT, INSERTNX};
pub use merge::MERGE;
pub use reserve::RESERVE;
/// The argument parsers, pure functions of the arguments and the configuration (fuzzed).
pub use {
    insert::{parse as parse_insert, InsertArgs},
    merge::parse as parse_merge,
    reserve::parse as parse_reserve,
};

use super::family::{Family, InfoField, InfoSection, Stat};
use values::{DELETES, ITEMS, SLOTS, SUB_FILTERS, TOTALS};

/// The Cuckoo-filter family, as the glue registers it.
pub static FAMILY: Family = Family {
    acl_category: "cuckoo",
    commands: &[
        &RESERVE, &ADD, &ADDNX, &INSERT, &INSERTNX, &EXISTS, &MEXISTS, &COUNT, &DEL, &COMPACT,
        &SCANDUMP, &LOADCHUNK, &INFO, &DEBUG, &MERGE,
    ],
    settings: config::SETTINGS,
    totals: &TOTALS,
    info: InfoSection {
        name: c"cuckoo_core_metrics",
        fields: &INFO_FIELDS,
    },
    stand_in: |_| None,
};

/// Shaped as the Bloom filters' fields (valkey-bloom's names), plus deletes.
static INFO_FIELDS: [InfoField; 6] = [
    InfoField::new(c"cuckoo_total_memory_bytes", Stat::Bytes),
    InfoField::new(c"cuckoo_num_objects", Stat::Objects),
    InfoField::new(
        c"cuckoo_num_filters_across_objects",
        Stat::Count(SUB_FILTERS),
    ),
    // CF.INFO's "Number of items inserted" (inserted minus deleted).
    InfoField::new(c"cuckoo_num_items_across_objects", Stat::Count(ITEMS)),
    // Slots: buckets × bucket size.
    InfoField::new(c"cuckoo_capacity_across_objects", Stat::Count(SLOTS)),
    // CF.INFO's "Number of items deleted" (since each filter's last CF.COMPACT).
    InfoField::new(c"cuckoo_num_deletes_across_objects", Stat::Count(DELETES)),
];
