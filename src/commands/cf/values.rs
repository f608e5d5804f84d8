//! The Cuckoo filters at keys: what each adds to the family's `INFO` totals, the lookups, and
//! what an insert command does before its first item.

use super::rules::Defaults as CuckooDefaults;
use super::{config, errors};
use crate::commands::call::Call;
use crate::commands::errors::Failure;
use crate::commands::keys::{ReadKey, WriteKey};
use crate::commands::lookup::Lookup;
use crate::commands::metrics::{Footprint, Measured, Totals};
use crate::commands::tracked::Tracked;
use crate::core::cf::{CuckooFilter, Params};

pub(super) static TOTALS: Totals = Totals::new();

/// The counts of a Cuckoo filter's footprint, by position.
pub(super) const SUB_FILTERS: usize = 0;
pub(super) const ITEMS: usize = 1;
pub(super) const SLOTS: usize = 2;
pub(super) const DELETES: usize = 3;

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
// Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
#[inline(always)]
pub(super) fn lookup_write<'k>(key: &'k mut WriteKey) -> Lookup<Tracked<'k, CuckooFilter>> {
    key.lookup()
}

/// What a key opened for reading holds.
pub(super) fn lookup_read<'k>(key: &'k ReadKey) -> Lookup<&'k CuckooFilter> {
    key.lookup()
}

/// A new filter, as its key will hold it.
pub(super) fn create(call: &Call, params: Params) -> Result<CuckooFilter, Failure> {
    CuckooFilter::new(params, &call.memory()).map_err(errors::fail)
}

/// What an insert command does before its first item: the filter at the key — created with
/// the `capacity` it asks for under the configuration when the key is empty, `ERR not found` when there is none to create with
/// (NOCREATE) — once it is known to be below `cf-max-expansions`. A new filter has one
/// sub-filter, so with `cf-max-expansions 1` it is refused before it is made: the error
/// leaves the key empty (RedisBloom creates the filter, then refuses, and does not replicate
/// it).
pub(super) fn filter_for_insert<'k>(
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
        None => Err(Failure::Message(crate::commands::errors::NOT_FOUND)),
    };
    let filter = key.existing_or_created(create, |value| {
        value.downcast_mut::<CuckooFilter>().map(Tracked::new)
    })?;
    defaults.allow_inserts(filter.num_filters())?;
    Ok(filter)
}
