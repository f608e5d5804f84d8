//! `BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION | LAYOUT]` and `BF.CARD key`
//!
//! BF.INFO replies with five name/value pairs — a map in RESP3, a flat array of 10 in RESP2 —
//! in RedisBloom's order; `Expansion rate` is null for non-scaling filters. Fast-layout
//! filters add a sixth, `Layout` (`fast`); `BF.INFO key LAYOUT` answers for every filter. With a field it
//! replies with that value alone: a one-element array in RESP2, a one-pair map in RESP3.
//! `ERR not found` / `WRONGTYPE` come before `Invalid information value` (no ERR).
//! BF.CARD replies with the number of items added; 0 for a missing key, `WRONGTYPE` otherwise.
//!
//! A filter that forgets shows the same five fields first (one filter, `Expansion rate` null,
//! its items those added within the window, as BF.CARD counts them), then its own
//! (`window.rs`); its `LAYOUT` is `window`. Both read it at the clock's time. A union merged
//! with `OVERFILL` past a sub-filter's capacity (`merge.rs`) adds `Sub-filters past capacity`,
//! how many hold more items than they were sized for.

use std::ffi::CStr;

use super::rules::layout_name;
use super::values::{lookup_read, Bloom};
use super::{errors, valkey, window};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::bf::chain::{Chain, LayoutKind};

pub static INFO: CommandSpec = CommandSpec {
    name: "bf.info",
    flags: "readonly fast",
    arity: -2,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read fast",
    summary: "Returns information about a Bloom Filter",
    complexity: "O(1)",
    since: "1.0.0",
    tips: Some("nondeterministic_output"),
    args: &[
        KEY_ARG,
        ArgSpec::new(
            "single_value",
            ArgKind::OneOf(&[
                ArgSpec::new("capacity", ArgKind::PureToken).token("CAPACITY"),
                ArgSpec::new("size", ArgKind::PureToken).token("SIZE"),
                ArgSpec::new("filters", ArgKind::PureToken).token("FILTERS"),
                ArgSpec::new("items", ArgKind::PureToken).token("ITEMS"),
                ArgSpec::new("expansion", ArgKind::PureToken).token("EXPANSION"),
                ArgSpec::new("layout", ArgKind::PureToken).token("LAYOUT"),
            ]),
        )
        .optional(),
    ],
    run: info,
};

pub static CARD: CommandSpec = CommandSpec {
    name: "bf.card",
    flags: "readonly fast",
    arity: 2,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read fast",
    summary: "Returns the cardinality of a Bloom filter",
    complexity: "O(1)",
    since: "2.4.4",
    tips: None,
    args: &[KEY_ARG],
    run: card,
};

/// The fields, as (argument keyword, reply name).
/// The last, `LAYOUT`, is ours: the full reply shows it only for fast-layout filters, so a
/// classic filter's reply stays RedisBloom's.
const FIELDS: [(&str, &CStr); 6] = [
    ("CAPACITY", c"Capacity"),
    ("SIZE", c"Size"),
    ("FILTERS", c"Number of filters"),
    ("ITEMS", c"Number of items inserted"),
    ("EXPANSION", c"Expansion rate"),
    ("LAYOUT", c"Layout"),
];

fn info(call: &Call) -> CommandResult {
    call.require_arity(call.args.len() <= 3)?;
    let key = call.open_for_read()?;
    let filter: Bloom<_, _, std::convert::Infallible> = match lookup_read(&key).existing()? {
        Bloom::Chain(chain) => Bloom::Chain(chain),
        Bloom::Window(filter) => Bloom::Window(filter.info(window::read_time(call, filter))),
        Bloom::Valkey(object) => return valkey::info(call, object),
    };
    let value = |word: &str| match &filter {
        Bloom::Chain(chain) => field(chain, word),
        Bloom::Window(info) => window::field(info, word),
        Bloom::Valkey(never) => match *never {},
    };
    let Some(asked) = call.args.get(2) else {
        let shown = match filter {
            Bloom::Chain(chain) if chain.layout() == LayoutKind::Fast => FIELDS.len(),
            _ => FIELDS.len() - 1,
        };
        let mut pairs: Vec<_> = FIELDS
            .iter()
            .take(shown)
            .map(|(word, name)| (*name, Reply::Scalar(value(word))))
            .collect();
        match &filter {
            Bloom::Window(info) => pairs.extend(window::window_fields(info)),
            // Ours: a union merged with OVERFILL says its promise is gone (`merge.rs`).
            Bloom::Chain(chain) if chain.links_past_capacity() > 0 => {
                let past = chain.links_past_capacity() as u64;
                pairs.push((c"Sub-filters past capacity", Reply::count(past)));
            }
            _ => {}
        }
        return Ok(Reply::Map(pairs));
    };
    let (word, name) = FIELDS
        .iter()
        .find(|(word, _)| asked.eq_ignore_ascii_case(word.as_bytes()))
        .ok_or(Failure::Message(errors::INVALID_INFO_FIELD))?;
    Ok(Reply::Field(name, value(word)))
}

fn field(chain: &Chain, word: &str) -> Scalar {
    let int = |n: u64| Scalar::Integer(i64::try_from(n).unwrap_or(i64::MAX));
    match word {
        "CAPACITY" => int(chain.capacity()),
        "SIZE" => int(chain.memory_usage()),
        "FILTERS" => int(chain.links().len() as u64),
        "ITEMS" => int(chain.items()),
        "LAYOUT" => Scalar::Text(layout_name(chain.layout())),
        _ if chain.is_nonscaling() => Scalar::Null,
        _ => int(u64::from(chain.growth())),
    }
}

fn card(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    match lookup_read(&key) {
        Lookup::Found(Bloom::Chain(chain)) => Ok(Reply::count(chain.items())),
        Lookup::Found(Bloom::Window(filter)) => {
            Ok(Reply::count(filter.card(window::read_time(call, filter))))
        }
        Lookup::Found(Bloom::Valkey(object)) => Ok(valkey::card(object)),
        Lookup::Missing => Ok(Reply::integer(0)),
        Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
    }
}
