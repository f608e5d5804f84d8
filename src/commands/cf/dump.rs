//! `CF.SCANDUMP key iterator` and `CF.LOADCHUNK key iterator data`
//!
//! Incremental save and restore in RedisBloom's format (see `core::cf::encoding`).
//! SCANDUMP replies `[next_iterator, data]`: iterator 0 gives the 38-byte header and 1; a later
//! iterator the sub-filter bytes it points into (a sub-filter of at most 16 MiB whole, a bigger
//! one 16 MiB at a time) and the iterator after them; the end — and every iterator of a filter
//! with no items — `[0, nil]` (RESP3 `_`). Errors: `Invalid position` (not a non-negative
//! integer, no ERR) before `ERR not found` / `WRONGTYPE`.
//!
//! LOADCHUNK replays each pair, iterator 1 being the header. Errors, without ERR unless shown:
//! `Invalid position` (not an integer, or 0); for the header `ERR item exists` / `WRONGTYPE`
//! on a key that holds a value, `Invalid header` (not 38 bytes), `Couldn't create filter!`
//! (fields RedisBloom 8 refuses, or more memory than allowed); for data `ERR not found` /
//! `WRONGTYPE`, then `Couldn't load chunk!` (empty, or not inside one sub-filter; RedisBloom
//! writes data past the last sub-filter into it). The bytes are taken as they come, as in
//! RedisBloom. `+OK`; header and data are replicated verbatim (RedisBloom before 8.10 left the
//! data out, so replicas lost it); keyspace event `cf.loadchunk`. AOF rewrites emit these.

use super::config;
use super::errors;
use super::values::{lookup_read, lookup_write};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::dump::scandump_reply;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::CommandSpec;
use crate::core::cf::encoding::{self, Dump, HEADER_LEN};
use crate::core::cf::CuckooFilter;
use crate::core::Error;

pub static SCANDUMP: CommandSpec = CommandSpec::scandump("cf.scandump", scandump);

pub static LOADCHUNK: CommandSpec = CommandSpec::loadchunk("cf.loadchunk", loadchunk);

/// The iterator of both commands (argument 2), if it is an integer `valid` accepts.
fn iterator(call: &Call, valid: fn(&i64) -> bool) -> Result<i64, Failure> {
    parse_integer(call.arg(2))
        .filter(valid)
        .ok_or(Failure::Message(errors::INVALID_POSITION))
}

fn scandump(call: &Call) -> CommandResult {
    let cursor = iterator(call, |c| *c >= 0)?;
    let key = call.open_for_read()?;
    let filter = lookup_read(&key).existing()?;
    match encoding::scandump(filter, cursor) {
        Dump::Header(header) => scandump_reply(call, 1, Some(&header)),
        Dump::Chunk { next, data } => scandump_reply(call, next, Some(data)),
        Dump::End => scandump_reply(call, 0, None),
    }
}

fn loadchunk(call: &Call) -> CommandResult {
    let cursor = iterator(call, |c| *c != 0)?;
    let data = call.arg(3);
    let mut key = call.open_for_write()?;
    if cursor == 1 {
        match key.peek(|value| value.is::<CuckooFilter>()) {
            Lookup::Found(()) => return Err(Failure::Message(errors::ITEM_EXISTS)),
            Lookup::WrongType => return Err(Failure::Message(errors::WRONG_TYPE)),
            Lookup::Missing if data.len() != HEADER_LEN => {
                return Err(Failure::Message(errors::INVALID_HEADER))
            }
            Lookup::Missing => {
                let max_bucket_size = config::defaults().max_bucket_size();
                let filter = encoding::decode_header(data, max_bucket_size, &call.memory())
                    .map_err(|error| match error {
                        Error::OverLimit => errors::fail(error),
                        _ => Failure::Message(errors::CANNOT_CREATE_FROM_HEADER),
                    })?;
                key.store(filter)?;
            }
        }
    } else {
        let mut filter = lookup_write(&mut key).existing()?;
        encoding::load_chunk(&mut filter, cursor, data)
            .map_err(|_| Failure::Message(errors::CANNOT_LOAD_CHUNK))?;
    }
    call.finish_write(c"cf.loadchunk");
    Ok(Reply::OK)
}
