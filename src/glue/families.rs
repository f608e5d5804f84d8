//! The families the module registers, each with its data types: the one list a new family
//! joins. Everything else — data types, commands, configs, ACL categories, INFO sections —
//! is derived from it.

use redis_module::raw;

use super::data_type::{DataType, Registered};
use super::types;
use crate::commands::family::Stat;
use crate::commands::metrics::COUNTS;

/// Every family, in registration order.
pub static FAMILIES: &[&Registered] = &[
    &types::bf::REGISTERED,
    &types::cf::REGISTERED,
    &types::cms::REGISTERED,
    &types::topk::REGISTERED,
    &types::tdigest::REGISTERED,
];

/// How many items one list of every family holds in all (`$list` names it within a
/// [`Registered`]). Constant evaluation calls no closures, so the walk over the families is
/// written once, as a macro.
macro_rules! count_across_families {
    ($($list:ident).+) => {{
        let (mut count, mut f) = (0, 0);
        while f < $crate::glue::families::FAMILIES.len() {
            count += $crate::glue::families::FAMILIES[f].$($list).+.len();
            f += 1;
        }
        count
    }};
}

/// One list of every family in one array of `$count` (filled with `$fill` first), in
/// registration order.
macro_rules! gather_across_families {
    ($($list:ident).+, $count:expr, $fill:expr) => {{
        let mut all = [$fill; $count];
        let (mut at, mut f) = (0, 0);
        while f < $crate::glue::families::FAMILIES.len() {
            let list = $crate::glue::families::FAMILIES[f].$($list).+;
            let mut i = 0;
            while i < list.len() {
                all[at] = list[i];
                at += 1;
                i += 1;
            }
            f += 1;
        }
        all
    }};
}
pub(super) use {count_across_families, gather_across_families};

/// Every data type of every family, in one table: a command finds the type of its key's value
/// in it.
pub static DATA_TYPES: [&DataType; TYPE_COUNT] =
    gather_across_families!(types, TYPE_COUNT, FAMILIES[0].types[0]);

/// Registers the data types (OnLoad, after the settings); fails if the server lacks the API or
/// has the names already.
pub fn register_data_types(ctx: *mut raw::RedisModuleCtx) -> Result<(), String> {
    // SAFETY: reading an API pointer set by RedisModule_Init.
    if unsafe { raw::RedisModule_CreateDataType }.is_none() {
        return Err("the server has no RedisModule_CreateDataType".into());
    }
    for data_type in DATA_TYPES {
        data_type.register(ctx)?;
    }
    Ok(())
}

/// How many data types the families have.
const TYPE_COUNT: usize = count_across_families!(types);

/// A footprint has room for [`COUNTS`] counts: as many as the family that names most of them in
/// its `INFO` section, no fewer (a count out of range) and no more (room no family uses).
const _: () = {
    let (mut most, mut f) = (0, 0);
    while f < FAMILIES.len() {
        let fields = FAMILIES[f].family.info.fields;
        let mut i = 0;
        while i < fields.len() {
            if let Stat::Count(count) = fields[i].shows {
                assert!(
                    count < COUNTS,
                    "a family names a count past COUNTS: raise it"
                );
                if count + 1 > most {
                    most = count + 1;
                }
            }
            i += 1;
        }
        f += 1;
    }
    assert!(
        most == COUNTS,
        "no family names the last count: lower COUNTS"
    );
};
