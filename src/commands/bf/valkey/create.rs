//! Making valkey-bloom's filters: `BF.INSERT` with valkey-bloom's options, and under
//! `bf-flavour valkey-bloom` `BF.ADD`, `BF.MADD`, `BF.RESERVE` and `BF.INSERT` on an empty key,
//! parsed as valkey-bloom parses them (`src/bloom/command_handler.rs`), each creation
//! replicated as the `BF.INSERT` that makes the same object.

use std::ffi::CStr;
use std::ops::Range;

use super::super::rules::{fraction, number};
use super::super::values::is_bloom;
use super::super::{config, errors};
use super::filter::{
    add_each, add_items, defaults, limit, memory, object_limit, tried, ADD_EVENT, OURS,
    RESERVE_EVENT,
};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::keys::WriteKey;
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::server::{Arg, Replicated};
use crate::core::bf::valkey::object::{scaled_capacity, Stop};
use crate::core::bf::valkey::{Params, ValkeyBloom, FIXED_SEED};

/// What valkey-bloom's `BF.INSERT` was asked.
#[derive(Debug)]
pub struct InsertArgs {
    pub params: Params,
    pub nocreate: bool,
    pub validate_scale_to: Option<i64>,
    /// Index of the first item (the end of the arguments without ITEMS).
    pub first_item: usize,
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
    if !config::valkey_flavour() || !key.is_empty() {
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
    let params = parse_reserve(call.args, defaults(call))?;
    let mut key = call.open_for_write()?;
    match key.peek(is_bloom) {
        Lookup::Found(()) => Err(Failure::Message(errors::ITEM_EXISTS)),
        Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Missing => create(call, &mut key, params, call.args.len()).map(|_| Reply::OK),
    }
}

/// A rate of a command: `range` when a number outside (0, 1), `bad` when not a number.
fn rate(text: &[u8], bad: &'static CStr, range: &'static CStr) -> Result<f64, Failure> {
    fraction(text).map_err(|fault| Failure::Message(fault.text(bad, range)))
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

/// `BF.RESERVE`'s arguments (`args`, the command name first) over `defaults`, as valkey-bloom
/// reads them: a pure function, fuzzed.
pub fn parse_reserve(args: &[&[u8]], defaults: Params) -> Result<Params, Failure> {
    if !(4..=6).contains(&args.len()) {
        return Err(Failure::WrongArity);
    }
    let mut params = defaults;
    params.fp_rate = rate(
        args[2],
        errors::BAD_ERROR_RATE,
        errors::VALKEY_ERROR_RATE_RANGE,
    )?;
    params.capacity = capacity(args[3])?;
    let option = |word: &[u8]| args[4].eq_ignore_ascii_case(word);
    match args.len() {
        4 => {}
        5 if option(b"NONSCALING") => params.expansion = 0,
        6 if option(b"EXPANSION") => params.expansion = expansion(args[5])?,
        _ => return Err(Failure::Message(errors::VALKEY_ERROR)),
    }
    Ok(params)
}

/// `BF.INSERT`'s arguments (`args`, the command name first) over `defaults`, as valkey-bloom
/// reads them: a pure function, fuzzed.
pub fn parse_insert(args: &[&[u8]], defaults: Params) -> Result<InsertArgs, Failure> {
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
    // Only a creation needs the configs' seed: an insert into a filter draws none.
    let creating = key.is_empty();
    let defaults = if creating {
        defaults(call)
    } else {
        config::valkey_params(|| FIXED_SEED)
    };
    let parsed = parse_insert(call.args, defaults)?;
    if let (Some(target), false) = (parsed.validate_scale_to, call.replayed()) {
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
    call.written_as(events, &[insert]);
    Ok(replies)
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
