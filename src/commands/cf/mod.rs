//! The Cuckoo-filter commands (`CF.*`), one file per command family, and what they share: the
//! parameter rules and configured defaults (`rules`, also used by the `cf-*` configs), the
//! argument docs, and the steps every insert command takes before its first item.

mod add;
mod compact;
mod debug;
mod del;
mod dump;
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
#[cfg(fuzzing)]
pub use {
    insert::{parse as parse_insert, InsertArgs},
    reserve::parse as parse_reserve,
};

use super::call::{Call, Lookup, ReadKey, WriteKey};
use super::errors::{self, Failure};
use super::metrics::Tracked;
use super::spec::{ArgKind, ArgSpec, KEY_ARG};
use crate::core::cuckoo::{CuckooFilter, Params};
use rules::Defaults as CuckooDefaults;

/// CF.ADD, CF.ADDNX, CF.EXISTS, CF.COUNT and CF.DEL: a key and one item.
const ONE_ITEM_ARGS: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("item", ArgKind::String)];

/// What a key opened for writing holds.
fn lookup<'k>(call: &Call, key: &'k WriteKey) -> Lookup<Tracked<'k, CuckooFilter>> {
    call.lookup(key)
}

/// What a key opened for reading holds.
fn lookup_read<'k>(call: &Call, key: &'k ReadKey) -> Lookup<&'k CuckooFilter> {
    call.lookup_read(key)
}

/// A new filter, as its key will hold it.
fn create(call: &Call, params: Params) -> Result<CuckooFilter, Failure> {
    CuckooFilter::new(params, &call.memory()).map_err(errors::cuckoo)
}

/// What an insert command does before its first item: the filter at the key — created with
/// the `capacity` it asks for under the configuration when the key is empty, `ERR not found` when there is none to create with
/// (NOCREATE) — once it is known to be below `cf-max-expansions`. A new filter has one
/// sub-filter, so with `cf-max-expansions 1` it is refused before it is made: the error
/// leaves the key empty (RedisBloom creates the filter, then refuses, and does not replicate
/// it).
fn filter_for_insert<'k>(
    call: &Call,
    key: &'k WriteKey,
    capacity: impl FnOnce(&CuckooDefaults) -> Option<u64>,
) -> Result<Tracked<'k, CuckooFilter>, Failure> {
    let defaults = call.cuckoo_config();
    match (lookup(call, key), capacity(&defaults)) {
        (Lookup::Missing, Some(capacity)) => {
            defaults.allow_inserts(1)?;
            call.store(key, create(call, defaults.params(capacity))?)?;
            lookup(call, key).existing()
        }
        (found, _) => {
            let filter = found.existing()?;
            defaults.allow_inserts(filter.num_filters())?;
            Ok(filter)
        }
    }
}
