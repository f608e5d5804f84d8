//! `TDIGEST.CREATE key [COMPRESSION compression]` and `TDIGEST.RESET key`
//!
//! CREATE makes an empty digest (compression 100 unless given) of `6 · compression + 10`
//! nodes; the key must be empty. Errors, in RedisBloom's order: arity (two or four
//! arguments); `ERR T-Digest: key already exists` / `WRONGTYPE`; `ERR T-Digest: wrong keyword`
//! (COMPRESSION is looked for in both option slots, the value is always the last);
//! `… error parsing compression parameter`; `… compression parameter needs to be a positive
//! integer`; `ERR T-Digest: allocation failed` — also, unlike RedisBloom, for a compression
//! of 357 913 940 or more (whose capacity RedisBloom's format cannot hold) and beyond the
//! memory limit (`bf-memory-usage-limit`), checked before allocating.
//!
//! RESET empties the digest, keeping its compression. `ERR T-Digest: key does not exist` /
//! `WRONGTYPE`.
//!
//! Both reply `+OK`, are replicated verbatim and raise `tdigest.create` / `tdigest.reset`.

use super::errors;
use super::rules::{compression, find, COMPRESSION_BLOCK, DEFAULT_COMPRESSION};
use super::stored::StoredDigest;
use super::values::existing_write;
use crate::commands::call::Call;
use crate::commands::errors::CommandResult;
use crate::commands::errors::Failure;
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::{CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::tdigest::TDigest;

pub static CREATE: CommandSpec = CommandSpec {
    name: "tdigest.create",
    flags: "write deny-oom",
    arity: -2,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write fast",
    summary: "Allocates memory and initializes a new t-digest sketch",
    complexity: "O(1)",
    since: "2.4.0",
    tips: None,
    args: &[KEY_ARG, COMPRESSION_BLOCK],
    run: create,
};

pub static RESET: CommandSpec = CommandSpec {
    name: "tdigest.reset",
    flags: "write deny-oom",
    arity: 2,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write fast",
    summary: "Resets a t-digest sketch: empty the sketch and re-initializes it.",
    complexity: "O(1)",
    since: "2.4.0",
    tips: None,
    args: &[KEY_ARG],
    run: reset,
};

fn create(call: &Call) -> CommandResult {
    call.require_arity(matches!(call.args.len(), 2 | 4))?;
    let mut key = call.open_for_write()?;
    match key.lookup::<StoredDigest>() {
        Lookup::Missing => {}
        Lookup::Found(_) => return Err(Failure::Message(errors::KEY_EXISTS)),
        Lookup::WrongType => return Err(Failure::Message(errors::WRONG_TYPE)),
    }
    let compression = parse(call.args)?;
    let digest = TDigest::new(compression, &call.memory()).map_err(errors::fail)?;
    let stored = StoredDigest::new(digest, call.snapshots());
    call.create(&mut key, stored, c"tdigest.create")
}

fn reset(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    let mut stored = existing_write(&mut key)?;
    // A reset digest is the same whatever compression was owed: nothing to replicate first.
    stored.digest_mut().reset();
    stored.paid();
    stored.note_buffer(call.snapshots());
    call.finish_write(c"tdigest.reset");
    Ok(Reply::OK)
}

/// `TDIGEST.CREATE key [COMPRESSION compression]`: the compression. Two or four arguments;
/// with four, the keyword may be the third or the fourth (RedisBloom searches both) and the
/// value is always the fourth.
pub fn parse(args: &[&[u8]]) -> Result<i64, Failure> {
    match args {
        [_, _] => Ok(DEFAULT_COMPRESSION),
        [_, _, options @ ..] if options.len() == 2 => {
            find(options, "COMPRESSION").ok_or(Failure::Message(errors::WRONG_KEYWORD))?;
            compression(options.get(1).copied().unwrap_or_default())
        }
        _ => Err(Failure::WrongArity),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::errors::Failure;
    use crate::commands::testing::{assert_refused, words};

    #[test]
    fn create_finds_its_keyword_in_either_place() {
        assert_eq!(parse(&words("c k")), Ok(100));
        assert_eq!(parse(&words("c k COMPRESSION 7")), Ok(7));
        assert_eq!(parse(&words("c k compression 7")), Ok(7));
        // RedisBloom searches both option slots for the keyword, and takes the fourth as the
        // value: `CREATE k 100 COMPRESSION` parses COMPRESSION as the value.
        assert_refused(
            parse(&words("c k 100 COMPRESSION")),
            errors::BAD_COMPRESSION,
        );
        assert_refused(parse(&words("c k COMPRESSIONS 7")), errors::WRONG_KEYWORD);
        assert_refused(
            parse(&words("c k COMPRESSION 0")),
            errors::COMPRESSION_NOT_POSITIVE,
        );
        for bad in ["1.5", "+5", "05", "-0", "1e2", "9223372036854775808"] {
            let text = format!("c k COMPRESSION {bad}");
            assert_refused(parse(&words(&text)), errors::BAD_COMPRESSION);
        }
        assert_eq!(parse(&words("c k COMPRESSION")), Err(Failure::WrongArity));
    }
}
