//! The Cuckoo-filter commands (`CF.*`), one file per command family, and what they share: the
//! parameter rules and configured defaults (`rules`, also used by the `cf-*` configs), the
//! argument docs, and the steps every insert command takes before its first item.

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
mod reserve;
pub mod rules;

pub use add::{ADD, ADDNX};
pub use compact::COMPACT;
pub use debug::DEBUG;
pub use del::DEL;
pub use dump::{LOADCHUNK, SCANDUMP};
pub use exists::{COUNT, EXISTS, MEXISTS};
pub use info::INFO;
pub use insert::{INSERT, INSERTNX};
pub use reserve::RESERVE;
/// The argument parsers, pure functions of the arguments and the configuration (fuzzed).
pub use {
    insert::{parse as parse_insert, InsertArgs},
    reserve::parse as parse_reserve,
};

use super::call::Call;
use super::errors::Failure;
use super::family::{Family, InfoField, InfoSection, Stat};
use super::keys::{ReadKey, WriteKey};
use super::lookup::Lookup;
use super::metrics::{Footprint, Measured, Totals};
use super::tracked::Tracked;
use crate::core::cf::{CuckooFilter, Params};
use rules::Defaults as CuckooDefaults;

/// The Cuckoo-filter family, as the glue registers it.
pub static FAMILY: Family = Family {
    acl_category: "cuckoo",
    commands: &[
        &RESERVE, &ADD, &ADDNX, &INSERT, &INSERTNX, &EXISTS, &MEXISTS, &COUNT, &DEL, &COMPACT,
        &SCANDUMP, &LOADCHUNK, &INFO, &DEBUG,
    ],
    settings: config::SETTINGS,
    totals: &TOTALS,
    info: InfoSection {
        name: c"cuckoo_core_metrics",
        fields: &INFO_FIELDS,
    },
    stand_in: |_| None,
};

static TOTALS: Totals = Totals::new();

/// The counts of a Cuckoo filter's footprint, by position.
const SUB_FILTERS: usize = 0;
const ITEMS: usize = 1;
const SLOTS: usize = 2;
const DELETES: usize = 3;

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

impl Measured for CuckooFilter {
    fn footprint(&self) -> Footprint {
        Footprint::new(
            self.memory_usage(),
            [
                (SUB_FILTERS, u64::from(self.num_filters())),
                (ITEMS, self.items()),
                (SLOTS, self.slots()),
                (DELETES, self.deletes()),
            ],
        )
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// What a key opened for writing holds.
fn lookup<'k>(key: &'k mut WriteKey) -> Lookup<Tracked<'k, CuckooFilter>> {
    key.lookup()
}

/// What a key opened for reading holds.
fn lookup_read<'k>(key: &'k ReadKey) -> Lookup<&'k CuckooFilter> {
    key.lookup()
}

/// A new filter, as its key will hold it.
fn create(call: &Call, params: Params) -> Result<CuckooFilter, Failure> {
    CuckooFilter::new(params, &call.memory()).map_err(errors::fail)
}

/// What an insert command does before its first item: the filter at the key — created with
/// the `capacity` it asks for under the configuration when the key is empty, `ERR not found` when there is none to create with
/// (NOCREATE) — once it is known to be below `cf-max-expansions`. A new filter has one
/// sub-filter, so with `cf-max-expansions 1` it is refused before it is made: the error
/// leaves the key empty (RedisBloom creates the filter, then refuses, and does not replicate
/// it).
fn filter_for_insert<'k>(
    call: &Call,
    key: &'k mut WriteKey,
    capacity: impl FnOnce(&CuckooDefaults) -> Option<u64>,
) -> Result<Tracked<'k, CuckooFilter>, Failure> {
    let defaults = config::defaults();
    let capacity = capacity(&defaults);
    let create = || match capacity {
        Some(capacity) => {
            defaults.allow_inserts(1)?;
            create(call, defaults.params(capacity))
        }
        None => Err(Failure::Message(super::errors::NOT_FOUND)),
    };
    let filter = key.existing_or_created(create, |value| {
        value.downcast_mut::<CuckooFilter>().map(Tracked::new)
    })?;
    defaults.allow_inserts(filter.num_filters())?;
    Ok(filter)
}
