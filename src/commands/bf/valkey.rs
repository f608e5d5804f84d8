//! valkey-bloom's filters (data type `bloomfltr`, `core::bf::valkey`) under the BF commands: a
//! key that holds one answers as valkey-bloom 1.0 answers (`src/bloom/command_handler.rs`):
//! its replies (integers where RedisBloom has booleans), its `BF.INFO` fields, its errors, its
//! scaling and its object limit (128 MiB, or `bf-memory-usage-limit` where lower; not checked
//! on replayed commands, as valkey-bloom skips it on replicated ones).
//!
//! A new valkey-bloom filter is made by `BF.INSERT` with one of its own options (`SEED`,
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
//! `bloom.add`.

use std::ffi::CStr;
use std::ops::Range;

use super::{config, errors, is_bloom};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::family::StandIn;
use crate::commands::keys::WriteKey;
use crate::commands::lookup::Lookup;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::server::{Arg, Replicated};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::commands::tracked::Tracked;
use crate::core::bf::valkey::object::{scaled_capacity, AddError, Stop};
use crate::core::bf::valkey::payload::{self, DecodeError};
use crate::core::bf::valkey::{Params, ValkeyBloom, FIXED_SEED};
use crate::core::Error;
use crate::core::{no_server_bound, Memory};

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

const ADD_EVENT: &CStr = c"bloom.add";
const RESERVE_EVENT: &CStr = c"bloom.reserve";

/// Our options, which make a filter of ours under either flavour.
const OURS: [&str; 4] = ["LAYOUT", "WINDOW", "TIMESPAN", "AT"];

/// The parameters of a filter made without explicit ones: valkey-bloom's configs, a random
/// seed drawn if they ask for one.
fn defaults(call: &Call) -> Params {
    config::valkey_params(|| {
        let mut seed = [0; 32];
        call.server.random_bytes(&mut seed);
        seed
    })
}

/// valkey-bloom's object limit (`bloom-memory-usage-limit`), or redis-bf's where lower.
fn object_limit(call: &Call) -> u64 {
    config::valkey_object_limit().min(call.memory().limit)
}

/// The bound on an object's size for this command: none when replayed.
fn limit(call: &Call) -> u64 {
    if call.server.replayed() {
        u64::MAX
    } else {
        object_limit(call)
    }
}

fn add_error(error: AddError) -> &'static CStr {
    match error {
        AddError::Full => errors::FILTER_FULL,
        AddError::FalsePositiveDegrades => errors::FP_DEGRADES,
        AddError::CapacityOverflow => errors::BAD_CAPACITY,
        AddError::Memory(error) => errors::text(error),
    }
}

/// How many of `replies` are items that were tried and did not fail (a failure ends them).
fn tried(replies: &[Reply]) -> usize {
    match replies.last() {
        Some(Reply::Error(_)) => replies.len() - 1,
        _ => replies.len(),
    }
}

/// `BF.ADD` on a valkey-bloom filter: 1 if the item was added, 0 if it was there.
pub fn add(call: &Call, object: &mut Tracked<ValkeyBloom>) -> CommandResult {
    let added = object
        .add(call.arg(2), limit(call), &memory(call))
        .map_err(|e| Failure::Message(add_error(e)))?;
    if added {
        call.finish_write(ADD_EVENT);
    }
    Ok(Reply::integer(i64::from(added)))
}

/// `BF.MADD` (items from argument 2) or `BF.INSERT` (from `first`) on a valkey-bloom filter.
pub fn add_items(call: &Call, object: &mut Tracked<ValkeyBloom>, first: usize) -> CommandResult {
    let items = call.args.get(first..).unwrap_or(&[]);
    let replies = add_each(call, object, items)?;
    replicate_adds(call, first, &replies, items.len());
    Ok(Reply::Array(replies))
}

/// Adds each item: a non-scaling object refuses the whole command if the new items do not
/// fit (valkey-bloom 1.0's check before a multi-item add); otherwise one reply per item, the
/// first failure the last.
fn add_each(call: &Call, object: &mut ValkeyBloom, items: &[&[u8]]) -> Result<Vec<Reply>, Failure> {
    if !object.fits(items) {
        return Err(Failure::Message(errors::FILTER_FULL));
    }
    let (limit, memory) = (limit(call), memory(call));
    let mut replies = Vec::new();
    replies
        .try_reserve_exact(items.len())
        .map_err(|_| Failure::Message(errors::INSUFFICIENT_MEMORY))?;
    for item in items {
        match object.add(item, limit, &memory) {
            Ok(added) => replies.push(Reply::integer(i64::from(added))),
            Err(error) => {
                replies.push(Reply::Error(add_error(error)));
                break;
            }
        }
    }
    Ok(replies)
}

/// Replicates adds that added an item: verbatim when every item was tried, else as the
/// `BF.MADD` of the items tried before the failure (a replica skips the limit, so it would
/// add the rest).
fn replicate_adds(call: &Call, first: usize, replies: &[Reply], items: usize) {
    if !replies.contains(&Reply::integer(1)) {
        return;
    }
    let tried = tried(replies);
    if tried == items {
        call.finish_write(ADD_EVENT);
        return;
    }
    let mut args = vec![Arg::Own(1)];
    args.extend((first..first + tried).map(Arg::Own));
    let madd = Replicated {
        command: c"BF.MADD",
        args,
    };
    call.server.written_as(&[ADD_EVENT], &[madd]);
}

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

/// What valkey-bloom's `BF.INSERT` was asked.
struct InsertArgs {
    params: Params,
    nocreate: bool,
    validate_scale_to: Option<i64>,
    /// Index of the first item (the end of the arguments without ITEMS).
    first_item: usize,
}

/// Whether a new filter that `BF.INSERT` (`options_from` 2) or `BF.RESERVE` (4) makes is
/// valkey-bloom's: it asks for one of valkey-bloom's own options, or the flavour is
/// valkey-bloom's and it asks for none of ours.
pub fn makes_valkey_bloom(args: &[&[u8]], options_from: usize) -> bool {
    let options = args.get(options_from..).unwrap_or_default();
    let options = options.split(|a| a.eq_ignore_ascii_case(b"ITEMS")).next();
    let names = |words: &[&str]| {
        options.unwrap_or_default().iter().any(|option| {
            words
                .iter()
                .any(|word| option.eq_ignore_ascii_case(word.as_bytes()))
        })
    };
    names(&["SEED", "TIGHTENING", "VALIDATESCALETO"]) || config::valkey_flavour() && !names(&OURS)
}

/// Under `bf-flavour valkey-bloom`, `BF.ADD` (`single`) or `BF.MADD` on an empty key: a new
/// filter of valkey-bloom's configs with the items. `None` where the key is not empty or the
/// flavour is RedisBloom's.
pub fn add_creating(call: &Call, key: &mut WriteKey, single: bool) -> Option<CommandResult> {
    if !config::valkey_flavour() || !matches!(key.peek(|_| true), Lookup::Missing) {
        return None;
    }
    let created = create(call, key, defaults(call), 2);
    Some(
        created.and_then(|mut replies| match (single, replies.pop()) {
            (true, Some(Reply::Error(text))) => Err(Failure::Message(text)),
            (true, Some(reply)) => Ok(reply),
            (_, last) => {
                replies.extend(last);
                Ok(Reply::Array(replies))
            }
        }),
    )
}

/// `BF.RESERVE key error_rate capacity [EXPANSION n | NONSCALING]` making a valkey-bloom
/// filter, as valkey-bloom parses it (a second option, or one without its value, is `ERROR`).
pub fn reserve(call: &Call) -> CommandResult {
    if !(4..=6).contains(&call.args.len()) {
        return Err(Failure::WrongArity);
    }
    let mut params = defaults(call);
    params.fp_rate = rate(
        call.arg(2),
        errors::BAD_ERROR_RATE,
        errors::VALKEY_ERROR_RATE_RANGE,
    )?;
    params.capacity = capacity(call.arg(3))?;
    let option = |word: &[u8]| call.arg(4).eq_ignore_ascii_case(word);
    match call.args.len() {
        4 => {}
        5 if option(b"NONSCALING") => params.expansion = 0,
        6 if option(b"EXPANSION") => params.expansion = expansion(call.arg(5))?,
        _ => return Err(Failure::Message(errors::VALKEY_ERROR)),
    }
    let mut key = call.open_for_write()?;
    match key.peek(is_bloom) {
        Lookup::Found(()) => Err(Failure::Message(errors::ITEM_EXISTS)),
        Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Missing => create(call, &mut key, params, call.args.len()).map(|_| Reply::OK),
    }
}

/// A number as valkey-bloom parses one (Rust's `parse`: `+5`, `1e-3`, `inf`).
fn number<T: std::str::FromStr>(text: &[u8]) -> Option<T> {
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// A rate in (0, 1): `range` when a number outside it, `bad` when not a number.
fn rate(text: &[u8], bad: &'static CStr, range: &'static CStr) -> Result<f64, Failure> {
    match number::<f64>(text) {
        Some(x) if x > 0.0 && x < 1.0 => Ok(x),
        Some(_) => Err(Failure::Message(range)),
        None => Err(Failure::Message(bad)),
    }
}

fn capacity(text: &[u8]) -> Result<i64, Failure> {
    match number::<i64>(text) {
        Some(n) if n >= 1 => Ok(n),
        Some(0) => Err(Failure::Message(errors::CAPACITY_ZERO)),
        _ => Err(Failure::Message(errors::BAD_CAPACITY)),
    }
}

fn expansion(text: &[u8]) -> Result<u32, Failure> {
    number::<u32>(text)
        .filter(|&n| n >= 1)
        .ok_or(Failure::Message(errors::BAD_EXPANSION))
}

fn parse_insert(args: &[&[u8]], defaults: Params) -> Result<InsertArgs, Failure> {
    let mut params = defaults;
    let (mut nocreate, mut validate_scale_to) = (false, None);
    let mut i = 2;
    while let Some(option) = args.get(i) {
        let is = |word: &str| option.eq_ignore_ascii_case(word.as_bytes());
        if is("NOCREATE") || is("NONSCALING") || is("ITEMS") {
            if is("ITEMS") {
                if i + 1 >= args.len() {
                    return Err(Failure::WrongArity);
                }
                return checked(params, nocreate, validate_scale_to, i + 1);
            }
            nocreate |= is("NOCREATE");
            if is("NONSCALING") {
                params.expansion = 0;
            }
            i += 1;
            continue;
        }
        const WITH_VALUES: [&str; 6] = [
            "ERROR",
            "TIGHTENING",
            "CAPACITY",
            "SEED",
            "EXPANSION",
            "VALIDATESCALETO",
        ];
        if !WITH_VALUES.iter().any(|word| is(word)) {
            return Err(Failure::Message(errors::VALKEY_UNKNOWN_ARGUMENT));
        }
        let value = args.get(i + 1).copied().ok_or(Failure::WrongArity)?;
        if is("ERROR") {
            params.fp_rate = rate(
                value,
                errors::BAD_ERROR_RATE,
                errors::VALKEY_ERROR_RATE_RANGE,
            )?;
        } else if is("TIGHTENING") {
            params.tightening = rate(value, errors::BAD_TIGHTENING, errors::TIGHTENING_RANGE)?;
        } else if is("CAPACITY") {
            params.capacity = capacity(value)?;
        } else if is("SEED") {
            params.seed = value
                .try_into()
                .map_err(|_| Failure::Message(errors::INVALID_SEED))?;
            params.seed_random = params.seed != FIXED_SEED;
        } else if is("EXPANSION") {
            params.expansion = expansion(value)?;
        } else {
            validate_scale_to = Some(capacity(value)?);
        }
        i += 2;
    }
    checked(params, nocreate, validate_scale_to, args.len())
}

fn checked(
    params: Params,
    nocreate: bool,
    validate_scale_to: Option<i64>,
    first_item: usize,
) -> Result<InsertArgs, Failure> {
    if params.expansion == 0 && validate_scale_to.is_some() {
        return Err(Failure::Message(errors::NONSCALING_AND_VALIDATE));
    }
    Ok(InsertArgs {
        params,
        nocreate,
        validate_scale_to,
        first_item,
    })
}

/// `BF.INSERT` on a key that holds a valkey-bloom filter, or on an empty key with one of
/// valkey-bloom's own options.
pub fn insert(call: &Call, key: &mut WriteKey) -> CommandResult {
    let parsed = parse_insert(call.args, defaults(call))?;
    if let (Some(target), false) = (parsed.validate_scale_to, call.server.replayed()) {
        let p = parsed.params;
        let limit = object_limit(call);
        let reached = scaled_capacity(
            p.capacity,
            p.fp_rate,
            p.tightening,
            p.expansion,
            limit,
            Some(target),
        );
        match reached {
            Ok(_) => {}
            Err((_, Stop::FalsePositive)) => {
                return Err(Failure::Message(errors::VALIDATE_SCALE_TO_FP))
            }
            Err((_, Stop::Memory)) => {
                return Err(Failure::Message(errors::VALIDATE_SCALE_TO_MEMORY))
            }
            Err((_, Stop::Capacity)) => return Err(Failure::Message(errors::BAD_CAPACITY)),
        }
    }
    match key.peek(|value| value.is::<ValkeyBloom>()) {
        Lookup::Found(()) => {
            let mut object = key.lookup::<ValkeyBloom>().existing()?;
            add_items(call, &mut object, parsed.first_item)
        }
        Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Missing if parsed.nocreate => Err(Failure::Message(errors::NOT_FOUND)),
        Lookup::Missing => create(call, key, parsed.params, parsed.first_item).map(Reply::Array),
    }
}

/// A new valkey-bloom filter of `params` at the empty `key`, with the items from argument
/// `first` on, and their replies. As valkey-bloom, it is replicated as the `BF.INSERT` that
/// makes the same object (every parameter and the seed, so a replica with other configs
/// holds the same bytes) with the items tried, and raises `bloom.add` (if one was added)
/// and `bloom.reserve`.
fn create(
    call: &Call,
    key: &mut WriteKey,
    params: Params,
    first: usize,
) -> Result<Vec<Reply>, Failure> {
    let mut object = ValkeyBloom::new(params, limit(call), &memory(call)).map_err(errors::fail)?;
    let items = call.args.get(first..).unwrap_or(&[]);
    let replies = add_each(call, &mut object, items)?;
    key.store(object)?;
    let texts = [
        params.capacity.to_string(),
        params.fp_rate.to_string(),
        params.tightening.to_string(),
        params.expansion.to_string(),
    ];
    let insert = created(&params, &texts, first..first + tried(&replies));
    let events: &[&CStr] = if replies.contains(&Reply::integer(1)) {
        &[ADD_EVENT, RESERVE_EVENT]
    } else {
        &[RESERVE_EVENT]
    };
    call.server.written_as(events, &[insert]);
    Ok(replies)
}

/// Under `bf-flavour valkey-bloom`, each BF command as valkey-bloom registers it
/// (`src/lib.rs`): in capitals, flagged `fast` but for `BF.LOAD`, of arity -1 (each command
/// checks its own), which its clients and its test suite read in `COMMAND`.
pub fn registered(spec: &CommandSpec) -> Option<StandIn> {
    let (flags, acl_categories) = match () {
        () if std::ptr::eq(spec, &LOAD) => (spec.flags, spec.acl_categories),
        () if spec.flags.starts_with("write") => ("write deny-oom fast", "write fast"),
        () => ("readonly fast", "read fast"),
    };
    config::valkey_flavour().then(|| StandIn {
        name: spec.name.to_ascii_uppercase(),
        flags,
        acl_categories,
        arity: -1,
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

/// The memory bounds of a valkey-bloom filter: its object limit and the machine's memory, not
/// `maxmemory`, which valkey-bloom leaves to eviction (a filter larger than `maxmemory` is
/// made, and other keys evicted).
fn memory(call: &Call) -> Memory {
    Memory {
        server_bound: no_server_bound,
        ..call.memory()
    }
}

/// The `BF.INSERT` that makes the same object (`texts`: its capacity, error rate, tightening
/// ratio and expansion as valkey-bloom writes them), with the arguments `items`: those the
/// primary tried, not one that failed (a replica skips the limit, so it would add it).
fn created<'a>(params: &'a Params, texts: &'a [String; 4], items: Range<usize>) -> Replicated<'a> {
    let mut args = vec![
        Arg::Own(1),
        Arg::Bytes(b"CAPACITY"),
        Arg::Bytes(texts[0].as_bytes()),
        Arg::Bytes(b"ERROR"),
        Arg::Bytes(texts[1].as_bytes()),
        Arg::Bytes(b"TIGHTENING"),
        Arg::Bytes(texts[2].as_bytes()),
        Arg::Bytes(b"SEED"),
        Arg::Bytes(&params.seed),
    ];
    if params.expansion == 0 {
        args.push(Arg::Bytes(b"NONSCALING"));
    } else {
        args.push(Arg::Bytes(b"EXPANSION"));
        args.push(Arg::Bytes(texts[3].as_bytes()));
    }
    if !items.is_empty() {
        args.push(Arg::Bytes(b"ITEMS"));
        args.extend(items.map(Arg::Own));
    }
    Replicated {
        command: c"BF.INSERT",
        args,
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
