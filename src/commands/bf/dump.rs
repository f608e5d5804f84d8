//! `BF.SCANDUMP key iterator` and `BF.LOADCHUNK key iterator data`
//!
//! Incremental save and restore in RedisBloom's format (see `core::encoding`). SCANDUMP replies
//! `[next_iterator, data]`: iterator 0 gives the header and 1; the end (or a negative or
//! out-of-range iterator) gives `[0, ""]`. It checks the key (`ERR not found`, `WRONGTYPE`)
//! before the iterator (`Second argument must be numeric`, no ERR). LOADCHUNK replays each
//! pair: on an empty key with iterator 1 the data is the header; otherwise the filter must
//! exist. Errors: `ERR Second argument must be numeric`, `ERR received bad data`,
//! `ERR invalid offset - no link found`, `ERR invalid chunk - Too big for current filter`.
//! LOADCHUNK replies `+OK`, is replicated verbatim and raises keyspace event `bf.loadchunk`.
//! It is also what AOF rewrites emit.
//!
//! A filter that forgets dumps in its own format (`core::bf::window::encoding`): a header that
//! RedisBloom and older redis-bf refuse, then its bits; LOADCHUNK tells the two headers apart.

use super::errors;
use super::values::{is_bloom, lookup_read, lookup_write, Bloom};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::dump::scandump_reply;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::spec::CommandSpec;
use crate::core::bf::encoding;
use crate::core::bf::window::encoding as window_encoding;

pub static SCANDUMP: CommandSpec = CommandSpec::scandump("bf.scandump", scandump);

pub static LOADCHUNK: CommandSpec = CommandSpec::loadchunk("bf.loadchunk", loadchunk);

fn scandump(call: &Call) -> CommandResult {
    let key = call.open_for_read()?;
    let filter = lookup_read(&key).existing()?;
    let iter = parse_integer(call.arg(2))
        .ok_or(Failure::Message(errors::SCANDUMP_ITERATOR_NOT_NUMERIC))?;
    let header;
    let chunk = match filter {
        Bloom::Chain(chain) if iter == 0 => {
            header = encoding::encode_header(chain);
            Some((1, header.as_slice()))
        }
        Bloom::Window(filter) if iter == 0 => {
            header = window_encoding::encode_header(filter);
            Some((1, header.as_slice()))
        }
        Bloom::Chain(chain) => encoding::chunk_at(chain, iter),
        Bloom::Window(filter) => window_encoding::chunk_at(filter, iter),
        Bloom::Valkey(_) => return Err(Failure::Message(errors::NO_CHUNKS)),
    };
    let (next, data) = chunk.unwrap_or((0, &[]));
    scandump_reply(call, next, Some(data))
}

fn loadchunk(call: &Call) -> CommandResult {
    let iter = parse_integer(call.arg(2))
        .ok_or(Failure::Message(errors::LOADCHUNK_ITERATOR_NOT_NUMERIC))?;
    let data = call.arg(3);
    let mut key = call.open_for_write()?;
    match key.peek(is_bloom) {
        Lookup::Missing if iter == 1 && window_encoding::is_header(data) => {
            let filter =
                window_encoding::decode_header(data, &call.memory()).map_err(errors::fail)?;
            key.store(filter)?;
        }
        Lookup::Missing if iter == 1 => {
            let chain = encoding::decode_header(data, &call.memory()).map_err(errors::fail)?;
            key.store(chain)?;
        }
        _ => match lookup_write(&mut key).existing()? {
            Bloom::Chain(mut chain) => encoding::load_chunk(&mut chain, iter, data),
            Bloom::Window(mut filter) => window_encoding::load_chunk(&mut filter, iter, data),
            Bloom::Valkey(_) => return Err(Failure::Message(errors::NO_CHUNKS)),
        }
        .map_err(errors::fail)?,
    }
    call.finish_write(c"bf.loadchunk");
    Ok(Reply::OK)
}
