//! valkey-bloom's filters (data type `bloomfltr`, `core::bf::valkey`) under the BF commands: a
//! key that holds one answers as valkey-bloom 1.0 answers (`src/bloom/command_handler.rs`):
//! its replies (integers where RedisBloom has booleans), its `BF.INFO` fields, its errors, its
//! scaling and its object limit (128 MiB, or `bf-memory-usage-limit` where lower; not checked
//! on replayed commands, as valkey-bloom skips it on replicated ones).
//!
//! A new valkey-bloom filter is made (`create.rs`) by `BF.INSERT` with one of its own options (`SEED`,
//! `TIGHTENING`, `VALIDATESCALETO`, which RedisBloom has not) — what a valkey-bloom primary
//! replicates every creation as — or by `BF.LOAD`, which its AOF rewrite writes; and, under
//! `bf-flavour valkey-bloom`, by BF.ADD, BF.MADD, BF.RESERVE and BF.INSERT on an empty key
//! (but for those that ask for one of ours: `LAYOUT`, `WINDOW`, `TIMESPAN`). What a command
//! leaves out comes from valkey-bloom's configs (`bloom-*`, `config.rs`), its seed drawn from
//! the server's random generator unless `bloom-use-random-seed` is off (then valkey-bloom's
//! fixed seed).
//!
//! Replication follows valkey-bloom: a creation as `BF.INSERT key CAPACITY … ERROR …
//! TIGHTENING … SEED … EXPANSION …|NONSCALING [ITEMS …]`, which builds the same object on any
//! replica; adds verbatim when they added an item, and when one failed part way, as the
//! `BF.MADD` of the items before it; `BF.LOAD` verbatim. Keyspace events `bloom.reserve` and
//! `bloom.add`. What making and filling a filter share (defaults, limits, adding items) is
//! `filter.rs`.

use std::ffi::CStr;

mod create;
mod filter;

pub use create::{
    add_creating, insert, makes_valkey_bloom, parse_insert, parse_reserve, reserve, InsertArgs,
};
pub use filter::{add, add_items};

pub(super) use filter::limit;
use filter::{memory, object_limit, RESERVE_EVENT};

use super::{config, errors};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::family::StandIn;
use crate::commands::lookup::Lookup;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::bf::valkey::payload::{self, DecodeError};
use crate::core::bf::valkey::ValkeyBloom;
use crate::core::Error;

pub static LOAD: CommandSpec = CommandSpec {
    name: "bf.load",
    flags: "write deny-oom",
    arity: 3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Restores a valkey-bloom filter from the payload its AOF rewrite writes",
    complexity: "O(n), where n is the size of the payload",
    since: "1.0.0",
    tips: None,
    args: &[KEY_ARG, ArgSpec::new("payload", ArgKind::String)],
    run: load,
};

/// `BF.EXISTS`/`BF.MEXISTS` replies on a valkey-bloom filter: integers.
pub fn found(object: &ValkeyBloom, item: &[u8]) -> Scalar {
    Scalar::Integer(i64::from(object.contains(item)))
}

/// `BF.CARD`.
pub fn card(object: &ValkeyBloom) -> Reply {
    Reply::integer(object.items())
}

/// `BF.INFO key [field]` on a valkey-bloom filter: its fields, names and order; the last two
/// only for a scaling filter (asked for alone on a non-scaling one, `ERR invalid information
/// value`).
pub fn info(call: &Call, object: &ValkeyBloom) -> CommandResult {
    let scaling = object.expansion() != 0;
    let expansion = if scaling {
        Scalar::Integer(i64::from(object.expansion()))
    } else {
        Scalar::Null
    };
    let max_scaled = || Scalar::Integer(object.max_scaled_capacity(object_limit(call)));
    let fields: [(&str, &CStr, Option<Scalar>); 8] = [
        (
            "CAPACITY",
            c"Capacity",
            Some(Scalar::Integer(object.capacity())),
        ),
        (
            "SIZE",
            c"Size",
            Some(Scalar::Integer(object.memory_usage() as i64)),
        ),
        (
            "FILTERS",
            c"Number of filters",
            Some(Scalar::Integer(object.filters().len() as i64)),
        ),
        (
            "ITEMS",
            c"Number of items inserted",
            Some(Scalar::Integer(object.items())),
        ),
        (
            "ERROR",
            c"Error rate",
            Some(Scalar::Double(object.fp_rate())),
        ),
        ("EXPANSION", c"Expansion rate", Some(expansion)),
        (
            "TIGHTENING",
            c"Tightening ratio",
            scaling.then_some(Scalar::Double(object.tightening())),
        ),
        (
            "MAXSCALEDCAPACITY",
            c"Max scaled capacity",
            scaling.then(max_scaled),
        ),
    ];
    let Some(asked) = call.args.get(2) else {
        let mut reply = Vec::new();
        for (_, name, value) in fields {
            if let Some(value) = value {
                reply.push(Reply::Scalar(Scalar::Status(name)));
                reply.push(Reply::Scalar(value));
            }
        }
        return Ok(Reply::Array(reply));
    };
    fields
        .into_iter()
        .find(|(word, _, _)| asked.eq_ignore_ascii_case(word.as_bytes()))
        .and_then(|(_, _, value)| value)
        .map(Reply::Scalar)
        .ok_or(Failure::Message(errors::INVALID_INFO_VALUE))
}

/// Under `bf-flavour valkey-bloom`, each BF command as valkey-bloom registers it
/// (`src/lib.rs`): in capitals, of arity -1 (each command checks its own), flagged `fast` but
/// for `BF.LOAD`; which its clients and its test suite read in `COMMAND`. The commands it has
/// not (`BF.SCANDUMP`, `BF.LOADCHUNK`, `BF.DEBUG`) keep their flags and arity, in capitals too.
pub fn registered(spec: &CommandSpec) -> Option<StandIn> {
    const FAST: [&str; 8] = [
        "bf.add",
        "bf.madd",
        "bf.exists",
        "bf.mexists",
        "bf.insert",
        "bf.reserve",
        "bf.info",
        "bf.card",
    ];
    let valkey_bloom_s = FAST.contains(&spec.name) || std::ptr::eq(spec, &LOAD);
    let (flags, acl_categories) = match () {
        () if !FAST.contains(&spec.name) => (spec.flags, spec.acl_categories),
        () if spec.flags.starts_with("write") => ("write deny-oom fast", "write fast"),
        () => ("readonly fast", "read fast"),
    };
    config::valkey_flavour().then(|| StandIn {
        name: spec.name.to_ascii_uppercase(),
        flags,
        acl_categories,
        arity: if valkey_bloom_s { -1 } else { spec.arity },
    })
}

/// `BF.EXISTS`/`BF.MEXISTS` on an empty key: as RedisBloom (false), or under
/// `bf-flavour valkey-bloom` as valkey-bloom (the integer 0).
pub fn absent() -> Scalar {
    if config::valkey_flavour() {
        Scalar::Integer(0)
    } else {
        Scalar::Bool(false)
    }
}

/// The same on a key of another type: RedisBloom's false, or valkey-bloom's `WRONGTYPE`.
pub fn other_type() -> Result<Scalar, Failure> {
    if config::valkey_flavour() {
        Err(Failure::Message(errors::WRONG_TYPE))
    } else {
        Ok(Scalar::Bool(false))
    }
}

/// `BF.LOAD key payload`: a valkey-bloom filter from the payload its AOF rewrite writes.
fn load(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    match key.peek(|value| value.is::<ValkeyBloom>()) {
        Lookup::Missing => {}
        Lookup::Found(()) => return Err(Failure::Message(errors::BUSYKEY)),
        Lookup::WrongType => return Err(Failure::Message(errors::WRONG_TYPE)),
    }
    let object = payload::decode(call.arg(2), &memory(call)).map_err(|e| {
        Failure::Message(match e {
            DecodeError::Version => errors::DECODE_VERSION,
            DecodeError::Malformed => errors::DECODE_FAILED,
            DecodeError::RateRange => errors::VALKEY_ERROR_RATE_RANGE,
            DecodeError::Memory(Error::OverLimit) => errors::BLOOM_OVER_LIMIT,
            DecodeError::Memory(_) => errors::INSUFFICIENT_MEMORY,
        })
    })?;
    if object.memory_usage() > limit(call) {
        return Err(Failure::Message(errors::BLOOM_OVER_LIMIT));
    }
    key.store(object)?;
    call.finish_write(RESERVE_EVENT);
    Ok(Reply::OK)
}

/// `BF.DEBUG` of a valkey-bloom filter, in RedisBloom's form: the items, then per sub-filter
/// its bitmap's bytes and bits, probes, capacity and items.
pub fn debug(object: &ValkeyBloom) -> Reply {
    let mut lines = vec![Reply::Bulk(format!("size:{}", object.items()).into_bytes())];
    for filter in object.filters() {
        let line = format!(
            "bytes:{} bits:{} hashes:{} capacity:{} size:{}",
            filter.bitmap_len(),
            filter.bitmap_len() * 8,
            filter.probes(),
            filter.capacity,
            filter.items
        );
        lines.push(Reply::Bulk(line.into_bytes()));
    }
    Reply::Array(lines)
}
