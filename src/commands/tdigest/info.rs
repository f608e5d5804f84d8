//! `TDIGEST.MIN key`, `TDIGEST.MAX key` and `TDIGEST.INFO key`
//!
//! MIN and MAX: the smallest and largest value ever added (exact, not a centroid), a double;
//! NaN for an empty digest. INFO: nine name/value pairs, all integers, in RedisBloom's order —
//! a map in RESP3, a flat array of 18 in RESP2: `Compression`, `Capacity` (nodes, `6 ·
//! compression + 10`), `Merged nodes`, `Unmerged nodes`, `Merged weight`, `Unmerged weight`,
//! `Observations`, `Total compressions`, `Memory usage` (bytes, as RedisBloom 8 counts them;
//! 2.8.2 showed 72 less). `ERR T-Digest: key does not exist` / `WRONGTYPE`. None of them
//! compresses the digest, as in RedisBloom.
//!
//! INFO shows the digest as held. After a save in this process (DUMP, SAVE…) RedisBloom's
//! primary holds it compressed; this one owes that compression until the next command on the
//! key, and shows its buffer until then — as its replicas, which know nothing of the save, do.

use super::errors;
use super::values::existing_read;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::tdigest::TDigest;

const fn spec(
    name: &'static str,
    summary: &'static str,
    run: fn(&Call) -> CommandResult,
) -> CommandSpec {
    CommandSpec {
        name,
        flags: "readonly",
        arity: 2,
        keys: Keys::One(KeyAccess::Read),
        acl_categories: "read fast",
        summary,
        complexity: "O(1)",
        since: "2.4.0",
        tips: None,
        args: &[KEY_ARG],
        run,
    }
}

pub static MIN: CommandSpec = spec(
    "tdigest.min",
    "Returns the minimum observation value from a t-digest sketch",
    |call| extreme(call, TDigest::min),
);

pub static MAX: CommandSpec = spec(
    "tdigest.max",
    "Returns the maximum observation value from a t-digest sketch",
    |call| extreme(call, TDigest::max),
);

pub static INFO: CommandSpec = spec(
    "tdigest.info",
    "Returns information and statistics about a t-digest sketch",
    info,
);

fn extreme(call: &Call, which: fn(&TDigest) -> f64) -> CommandResult {
    let key = call.open_for_read()?;
    let stored = existing_read(&key)?;
    let value = stored
        .read(which)
        .ok_or(Failure::Message(errors::NO_MEMORY_TO_READ))?;
    Ok(Reply::Scalar(Scalar::Double(value)))
}

fn info(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let stored = existing_read(&key)?;
    let info = stored
        .read(TDigest::info)
        .ok_or(Failure::Message(errors::NO_MEMORY_TO_READ))?;
    let int = Reply::integer;
    Ok(Reply::Map(vec![
        (c"Compression", int(info.compression)),
        (c"Capacity", int(info.capacity)),
        (c"Merged nodes", int(info.merged_nodes)),
        (c"Unmerged nodes", int(info.unmerged_nodes)),
        (c"Merged weight", int(info.merged_weight)),
        (c"Unmerged weight", int(info.unmerged_weight)),
        (c"Observations", int(info.observations)),
        (c"Total compressions", int(info.total_compressions)),
        (c"Memory usage", Reply::count(info.memory_usage)),
    ]))
}
