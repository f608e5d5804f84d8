//! What `SCANDUMP` and `LOADCHUNK` share in every family that has them: RedisBloom documents
//! them alike (the Cuckoo filter's words are the Bloom filter's).

use super::call::Call;
use super::errors::CommandResult;
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
