//! What `SCANDUMP` and `LOADCHUNK` share in every family that has them: RedisBloom documents
//! them alike (the Cuckoo filter's words are the Bloom filter's).

use super::call::Call;
use super::errors::CommandResult;
use super::reply::{Reply, Scalar};
use super::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};

const SCANDUMP_ARGS: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("iterator", ArgKind::Integer)];
const LOADCHUNK_ARGS: &[ArgSpec] = &[
    KEY_ARG,
    ArgSpec::new("iterator", ArgKind::Integer),
    ArgSpec::new("data", ArgKind::String),
];

impl CommandSpec {
    /// `<family>.SCANDUMP key iterator`, documented alike in every family that has it.
    pub const fn scandump(name: &'static str, run: fn(&Call) -> CommandResult) -> CommandSpec {
        CommandSpec {
            name,
            flags: "readonly",
            arity: 3,
            keys: Keys::One(KeyAccess::Read),
            acl_categories: "read",
            summary: "Begins an incremental save of the bloom filter",
            complexity: "O(n), where n is the capacity",
            since: "1.0.0",
            tips: Some("nondeterministic_output"),
            args: SCANDUMP_ARGS,
            run,
        }
    }

    /// `<family>.LOADCHUNK key iterator data`, documented alike in every family that has it.
    pub const fn loadchunk(name: &'static str, run: fn(&Call) -> CommandResult) -> CommandSpec {
        CommandSpec {
            name,
            flags: "write deny-oom",
            arity: 4,
            keys: Keys::One(KeyAccess::Write),
            acl_categories: "write",
            summary: "Restores a filter previously saved using SCANDUMP",
            complexity: "O(n), where n is the capacity",
            since: "1.0.0",
            tips: None,
            args: LOADCHUNK_ARGS,
            run,
        }
    }
}

/// Replies `[next, data]` as every SCANDUMP does, `data` being a bulk string, or a null where
/// the family ends its walk with one (CF). Written straight from the filter: a chunk is up to
/// 16 MiB, and a copy of it would double the command's time.
pub fn scandump_reply(call: &Call, next: i64, data: Option<&[u8]>) -> CommandResult {
    call.out.array(2);
    call.out.scalar(Scalar::Integer(next));
    match data {
        Some(data) => call.out.bulk(data),
        None => call.out.scalar(Scalar::Null),
    }
    Ok(Reply::Sent)
}
