//! `CF.INFO key`
//!
//! Eight name/value pairs, all integers, in RedisBloom's order — a map in RESP3, a flat array
//! of 16 in RESP2: `Size` (bytes, as `MEMORY USAGE` counts the value), `Number of buckets` (of
//! the first sub-filter), `Number of filters`, `Number of items inserted` (minus those deleted),
//! `Number of items deleted` (since the last compaction), `Bucket size`, `Expansion rate`
//! (rounded up to a power of two) and `Max iterations`. There is no single-field form.
//! `ERR not found` / `WRONGTYPE`.

use super::values::lookup_read;
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::reply::Reply;
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_ARG};

pub static INFO: CommandSpec = CommandSpec {
    name: "cf.info",
    flags: "readonly fast",
    arity: 2,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read fast",
    summary: "Returns information about a Cuckoo Filter",
    complexity: "O(1)",
    since: "1.0.0",
    tips: Some("nondeterministic_output"),
    args: &[KEY_ARG],
    run: info,
};

fn info(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let filter = lookup_read(&key).existing()?;
    // RedisBloom sends the counters as signed 64-bit integers: an item count that wrapped (a
    // LOADCHUNK stream can leave one) shows as negative there, and here.
    let int = |n: u64| Reply::integer(n as i64);
    Ok(Reply::Map(vec![
        (c"Size", int(filter.memory_usage())),
        (c"Number of buckets", int(filter.num_buckets())),
        (c"Number of filters", int(filter.num_filters().into())),
        (c"Number of items inserted", int(filter.items())),
        (c"Number of items deleted", int(filter.deletes())),
        (c"Bucket size", int(filter.bucket_size().into())),
        (c"Expansion rate", int(filter.expansion().into())),
        (c"Max iterations", int(filter.max_iterations().into())),
    ]))
}
