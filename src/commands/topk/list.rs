//! `TOPK.LIST key [WITHCOUNT]`
//!
//! Ours, on a Top-K that forgets: its items by their window counts at the reader's time
//! (`window.rs`).
//!
//! The top k items, largest count first, ties in the heap's order, without those of count 0:
//! a flat array of items, or of item and count pairs with WITHCOUNT (the same in RESP3);
//! each item a bulk string cut at its first NUL, as RedisBloom sends it. Errors: arity (2 or
//! 3 arguments); `WITHCOUNT keyword expected` (checked before the key); `TopK: key does not
//! exist`, `WRONGTYPE`.
//!
//! The keyword is RedisBloom's `strncasecmp(arg, "WITHCOUNT", len(arg)) == 0`: any prefix of
//! WITHCOUNT in any case, the empty one included, turns counts on, and so does WITHCOUNT
//! followed by a NUL and anything after it.

use super::errors;
use super::values::{existing_read, Topk};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::forgetting;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::topk::c_string;

const KEYWORD: &[u8] = b"WITHCOUNT";

pub static LIST: CommandSpec = CommandSpec {
    name: "topk.list",
    flags: "readonly",
    arity: -2,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Return the full list of items in Top-K sketch.",
    complexity: "O(k*log(k)) where k is the value of top-k",
    since: "2.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("withcount", ArgKind::PureToken)
            .token("WITHCOUNT")
            .optional(),
    ],
    run: list,
};

fn list(call: &Call) -> CommandResult {
    call.require_arity(call.args.len() <= 3)?;
    let with_count = parse(call.args)?;
    let key = call.open_for_read()?;
    let listed = match existing_read(&key)? {
        Topk::Classic(topk) => topk.list(),
        Topk::Window(topk) => topk.list(forgetting::read_time(call, topk)),
    };
    let listed = listed.map_err(errors::fail)?;
    call.out
        .array(listed.len() * if with_count { 2 } else { 1 });
    for entry in listed {
        call.out.bulk(c_string(entry.item));
        if with_count {
            call.out.scalar(Scalar::Integer(i64::from(entry.count)));
        }
    }
    Ok(Reply::Sent)
}

/// Whether TOPK.LIST (`args`, the command name first, arity checked) asks for counts: a pure
/// function of them, so it is fuzzed without a server.
pub fn parse(args: &[&[u8]]) -> Result<bool, Failure> {
    let Some(word) = args.get(2) else {
        return Ok(false);
    };
    // C compares up to the word's first NUL, and a NUL right after all nine letters ends
    // both strings at once.
    let head = c_string(word);
    let is_prefix = KEYWORD
        .get(..head.len())
        .is_some_and(|prefix| prefix.eq_ignore_ascii_case(head));
    if is_prefix && (head.len() == word.len() || head.len() == KEYWORD.len()) {
        Ok(true)
    } else {
        Err(Failure::Message(errors::WITHCOUNT_EXPECTED))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keyword_is_any_prefix_as_strncasecmp_reads_it() {
        let with = |word: &[u8]| parse(&[b"topk.list", b"k", word]);
        for yes in [&b""[..], b"w", b"WiThCoUnT", b"withc", b"WITHCOUNT\0junk"] {
            assert_eq!(with(yes), Ok(true), "{yes:?}");
        }
        for no in [&b"WITHCOUNTS"[..], b"x", b"w\0", b"with count", b"\0"] {
            assert!(with(no).is_err(), "{no:?}");
        }
        assert_eq!(parse(&[b"topk.list", b"k"]), Ok(false));
    }
}
