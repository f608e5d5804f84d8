//! RedisBloom's SCANDUMP / LOADCHUNK stream of a Cuckoo filter, byte for byte (`src/cf.c`:
//! `fillCFHeader`, `CFHeader_Load`, `CF_GetEncodedChunk`, `CF_LoadEncodedChunk`; the AOF
//! rewrite in `src/rebloom.c` replays the same walk).
//!
//! * Cursor 0 yields the header: `CFHeader`, 38 packed little-endian bytes.
//! * Cursor `c ≥ 1` addresses byte `c − 1` of the sub-filters' bytes laid end to end, oldest
//!   first. A sub-filter of at most 16 MiB is returned whole, whichever of its bytes the
//!   cursor points at; a larger one in pieces of at most 16 MiB from that byte on. Chunks never
//!   span two sub-filters, and the next cursor is the cursor plus the chunk's length.
//! * LOADCHUNK gets back each `(next cursor, chunk)` pair: the chunk belongs at byte
//!   `cursor − length − 1`, and must lie inside one sub-filter.
//!
//! One deliberate difference: a chunk of 64 KiB or more that holds only zeros is skipped — the
//! walk goes on to the next chunk with a set byte — where RedisBloom sends it. A filter made
//! from the header is zeroed, so the chunks sent rebuild it exactly, on either module; and a
//! 1 GiB filter holding a few items is a few chunks, not 64 of 16 MiB.

use super::filter::CuckooFilter;
use super::header::SavedHeader;
use super::params::within_limits;
use crate::core::le::LeReader;
use crate::core::sparse::Sparse;
use crate::core::{Error, Memory};
use std::ops::Range;

/// Bytes of a SCANDUMP header (`sizeof(CFHeader)`, packed): numItems, numBuckets, numDeletes
/// and numFilters as u64, then bucketSize, maxIterations and expansion as u16.
pub const HEADER_LEN: usize = 38;

/// The largest data chunk (`MAX_SCANDUMP_SIZE`, 16 MiB).
pub const MAX_CHUNK: usize = 16 * 1024 * 1024;

/// How many bytes of written blocks one SCANDUMP call may read to find that chunks hold only
/// zeros (blocks never written cost nothing): past it the chunk at hand is sent as it is, so
/// a filter whose blocks were all written and emptied again cannot make one call long.
const ZERO_CHECK_BUDGET: usize = 4 * MAX_CHUNK;

/// The SCANDUMP header of `filter` (what `CF.SCANDUMP key 0` returns when it has items, and
/// the first `CF.LOADCHUNK` of an AOF rewrite).
pub fn encode_header(filter: &CuckooFilter) -> [u8; HEADER_LEN] {
    let saved = filter.saved_header();
    let mut out = [0u8; HEADER_LEN];
    let fields: [&[u8]; 7] = [
        &saved.items.to_le_bytes(),
        &saved.num_buckets.to_le_bytes(),
        &saved.deletes.to_le_bytes(),
        &saved.num_filters.to_le_bytes(),
        &filter.bucket_size().to_le_bytes(),
        &filter.max_iterations().to_le_bytes(),
        &filter.expansion().to_le_bytes(),
    ];
    let mut at = 0;
    for field in fields {
        if let Some(target) = out.get_mut(at..at + field.len()) {
            target.copy_from_slice(field);
        }
        at += field.len();
    }
    out
}

/// A filter with zeroed sub-filters (bytes from `zeroed`) from a SCANDUMP header; the data
/// chunks fill them in later. The rules are RedisBloom 8's (`CFHeader_Load`,
/// `CuckooFilter_ValidateIntegrity`):
///
/// * exactly [`HEADER_LEN`] bytes;
/// * 1 to 65535 sub-filters — the u64 field is refused above that, where RedisBloom
///   truncates it to 16 bits (65537 would give one sub-filter);
/// * a bucket size of 1 to `max_bucket_size` (and 255);
/// * at least 1 iteration;
/// * a power-of-two bucket count of at most 2^56 − 1;
/// * an expansion of at most 32768, and not 0 with several sub-filters (RedisBloom 8.4.1+;
///   a non-power-of-two expansion is accepted, as there);
/// * every sub-filter (`num_buckets × expansion^i` buckets) within 2^56 − 1 buckets, and the
///   whole filter within `memory`'s bounds, checked before anything is allocated.
///
/// `BadEncoding` when a rule fails; `OutOfMemory` or `OverLimit` when the filter would be too
/// large or `memory` refuses the bytes; either way `CF.LOADCHUNK` answers
/// `Couldn't create filter!`.
pub fn decode_header(
    data: &[u8],
    max_bucket_size: u16,
    memory: &Memory,
) -> Result<CuckooFilter, Error> {
    let mut r = LeReader(data);
    let items = r.u64()?;
    let num_buckets = r.u64()?;
    let deletes = r.u64()?;
    let num_filters = r.u64()?;
    let bucket_size = r.u16()?;
    let max_iterations = r.u16()?;
    let expansion = r.u16()?;
    // The counts' ranges are the RDB value's, which `SavedHeader::check` applies before
    // anything is allocated.
    let valid = r.is_empty()
        && within_limits(bucket_size, max_iterations, expansion)
        && bucket_size <= max_bucket_size
        && num_buckets.is_power_of_two()
        && !(expansion == 0 && num_filters > 1);
    if !valid {
        return Err(Error::BadEncoding);
    }
    let header = SavedHeader {
        num_filters,
        num_buckets,
        items,
        deletes,
        bucket_size: u64::from(bucket_size),
        max_iterations: u64::from(max_iterations),
        expansion: u64::from(expansion),
    };
    CuckooFilter::with_zeroed_sub_filters(header, memory)
}

/// What `CF.SCANDUMP key cursor` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dump<'a> {
    /// The header (reply `[1, header]`: the next cursor is 1).
    Header([u8; HEADER_LEN]),
    /// A chunk of sub-filter bytes and the cursor that follows it (reply `[next, data]`).
    Chunk {
        /// The cursor of the next call, which LOADCHUNK takes with this chunk.
        next: i64,
        /// A view of the live filter.
        data: &'a [u8],
    },
    /// Nothing more (reply `[0, nil]`).
    End,
}

/// `CF.SCANDUMP` at `cursor` (`CFScanDump_RedisCommand`): [`Dump::End`] for every cursor of a
/// filter with no items, the header at cursor 0 and [`chunk_at`] after it. Negative cursors,
/// which the command refuses before looking at the key, also give `End`.
pub fn scandump(filter: &CuckooFilter, cursor: i64) -> Dump<'_> {
    if filter.items() == 0 {
        return Dump::End;
    }
    if cursor == 0 {
        return Dump::Header(encode_header(filter));
    }
    match chunk_at(filter, cursor) {
        Some((next, data)) => Dump::Chunk { next, data },
        None => Dump::End,
    }
}

/// The data chunk at `cursor` (≥ 1) and the cursor after it (`CF_GetEncodedChunk`), whatever
/// the item count; `None` past the last sub-filter or for a cursor below 1. A sub-filter of at
/// most [`MAX_CHUNK`] bytes comes whole from its start even when the cursor points inside it,
/// and the next cursor is still `cursor + its size`, as in RedisBloom. Chunks of 64 KiB or
/// more holding only zeros are passed over (see the module docs), reading at most
/// `ZERO_CHECK_BUDGET` bytes of written blocks to find them.
pub fn chunk_at(filter: &CuckooFilter, cursor: i64) -> Option<(i64, &[u8])> {
    let mut budget = ZERO_CHECK_BUDGET;
    pieces_from(filter, cursor)
        .find(|(_, array, range)| !array.is_skipped_chunk(range.clone(), &mut budget))
        .and_then(|(next, array, range)| Some((next, array.get(range)?)))
}

/// Every data chunk of a walk from cursor 1, as `(next cursor, chunk)`: what an AOF rewrite
/// emits after the header (one `CF.LOADCHUNK key <next> <chunk>` each), empty filters
/// included. The chunks [`chunk_at`] gives along the walk, found in one pass over the
/// sub-filters rather than one per chunk (a filter may have 65535 of them), with no bound on
/// the reading that finds the zero chunks (the rewrite runs in a child process).
pub fn chunks(filter: &CuckooFilter) -> impl Iterator<Item = (i64, &[u8])> {
    let mut budget = usize::MAX;
    pieces_from(filter, 1)
        .filter(move |(_, array, range)| !array.is_skipped_chunk(range.clone(), &mut budget))
        .filter_map(|(next, array, range)| Some((next, array.get(range)?)))
}

/// The walk's pieces from `cursor` on, as `(next cursor, sub-filter, range of its bytes)`, in
/// one pass over the sub-filters: a sub-filter of at most [`MAX_CHUNK`] bytes whole, a larger
/// one in pieces of at most [`MAX_CHUNK`] from the cursor's byte.
fn pieces_from(
    filter: &CuckooFilter,
    cursor: i64,
) -> impl Iterator<Item = (i64, &Sparse, Range<usize>)> {
    let mut cursor = cursor;
    let mut arrays = filter.sub_filter_arrays();
    let mut current = arrays.next();
    let mut base = 0u64; // where `current` starts among all the sub-filters' bytes
    std::iter::from_fn(move || {
        let offset = u64::try_from(cursor.checked_sub(1)?).ok()?;
        loop {
            let array = current?;
            let size = array.len() as u64;
            if let Some(at) = offset.checked_sub(base).filter(|at| *at < size) {
                let range = if array.len() <= MAX_CHUNK {
                    0..array.len()
                } else {
                    // at < size, a usize.
                    let start = at as usize;
                    start..array.len().min(start.saturating_add(MAX_CHUNK))
                };
                cursor = cursor.checked_add(i64::try_from(range.len()).ok()?)?;
                return Some((cursor, array, range));
            }
            base += size;
            current = arrays.next();
        }
    })
}

/// Writes a chunk that SCANDUMP returned as `(cursor, data)` (`CF_LoadEncodedChunk`) at byte
/// `cursor − data.len() − 1`. The bytes are taken as they are, as RedisBloom does: neither
/// fingerprints nor the item count are checked.
///
/// `BadEncoding` for empty data, a cursor below 1 or one smaller than the data plus one;
/// `NoLinkAtOffset` when the offset lies past every sub-filter (RedisBloom writes such a chunk
/// into the last sub-filter); `ChunkTooBig` when the chunk runs past the end of its sub-filter.
/// `CF.LOADCHUNK` answers `Couldn't load chunk!` for each.
pub fn load_chunk(filter: &mut CuckooFilter, cursor: i64, data: &[u8]) -> Result<(), Error> {
    let end = u64::try_from(cursor.saturating_sub(1)).map_err(|_| Error::BadEncoding)?;
    if data.is_empty() || cursor <= 0 {
        return Err(Error::BadEncoding);
    }
    let mut offset = end
        .checked_sub(data.len() as u64)
        .ok_or(Error::BadEncoding)?;
    for bytes in filter.sub_filter_bytes_mut() {
        let size = bytes.len() as u64;
        if offset < size {
            // offset < size, a usize.
            return bytes.write(offset as usize, data).ok_or(Error::ChunkTooBig);
        }
        offset -= size;
    }
    Err(Error::NoLinkAtOffset)
}

#[cfg(test)]
mod tests;
