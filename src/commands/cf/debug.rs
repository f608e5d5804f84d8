//! `CF.DEBUG key`
//!
//! One bulk string in both protocols, RedisBloom's line:
//! `bktsize:<b> buckets:<n> items:<i> deletes:<d> filters:<f> max_iterations:<m> expansion:<e>`
//! (unsigned decimals; `buckets` is the first sub-filter's count). `ERR not found` /
//! `WRONGTYPE`.

use super::values::lookup_read;
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::reply::Reply;
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_ARG};

pub static DEBUG: CommandSpec = CommandSpec {
    name: "cf.debug",
    flags: "readonly fast",
    arity: 2,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Returns internal debug information about a Cuckoo Filter",
    complexity: "O(1)",
    since: "1.0.0",
    tips: Some("nondeterministic_output"),
    args: &[KEY_ARG],
    run: debug,
};

fn debug(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let f = lookup_read(&key).existing()?;
    let line = f.debug_line();
    Ok(Reply::Bulk(line.into_bytes()))
}
