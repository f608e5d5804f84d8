//! Registers every command of every family: `RedisModule_CreateCommand` with the legacy key
//! range, then — where the server has the API — its ACL categories (the spec's and the
//! family's own) and its COMMAND INFO/DOCS metadata (arity, key specs, summary, arguments),
//! all derived from the command's spec. Redis copies all of it, so the C strings built here
//! only need to live through each call.

use std::ffi::CString;
use std::os::raw::c_int;
use std::ptr;

use redis_module::raw;

use super::dispatch::ENTRY_POINTS;
use super::families::FAMILIES;
use super::ffi::{self, c_string};
use super::key_positions::key_flags;
use super::server;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys};

static INFO_VERSION: raw::RedisModuleCommandInfoVersion = raw::RedisModuleCommandInfoVersion {
    version: 1,
    sizeof_historyentry: std::mem::size_of::<raw::RedisModuleCommandHistoryEntry>(),
    sizeof_keyspec: std::mem::size_of::<raw::RedisModuleCommandKeySpec>(),
    sizeof_arg: std::mem::size_of::<raw::RedisModuleCommandArg>(),
};

/// Registers all commands; fails the module load if any cannot be created.
pub fn register_commands(ctx: *mut raw::RedisModuleCtx) -> Result<(), String> {
    let with_categories = add_categories(ctx);
    let may_ask = server::asked_for_keys_on_main_thread_only(ctx);
    if !may_ask {
        ffi::log(
            ctx,
            c"warning",
            "redis-bf: with io-threads above 1 this server asks commands for their keys on its \
             I/O threads, where a module cannot answer safely: CMS.MERGE and TDIGEST.MERGE are \
             routed by their destination alone, so keep a merge's keys in one slot (one hash tag)",
        );
    }
    let families = FAMILIES.iter().flat_map(|registered| {
        let family = registered.family;
        family.commands.iter().map(move |spec| (spec, family))
    });
    for ((spec, family), handler) in families.zip(ENTRY_POINTS.iter()) {
        let category = family.acl_category;
        let stand_in = (family.stand_in)(spec);
        let (name, flags, acl_categories, arity) = match &stand_in {
            Some(s) => (s.name.as_str(), s.flags, s.acl_categories, s.arity),
            None => (spec.name, spec.flags, spec.acl_categories, spec.arity),
        };
        let name = c_string(name);
        let flags = c_string(&server_flags(flags, spec.keys.asks_command() && may_ask));
        let (first, last, step) = Keys::LEGACY_RANGE;
        // SAFETY: called during OnLoad with the module's context; the strings outlive the calls.
        let command = unsafe {
            let create = raw::RedisModule_CreateCommand.ok_or("no RedisModule_CreateCommand")?;
            if create(
                ctx,
                name.as_ptr(),
                Some(*handler),
                flags.as_ptr(),
                first,
                last,
                step,
            ) != raw::REDISMODULE_OK as c_int
            {
                return Err(format!("could not create command {}", spec.name));
            }
            raw::RedisModule_GetCommand.map_or(ptr::null_mut(), |get| get(ctx, name.as_ptr()))
        };
        if command.is_null() {
            continue; // Servers before 7.0 have no command objects: the command works, without docs.
        }
        let category = with_categories.then_some(category);
        set_acl_categories(command, spec, acl_categories, category)?;
        set_info(command, spec, arity)?;
    }
    Ok(())
}

/// A spec's command flags as this server takes them: `may-replicate` (a read that may
/// replicate a change) is known from Redis 6.2 on, where `CLIENT PAUSE WRITE` holds such
/// commands back; before, it is dropped (and there is nothing to hold them back from). A
/// command whose keys a count names answers the server's question for them where it `asks`
/// (`getkeys-api`, `key_positions.rs`).
fn server_flags(flags: &str, asks: bool) -> String {
    const MAY_REPLICATE: &str = "may-replicate";
    let known = server::own_version().is_some_and(|version| version >= (6, 2, 0));
    let asks = asks.then_some("getkeys-api");
    flags
        .split(' ')
        .filter(|flag| known || *flag != MAY_REPLICATE)
        .chain(asks)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Creates the families' categories where the server supports module categories (Redis ≥ 7.4,
/// Valkey); true when all of them exist.
fn add_categories(ctx: *mut raw::RedisModuleCtx) -> bool {
    FAMILIES.iter().all(|registered| {
        let category = c_string(registered.family.acl_category);
        // SAFETY: OnLoad context; the string outlives the call.
        unsafe {
            raw::RedisModule_AddACLCategory
                .is_some_and(|add| add(ctx, category.as_ptr()) == raw::REDISMODULE_OK as c_int)
        }
    })
}

/// Sets the command's categories where the server has the API (Redis ≥ 7.2): the spec's, and
/// the family's own `category` where the server has it.
fn set_acl_categories(
    command: *mut raw::RedisModuleCommand,
    spec: &CommandSpec,
    categories: &str,
    family: Option<&str>,
) -> Result<(), String> {
    // SAFETY: reading an API pointer set by RedisModule_Init.
    let Some(set) = (unsafe { raw::RedisModule_SetCommandACLCategories }) else {
        return Ok(());
    };
    let categories = match family {
        Some(family) => c_string(&format!("{categories} {family}")),
        None => c_string(categories),
    };
    // SAFETY: `command` was returned by RedisModule_GetCommand; the string outlives the call.
    if unsafe { set(command, categories.as_ptr()) } != raw::REDISMODULE_OK as c_int {
        return Err(format!("could not set the ACL categories of {}", spec.name));
    }
    Ok(())
}

/// Owns every C string and argument array one `SetCommandInfo` call points into.
#[derive(Default)]
struct Arena {
    strings: Vec<CString>,
    arrays: Vec<Vec<raw::RedisModuleCommandArg>>,
    /// Key arguments documented so far: the next one belongs to the next key spec.
    keys_seen: c_int,
}

impl Arena {
    fn text(&mut self, text: &str) -> *const std::os::raw::c_char {
        self.strings.push(c_string(text));
        self.strings.last().map_or(ptr::null(), |s| s.as_ptr())
    }

    fn optional_text(&mut self, text: Option<&str>) -> *const std::os::raw::c_char {
        text.map_or(ptr::null(), |t| self.text(t))
    }

    /// A zero-terminated argument array; its address stays put when `arrays` grows.
    fn args(&mut self, specs: &[ArgSpec]) -> *mut raw::RedisModuleCommandArg {
        let mut args: Vec<raw::RedisModuleCommandArg> =
            specs.iter().map(|spec| self.arg(spec)).collect();
        args.push(zeroed_arg());
        let pointer = args.as_mut_ptr();
        self.arrays.push(args);
        pointer
    }

    fn arg(&mut self, spec: &ArgSpec) -> raw::RedisModuleCommandArg {
        let (type_, subargs) = match spec.kind {
            ArgKind::Key => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_KEY,
                ptr::null_mut(),
            ),
            ArgKind::String => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_STRING,
                ptr::null_mut(),
            ),
            ArgKind::Integer => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_INTEGER,
                ptr::null_mut(),
            ),
            ArgKind::Double => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_DOUBLE,
                ptr::null_mut(),
            ),
            ArgKind::PureToken => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_PURE_TOKEN,
                ptr::null_mut(),
            ),
            ArgKind::OneOf(choices) => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_ONEOF,
                self.args(choices),
            ),
            ArgKind::Block(parts) => (
                raw::RedisModuleCommandArgType_REDISMODULE_ARG_TYPE_BLOCK,
                self.args(parts),
            ),
        };
        let mut flags = 0;
        if spec.optional {
            flags |= raw::REDISMODULE_CMD_ARG_OPTIONAL;
        }
        if spec.multiple {
            flags |= raw::REDISMODULE_CMD_ARG_MULTIPLE;
        }
        raw::RedisModuleCommandArg {
            name: self.text(spec.name),
            type_,
            key_spec_index: if matches!(spec.kind, ArgKind::Key) {
                self.keys_seen += 1;
                self.keys_seen - 1
            } else {
                -1
            },
            token: self.optional_text(spec.token),
            flags: flags as c_int,
            subargs,
            ..zeroed_arg()
        }
    }
}

fn zeroed_arg() -> raw::RedisModuleCommandArg {
    raw::RedisModuleCommandArg {
        name: ptr::null(),
        type_: 0,
        key_spec_index: 0,
        token: ptr::null(),
        summary: ptr::null(),
        since: ptr::null(),
        flags: 0,
        deprecated_since: ptr::null(),
        subargs: ptr::null_mut(),
        display_text: ptr::null(),
    }
}

fn set_info(
    command: *mut raw::RedisModuleCommand,
    spec: &CommandSpec,
    arity: i32,
) -> Result<(), String> {
    // SAFETY: reading an API pointer set by RedisModule_Init.
    let Some(set) = (unsafe { raw::RedisModule_SetCommandInfo }) else {
        return Ok(());
    };
    let mut arena = Arena::default();
    let mut key_specs = key_specs(spec.keys);
    let info = raw::RedisModuleCommandInfo {
        version: &INFO_VERSION,
        summary: arena.text(spec.summary),
        complexity: arena.text(spec.complexity),
        since: arena.text(spec.since),
        history: ptr::null_mut(),
        tips: arena.optional_text(spec.tips),
        arity,
        key_specs: key_specs.as_mut_ptr(),
        args: arena.args(spec.args),
    };
    // SAFETY: `command` came from RedisModule_GetCommand during OnLoad; every pointer in `info`
    // points into `arena` or `key_specs`, which live until after the call.
    if unsafe { set(command, &info) } != raw::REDISMODULE_OK as c_int {
        return Err(format!("could not set the command info of {}", spec.name));
    }
    Ok(())
}

/// The key specs of `keys`, terminated by an all-zero one.
fn key_specs(keys: Keys) -> [raw::RedisModuleCommandKeySpec; 3] {
    // SAFETY: an all-zero key spec is the array terminator and a valid starting point.
    let mut specs: [raw::RedisModuleCommandKeySpec; 3] = unsafe { std::mem::zeroed() };
    let read = key_flags(KeyAccess::Read);
    let write = key_flags(KeyAccess::Write);
    // Argument 1, alone.
    let first = &mut specs[0];
    first.begin_search_type = raw::RedisModuleKeySpecBeginSearchType_REDISMODULE_KSPEC_BS_INDEX;
    first.bs.index.pos = 1;
    first.find_keys_type = raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_RANGE;
    first.fk.range.lastkey = 0;
    first.fk.range.keystep = 1;
    first.fk.range.limit = 0;
    match keys {
        Keys::One(KeyAccess::Read) => first.flags = u64::from(read),
        Keys::One(KeyAccess::Write) => first.flags = u64::from(write),
        Keys::DestinationAndSources => {
            first.flags = u64::from(write);
            // Argument 2 counts the sources, which follow it.
            let sources = &mut specs[1];
            sources.flags = u64::from(read);
            sources.begin_search_type =
                raw::RedisModuleKeySpecBeginSearchType_REDISMODULE_KSPEC_BS_INDEX;
            sources.bs.index.pos = 2;
            sources.find_keys_type =
                raw::RedisModuleKeySpecFindKeysType_REDISMODULE_KSPEC_FK_KEYNUM;
            sources.fk.keynum.keynumidx = 0;
            sources.fk.keynum.firstkey = 1;
            sources.fk.keynum.keystep = 1;
        }
    }
    specs
}
