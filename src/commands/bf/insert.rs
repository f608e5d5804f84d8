//! `BF.INSERT key [CAPACITY cap] [ERROR err] [EXPANSION exp] [NOCREATE] [NONSCALING] ITEMS item [item ...]`
//!
//! BF.MADD with creation parameters. Reply: always an array, as BF.MADD's. Options are
//! recognised by their first letters, as RedisBloom does (`E…` is EXPANSION unless it starts
//! `ER`; `N…` is NOCREATE when its third letter is `C`); the last of a repeated option wins;
//! they are ignored when the filter exists. Errors: arity (no ITEMS, or no items after it, or
//! an option without its value); `Bad error rate`, `Bad capacity`, `Bad expansion`,
//! `Unknown argument received` (all without ERR); `ERR not found` with NOCREATE; `WRONGTYPE`.
//! NONSCALING with a non-zero EXPANSION is accepted (NONSCALING wins), unlike BF.RESERVE.
//! `LAYOUT CLASSIC|FAST` (ours) picks the layout of a new filter.
//! Replicated verbatim; keyspace event `bf.add`.
//!
//! Ours: `WINDOW` or `TIMESPAN ms` (whole words, any case) make a new filter one that forgets
//! (`window.rs`); with EXPANSION, NONSCALING or LAYOUT, or together, they are errors (see
//! BF.RESERVE), and on an existing filter of another kind `ERR the key holds a filter of
//! another kind …` — otherwise, like CAPACITY and ERROR, they are ignored for an existing
//! filter. Writes to a window filter are replicated as `BF.INSERT key NOCREATE [AT ms] ITEMS
//! …`; `AT ms`, the time of the write, is accepted only from the primary or the AOF.
//!
//! valkey-bloom's: on a key that holds a valkey-bloom filter, and with one of valkey-bloom's own
//! options (`SEED`, `TIGHTENING`, `VALIDATESCALETO`) where no RedisBloom filter is, BF.INSERT is
//! valkey-bloom's (`valkey.rs`).

use super::add::add_items;
use super::rules::{
    capped_error_rate, error_rate, log_capped, parse_layout, time_ms, timespan, CAPACITY, EXPANSION,
};
use super::rules::{EXPANSION_ARG, LAYOUT_ARG, NONSCALING_ARG, WINDOW_ARG};
use super::values::{existing_or_created, is_bloom, lookup_write, Bloom};
use super::{config, errors, valkey, window};
use crate::commands::args::integer_in;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::bf::chain::Params;
use crate::core::bf::valkey::ValkeyBloom;
use crate::core::window::Window;

pub static INSERT: CommandSpec = CommandSpec {
    name: "bf.insert",
    flags: "write deny-oom",
    // valkey-bloom's filters take `BF.INSERT key`; RedisBloom's need ITEMS and an item.
    arity: -2,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary:
        "Adds one or more items to a Bloom Filter. A filter will be created if it does not exist",
    complexity: "O(k * n), where k is the number of hash functions and n is the number of items",
    since: "1.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("capacity", ArgKind::Integer)
            .token("CAPACITY")
            .optional(),
        ArgSpec::new("error", ArgKind::Double)
            .token("ERROR")
            .optional(),
        EXPANSION_ARG,
        ArgSpec::new("nocreate", ArgKind::PureToken)
            .token("NOCREATE")
            .optional(),
        NONSCALING_ARG,
        LAYOUT_ARG,
        WINDOW_ARG,
        ArgSpec::new("items", ArgKind::PureToken).token("ITEMS"),
        ArgSpec::new("item", ArgKind::String).multiple(),
    ],
    run: insert,
};

/// What BF.INSERT was asked to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InsertArgs {
    /// The parameters of the filter it creates if the key is empty, its error rate capped at
    /// `ERROR_RATE_CAP`.
    pub params: Params,
    pub nocreate: bool,
    /// Index of the first item.
    pub first_item: usize,
    /// Whether an `ERROR` asked for was above the cap (RedisBloom logs it).
    pub capped: bool,
    /// `WINDOW` or `TIMESPAN`: a new filter forgets, and an existing one must be of that kind.
    pub window: Option<Window>,
    /// `AT`: the time of a replayed write to a window filter.
    pub at: Option<u64>,
}

fn insert(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    // valkey-bloom's filters, and its options where no RedisBloom filter is.
    let valkey_bloom = match key.peek(is_bloom) {
        Lookup::Found(()) => matches!(key.peek(|v| v.is::<ValkeyBloom>()), Lookup::Found(())),
        Lookup::Missing | Lookup::WrongType => valkey::makes_valkey_bloom(call.args, 2),
    };
    if valkey_bloom {
        return valkey::insert(call, &mut key);
    }
    // RedisBloom's: a key, ITEMS and an item at least (valkey-bloom's takes a key alone).
    call.require_arity(call.args.len() >= 4)?;
    let parsed = parse(call.args, config::params())?;
    if parsed.at.is_some() && !call.replayed() {
        return Err(Failure::Message(errors::AT_NOT_REPLAYED));
    }
    if parsed.capped {
        log_capped(call);
    }
    let items = call.args.get(parsed.first_item..).unwrap_or(&[]);
    if let (Some(asked), false) = (parsed.window, parsed.nocreate) {
        if key.is_empty() {
            let (mut filter, header) = window::created(call, &mut key, parsed.params, asked)?;
            return Ok(window::add_items(
                call,
                &mut filter,
                parsed.first_item,
                parsed.at,
                Some(&header),
            ));
        }
    }
    let filter = if parsed.nocreate {
        lookup_write(&mut key).existing()?
    } else {
        existing_or_created(call, &mut key, || parsed.params)?
    };
    match filter {
        Bloom::Chain(_) if parsed.window.is_some() => Err(Failure::Message(errors::OTHER_KIND)),
        Bloom::Chain(mut chain) => {
            let reply = add_items(call, &mut chain, items);
            call.finish_write(c"bf.add");
            Ok(reply)
        }
        Bloom::Window(mut filter) => {
            let existing = filter.shape().window;
            if parsed
                .window
                .is_some_and(|asked| !window::same_kind(asked, existing))
            {
                return Err(Failure::Message(errors::OTHER_KIND));
            }
            Ok(window::add_items(
                call,
                &mut filter,
                parsed.first_item,
                parsed.at,
                None,
            ))
        }
        // Routed to valkey.rs above.
        Bloom::Valkey(mut object) => valkey::add_items(call, &mut object, parsed.first_item),
    }
}

/// BF.INSERT's arguments (`args`, the command name first, arity checked) with the `bf-*`
/// configuration's `defaults`: a pure function of them, so it is fuzzed without a server.
pub fn parse(args: &[&[u8]], defaults: Params) -> Result<InsertArgs, Failure> {
    let mut capacity = defaults.capacity;
    let mut chosen_rate = defaults.error_rate;
    let mut capped = false;
    let mut expansion = defaults.expansion;
    let mut nonscaling = false;
    let mut nocreate = false;
    let mut layout = defaults.layout;
    // Options a filter that forgets takes none of (EXPANSION, NONSCALING, LAYOUT).
    let mut scaling_options = false;
    let (mut count_window, mut time_window) = (false, None);
    let mut at = None;
    let mut i = 2;
    let first_item = loop {
        let Some(option) = args.get(i) else {
            return Err(Failure::WrongArity); // no ITEMS
        };
        // Options are told apart by their first three letters, in any case; no lowered copy.
        let letter = |n: usize| option.get(n).map(u8::to_ascii_lowercase);
        let value = || args.get(i + 1).copied().ok_or(Failure::WrongArity);
        let is = |word: &str| option.eq_ignore_ascii_case(word.as_bytes());
        match (letter(0), letter(1), letter(2)) {
            // Ours, whole words: no RedisBloom option starts with these letters.
            _ if is("WINDOW") => {
                count_window = true;
                i += 1;
            }
            _ if is("TIMESPAN") => {
                time_window = Some(timespan(value()?)?);
                i += 2;
            }
            _ if is("AT") => {
                at = Some(time_ms(value()?)?);
                i += 2;
            }
            (Some(b'i'), _, _) => break i + 1,
            (Some(b'e'), Some(b'r'), _) => {
                let rate = error_rate(value()?)
                    .map_err(|_| Failure::Message(errors::INSERT_BAD_ERROR_RATE))?;
                let (rate, was_capped) = capped_error_rate(rate);
                chosen_rate = rate;
                capped |= was_capped;
                i += 2;
            }
            (Some(b'e'), _, _) => {
                let factor = integer_in(value()?, &EXPANSION)
                    .map_err(|_| Failure::Message(errors::INSERT_BAD_EXPANSION))?;
                expansion = factor as u32;
                scaling_options = true;
                i += 2;
            }
            (Some(b'c'), _, _) => {
                let cap = integer_in(value()?, &CAPACITY)
                    .map_err(|_| Failure::Message(errors::INSERT_BAD_CAPACITY))?;
                capacity = cap as u64;
                i += 2;
            }
            (Some(b'l'), _, _) => {
                layout = parse_layout(value()?)?;
                scaling_options = true;
                i += 2;
            }
            (Some(b'n'), _, Some(b'c')) => {
                nocreate = true;
                i += 1;
            }
            (Some(b'n'), _, _) => {
                nonscaling = true;
                scaling_options = true;
                i += 1;
            }
            _ => return Err(Failure::Message(errors::UNKNOWN_ARGUMENT)),
        }
    };
    if first_item >= args.len() {
        return Err(Failure::WrongArity);
    }
    let window = match (count_window, time_window) {
        (true, Some(_)) => return Err(Failure::Message(errors::WINDOW_AND_TIMESPAN)),
        // A count window finds the last `capacity` additions.
        (true, None) => Some(Window::Count(capacity)),
        (false, ms) => ms.map(Window::Time),
    };
    if window.is_some() && scaling_options {
        return Err(Failure::Message(errors::WINDOW_TAKES_NO_SCALING));
    }
    let params = Params {
        capacity,
        error_rate: chosen_rate,
        expansion,
        nonscaling: nonscaling || expansion == 0,
        layout,
    };
    Ok(InsertArgs {
        params,
        nocreate,
        first_item,
        capped,
        window,
        at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::bf::rules::parse_tests::DEFAULTS;
    use crate::commands::testing::words;
    use crate::core::bf::chain::LayoutKind;

    fn parsed(line: &str) -> Result<InsertArgs, Failure> {
        parse(&words(line), DEFAULTS)
    }

    #[test]
    fn parses_without_a_server() {
        let i = parsed("BF.INSERT k CAP 5 ERROR 0.3 ERROR 0.1 exp 0 NOCREATE ITEMS a b").unwrap();
        assert_eq!((i.first_item, i.nocreate, i.capped), (12, true, true));
        assert_eq!(
            i.params,
            Params {
                capacity: 5,
                error_rate: 0.1,
                expansion: 0,
                nonscaling: true,
                layout: LayoutKind::Classic,
            }
        );
        assert_eq!(parsed("BF.INSERT k ITEMS").err(), Some(Failure::WrongArity));
        assert_eq!(
            parsed("BF.INSERT k CAPACITY").err(),
            Some(Failure::WrongArity)
        );
        assert_eq!(
            parsed("BF.INSERT k ERROR 2 ITEMS a").err(),
            Some(Failure::Message(errors::INSERT_BAD_ERROR_RATE))
        );
        assert_eq!(
            parsed("BF.INSERT k FOO ITEMS a").err(),
            Some(Failure::Message(errors::UNKNOWN_ARGUMENT))
        );
    }

    #[test]
    fn windows_and_replayed_times() {
        let i = parsed("BF.INSERT k CAPACITY 1000 ERROR 0.01 window ITEMS a").unwrap();
        assert_eq!(
            (i.window, i.at, i.first_item),
            (Some(Window::Count(1000)), None, 8)
        );
        let i = parsed("BF.INSERT k NOCREATE AT 1700000000000 ITEMS a b").unwrap();
        assert_eq!(
            (i.window, i.at, i.nocreate),
            (None, Some(1_700_000_000_000), true)
        );
        let i = parsed("BF.INSERT k TIMESPAN 5 TIMESPAN 7 ITEMS a").unwrap();
        assert_eq!(i.window, Some(Window::Time(7)));
        for (line, error) in [
            (
                "BF.INSERT k WINDOW TIMESPAN 5 ITEMS a",
                errors::WINDOW_AND_TIMESPAN,
            ),
            (
                "BF.INSERT k WINDOW EXPANSION 2 ITEMS a",
                errors::WINDOW_TAKES_NO_SCALING,
            ),
            (
                "BF.INSERT k NONSCALING TIMESPAN 5 ITEMS a",
                errors::WINDOW_TAKES_NO_SCALING,
            ),
            (
                "BF.INSERT k LAYOUT FAST WINDOW ITEMS a",
                errors::WINDOW_TAKES_NO_SCALING,
            ),
            ("BF.INSERT k TIMESPAN 0 ITEMS a", errors::TIMESPAN_RANGE),
            ("BF.INSERT k TIMESPAN -5 ITEMS a", errors::TIMESPAN_RANGE),
            ("BF.INSERT k TIMESPAN abc ITEMS a", errors::TIMESPAN_RANGE),
            ("BF.INSERT k AT -1 ITEMS a", errors::BAD_TIME),
            ("BF.INSERT k WINDOWS ITEMS a", errors::UNKNOWN_ARGUMENT),
        ] {
            assert_eq!(parsed(line).err(), Some(Failure::Message(error)), "{line}");
        }
        assert_eq!(
            parsed("BF.INSERT k TIMESPAN").err(),
            Some(Failure::WrongArity)
        );
    }
}
