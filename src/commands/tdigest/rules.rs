//! What the t-digest commands' parsers share (each command's parser is in its file), read as
//! RedisBloom reads them
//! (`src/rm_tdigest.c`): numbers with the server's own parsers (`RedisModule_StringToDouble`,
//! `RedisModule_StringToLongLong`, reproduced in `commands::double` and `commands::args`),
//! keywords found anywhere among the options, case-insensitively (rmutil's `RMUtil_ArgIndex`),
//! and each list checked element by element, in order, the first fault winning. Pure functions
//! of the arguments (fuzzed); every argument is checked before anything is written.

use super::errors;
use crate::commands::args::parse_integer;
use crate::commands::errors::Failure;
use crate::commands::spec::{ArgKind, ArgSpec};
use crate::core::short_list::ShortList;

/// The compression of a digest nobody gave one.
pub const DEFAULT_COMPRESSION: i64 = 100;

/// `[COMPRESSION compression]` in CREATE's and MERGE's COMMAND DOCS, named as RedisBloom 8
/// names it (`src/commands.json`; its flow test `test_docs_help.py` checks the block's name).
pub const COMPRESSION_BLOCK: ArgSpec = ArgSpec::new(
    "compression_block",
    ArgKind::Block(&[
        ArgSpec::new("compression_token", ArgKind::PureToken).token("COMPRESSION"),
        ArgSpec::new("compression", ArgKind::Integer),
    ]),
)
.optional();

/// Where `keyword` first is among `args`, compared whole and case-insensitively.
pub fn find(args: &[&[u8]], keyword: &str) -> Option<usize> {
    args.iter()
        .position(|arg| arg.eq_ignore_ascii_case(keyword.as_bytes()))
}

/// A COMPRESSION value: a strict integer, positive. (Whether a digest of it can be had is the
/// core's to say, against the memory limit.)
pub fn compression(arg: &[u8]) -> Result<i64, Failure> {
    let compression = parse_integer(arg).ok_or(Failure::Message(errors::BAD_COMPRESSION))?;
    if compression <= 0 {
        return Err(Failure::Message(errors::COMPRESSION_NOT_POSITIVE));
    }
    Ok(compression)
}

/// Each argument through `parse`, in order, into a list sized before it is filled.
pub fn each<T: Copy + Default>(
    args: &[&[u8]],
    parse: impl Fn(&[u8]) -> Result<T, Failure>,
) -> Result<ShortList<T>, Failure> {
    let mut out = ShortList::with_room(args.len())
        .map_err(|_| Failure::Message(errors::NO_MEMORY_TO_READ))?;
    for arg in args {
        out.push(parse(arg)?);
    }
    Ok(out)
}
