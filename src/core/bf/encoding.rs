//! RedisBloom's serialized forms of a chain, byte for byte (`src/sb.c`, `src/rebloom.c`).
//!
//! * SCANDUMP: iterator 0 yields a packed little-endian header (20 bytes, then 53 per link;
//!   fast-layout filters add an 8-byte trailer, which RedisBloom's exact length check refuses);
//!   later iterators are `1 + byte offset` into the concatenated bit arrays, oldest link
//!   first, in chunks that never cross a link. LOADCHUNK replays each `(iter, data)` pair.
//!
//! One deliberate difference: a chunk of 64 KiB or more that holds only zeros is skipped — the
//! walk goes on to the next chunk with a set bit — where RedisBloom sends it. A filter made from
//! the header is zeroed, so the chunks sent rebuild it exactly, on either module; and a 1 GiB
//! filter holding a few items is a few chunks, not 64 of 16 MiB.
//!
//! The RDB format is in `rdb.rs`.

use super::blocked::BLOCK_BYTES;
use super::chain::{self, Chain, LayoutKind};
use super::filter::Link;
use super::shape::StoredShape;
use crate::core::le::LeReader;
use crate::core::sparse::Sparse;
use crate::core::{try_vec, Error, Memory};

/// The largest SCANDUMP data chunk (`MAX_SCANDUMP_SIZE`); also the size of a fast-layout
/// segment, so its chunks are its segments.
pub const MAX_CHUNK: usize = 16 * 1024 * 1024;
const _: () = assert!(MAX_CHUNK as u64 == super::blocked::SEGMENT_BYTES);

/// How many bytes of written blocks one SCANDUMP call may read to find that chunks hold only
/// zeros (blocks never written cost nothing): past it the chunk at hand is sent as it is.
const ZERO_CHECK_BUDGET: usize = 4 * MAX_CHUNK;

const HEADER_LEN: usize = 8 + 4 + 4 + 4;
const LINK_LEN: usize = 8 + 8 + 8 + 8 + 8 + 4 + 8 + 1;
/// Ends the header of a fast-layout filter.
const FAST_TRAILER: &[u8; 8] = b"bf:fast1";

/// The SCANDUMP header of `chain` (what `BF.SCANDUMP key 0` returns).
pub fn encode_header(chain: &Chain) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + LINK_LEN * chain.links().len());
    out.extend_from_slice(&chain.items().to_le_bytes());
    out.extend_from_slice(&(chain.links().len() as u32).to_le_bytes());
    out.extend_from_slice(&chain.options().to_le_bytes());
    out.extend_from_slice(&chain.growth().to_le_bytes());
    for link in chain.links() {
        let shape = link.shape();
        let (bpe, n2) = shape.stored_bpe_and_n2();
        out.extend_from_slice(&shape.bytes().to_le_bytes());
        out.extend_from_slice(&(shape.bytes() * 8).to_le_bytes());
        out.extend_from_slice(&link.items().to_le_bytes());
        out.extend_from_slice(&shape.error().to_le_bytes());
        out.extend_from_slice(&bpe.to_le_bytes());
        out.extend_from_slice(&shape.hashes().to_le_bytes());
        out.extend_from_slice(&shape.entries().to_le_bytes());
        out.push(n2);
    }
    if matches!(chain.layout(), LayoutKind::Fast) {
        out.extend_from_slice(FAST_TRAILER);
    }
    out
}

/// A chain with zeroed bits (from `memory`) from a SCANDUMP header; chunks fill the bits in
/// later. Every link is read and checked, and the whole filter's size against `memory`,
/// before any bits are allocated.
pub fn decode_header(data: &[u8], memory: &Memory) -> Result<Chain, Error> {
    let mut r = LeReader(data);
    let items = r.u64()?;
    let nfilters = r.u32()? as usize;
    let options = r.u32()?;
    let growth = r.u32()?;
    let classic_len = nfilters
        .checked_mul(LINK_LEN)
        .and_then(|n| n.checked_add(HEADER_LEN))
        .ok_or(Error::BadEncoding)?;
    let fast = data.len() == classic_len + FAST_TRAILER.len() && data.ends_with(FAST_TRAILER);
    if nfilters == 0 || !(data.len() == classic_len || fast) {
        return Err(Error::BadEncoding);
    }
    let mut shapes = try_vec(nfilters)?;
    let mut total_bytes = 0u64;
    for _ in 0..nfilters {
        let bytes = r.u64()?;
        let bits = r.u64()?;
        let link_items = r.u64()?;
        let error = r.f64()?;
        let bpe = r.f64()?;
        let hashes = r.u32()?;
        let entries = r.u64()?;
        let n2 = r.u8()?;
        if bytes.checked_mul(8) != Some(bits) || (fast && bytes % BLOCK_BYTES != 0) {
            return Err(Error::BadEncoding);
        }
        let stored = StoredShape {
            entries,
            error,
            hashes,
        };
        let shape = if fast {
            stored.blocked(bytes / BLOCK_BYTES)?
        } else {
            let shape = stored.classic(bpe, bits, n2)?;
            // Its bits are allocated before any chunk arrives: a header may not claim more
            // than its capacity needs (`blocked` holds every blocked link to that).
            if !shape.is_sized_for_its_capacity() {
                return Err(Error::BadEncoding);
            }
            shape
        };
        // The fast layout derives bpe and n2 from its other fields: they must be those, so
        // that a header is read back only from the bytes that encode it.
        if shape.stored_bpe_and_n2() != (bpe, n2) {
            return Err(Error::BadEncoding);
        }
        // Iterators are signed 64-bit offsets into all links' bytes: the total must fit.
        total_bytes = total_bytes
            .checked_add(bytes)
            .filter(|t| *t < i64::MAX as u64)
            .ok_or(Error::BadEncoding)?;
        shapes.push((shape, link_items));
    }
    memory.check(chain::memory_usage(nfilters as u64, total_bytes).ok_or(Error::OutOfMemory)?)?;
    let saved = shapes
        .iter()
        .map(|(shape, link_items)| (*shape, *link_items));
    if !chain::is_consistent(items, options, saved) {
        return Err(Error::BadEncoding);
    }
    let mut links = try_vec(nfilters)?;
    for (shape, link_items) in shapes {
        links.push(Link::zeroed_from_saved(shape, link_items, memory)?);
    }
    Chain::from_links(items, options, growth, links)
}

/// The data chunk at SCANDUMP iterator `iter` (≥ 1) and the iterator after it, or `None`
/// past the end. Chunks never cross a sub-filter's end (RedisBloom's rule) nor a segment's.
/// Chunks of 64 KiB or more holding only zeros are passed over (see the module docs),
/// reading at most `ZERO_CHECK_BUDGET` bytes of written blocks to find them.
pub fn chunk_at(chain: &Chain, iter: i64) -> Option<(i64, &[u8])> {
    let (index, mut offset) = locate(chain, iter)?;
    let mut iter = iter;
    let mut budget = ZERO_CHECK_BUDGET;
    for array in chain.links().iter().flat_map(Link::arrays).skip(index) {
        while offset < array.len() {
            let range = offset..array.len().min(offset + MAX_CHUNK);
            let next = iter.checked_add(range.len() as i64)?;
            if !array.is_skipped_chunk(range.clone(), &mut budget) {
                return Some((next, array.get(range)?));
            }
            (iter, offset) = (next, range.end);
        }
        offset = 0;
    }
    None
}

/// Every data chunk of a walk from iterator 1, as `(next iterator, chunk)`: the chunks
/// [`chunk_at`] gives along the walk, which an AOF rewrite emits after the header.
pub fn chunks(chain: &Chain) -> impl Iterator<Item = (i64, &[u8])> + '_ {
    walk(move |iter| chunk_at(chain, iter))
}

/// The walk `chunk_at` gives: its chunk at iterator 1, then at each next iterator it names
/// (window filters walk by the same rule).
pub(super) fn walk<'a>(
    chunk_at: impl Fn(i64) -> Option<(i64, &'a [u8])>,
) -> impl Iterator<Item = (i64, &'a [u8])> {
    let mut iter = 1;
    std::iter::from_fn(move || {
        let (next, data) = chunk_at(iter)?;
        iter = next;
        Some((next, data))
    })
}

/// Writes a chunk that SCANDUMP returned as `(iter, data)`.
pub fn load_chunk(chain: &mut Chain, iter: i64, data: &[u8]) -> Result<(), Error> {
    if iter <= 0 || (iter as u64) < data.len() as u64 {
        return Err(Error::BadEncoding);
    }
    let start = iter - data.len() as i64;
    let (index, offset) = locate(chain, start).ok_or(Error::NoLinkAtOffset)?;
    let segment: &mut Sparse = chain
        .links_mut()
        .iter_mut()
        .flat_map(Link::arrays_mut)
        .nth(index)
        .ok_or(Error::NoLinkAtOffset)?;
    segment.write(offset, data).ok_or(Error::ChunkTooBig)
}

/// Which segment (counted over all sub-filters, oldest first) holds byte `iter - 1` of the
/// concatenated bit arrays, and the offset in it.
fn locate(chain: &Chain, iter: i64) -> Option<(usize, usize)> {
    let mut offset = usize::try_from(iter.checked_sub(1)?).ok()?;
    for (index, segment) in chain.links().iter().flat_map(Link::segments).enumerate() {
        if offset < segment.len() {
            return Some((index, offset));
        }
        offset -= segment.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bf::chain::{scaling_test_chain, LayoutKind, Params};
    use crate::core::EAGER;

    fn docs_example() -> Chain {
        // `BF.RESERVE bf 0.1 10` then `BF.ADD bf item1`, as in the BF.SCANDUMP docs.
        let mut chain = Chain::new(
            Params {
                capacity: 10,
                error_rate: 0.1,
                expansion: 2,
                nonscaling: false,
                layout: LayoutKind::Classic,
            },
            &EAGER,
        )
        .unwrap();
        assert!(chain.add(b"item1", &EAGER).unwrap());
        chain
    }

    /// `chain` as SCANDUMP sends it and LOADCHUNK loads it: its header, then every chunk from
    /// iterator 1 on.
    fn copied_by_chunks(chain: &Chain) -> Chain {
        let mut copy = decode_header(&encode_header(chain), &EAGER).unwrap();
        for (next, data) in chunks(chain) {
            load_chunk(&mut copy, next, data).unwrap();
        }
        copy
    }

    #[test]
    fn header_matches_the_documented_bytes() {
        // The BF.SCANDUMP example of RedisBloom's docs: one link of 8 bytes, 64 bits, k = 5.
        let documented: &[u8] = b"\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\
            \x02\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00\
            \x01\x00\x00\x00\x00\x00\x00\x00\x9a\x99\x99\x99\x99\x99\xa9?J\xf7\xd4\x9e\xde\xf0\x18@\
            \x05\x00\x00\x00\n\x00\x00\x00\x00\x00\x00\x00\x00";
        assert_eq!(encode_header(&docs_example()), documented);
        assert_eq!(
            chunk_at(&docs_example(), 1),
            Some((9, &b"\x01\x08\x00\x80\x00\x04 \x00"[..]))
        );
    }

    #[test]
    fn scandump_round_trip_restores_identical_chain() {
        let chain = scaling_test_chain(5, 100, LayoutKind::Classic);
        assert_eq!(copied_by_chunks(&chain), chain);
        assert_eq!(chunk_at(&chain, 0), None);
        assert_eq!(chunk_at(&chain, -5), None);
    }

    #[test]
    fn chunks_stop_at_link_boundaries() {
        let chain = scaling_test_chain(5, 20, LayoutKind::Classic);
        let first = chain.links()[0].segments().map(<[u8]>::len).sum::<usize>();
        let (next, data) = chunk_at(&chain, 1).unwrap();
        assert_eq!((next, data.len()), (1 + first as i64, first));
    }

    #[test]
    fn bad_chunks_get_redisbloom_errors() {
        let mut chain = docs_example();
        assert_eq!(load_chunk(&mut chain, 0, b""), Err(Error::BadEncoding));
        assert_eq!(load_chunk(&mut chain, 3, b"abcd"), Err(Error::BadEncoding));
        assert_eq!(
            load_chunk(&mut chain, 4, b"abcd"),
            Err(Error::NoLinkAtOffset)
        );
        assert_eq!(
            load_chunk(&mut chain, 100, b"abcd"),
            Err(Error::NoLinkAtOffset)
        );
        assert_eq!(
            load_chunk(&mut chain, 10, b"123456789"),
            Err(Error::ChunkTooBig)
        );
        assert_eq!(load_chunk(&mut chain, 9, b"12345678"), Ok(()));
    }

    #[test]
    fn every_truncation_and_bit_flip_of_a_header_decodes_without_panicking() {
        let header = encode_header(&docs_example());
        for len in 0..header.len() {
            assert!(decode_header(&header[..len], &EAGER).is_err());
        }
        for byte in 0..header.len() {
            for bit in 0..8 {
                let mut corrupt = header.clone();
                corrupt[byte] ^= 1 << bit;
                let _ = decode_header(&corrupt, &EAGER);
            }
        }
    }

    #[test]
    fn absurd_sizes_are_refused_before_allocating() {
        let mut header = encode_header(&docs_example());
        // bytes = 2^61 with matching bits would be an exabyte.
        header[20..28].copy_from_slice(&(1u64 << 61).to_le_bytes());
        header[28..36].copy_from_slice(&(1u64 << 61).wrapping_mul(8).to_le_bytes());
        assert!(decode_header(&header, &EAGER).is_err());
    }

    #[test]
    fn inconsistent_headers_are_refused_before_allocating() {
        fn no_allocation(len: usize) -> Option<Vec<u8>> {
            panic!("{len} bytes allocated for a header that is refused")
        }
        let memory = Memory {
            zeroed: no_allocation,
            ..EAGER
        };
        let header = encode_header(&docs_example());
        let corrupt = |at: usize, bytes: &[u8]| {
            let mut h = header.clone();
            h[at..at + bytes.len()].copy_from_slice(bytes);
            h
        };
        for bad in [
            corrupt(0, &2u64.to_le_bytes()), // the chain's items are not its link's
            corrupt(12, &64u32.to_le_bytes()), // an unknown option bit
            corrupt(60, &6u32.to_le_bytes()), // hashes that do not match bpe
        ] {
            assert_eq!(decode_header(&bad, &memory).err(), Some(Error::BadEncoding));
        }
    }

    #[test]
    fn sizes_beyond_what_capacity_and_error_imply_are_bad_data() {
        // RedisBloom's test_scandump_invalid_header_alloc: the top bytes of `bytes` and
        // `bits` raised together, consistent with each other but not with the capacity.
        for layout in [LayoutKind::Classic, LayoutKind::Fast] {
            let mut header = encode_header(&scaling_test_chain(5, 50, layout));
            header[27] = 0x03;
            header[35] = 0x18;
            assert_eq!(
                decode_header(&header, &EAGER).err(),
                Some(Error::BadEncoding),
                "{layout:?}"
            );
        }
    }

    #[test]
    fn fast_filters_round_trip_and_carry_a_trailer_redisbloom_refuses() {
        let chain = scaling_test_chain(50, 400, LayoutKind::Fast);
        let header = encode_header(&chain);
        let links = chain.links().len();
        // RedisBloom accepts exactly 20 + 53·n bytes; ours are 8 longer.
        assert_eq!(
            header.len(),
            HEADER_LEN + LINK_LEN * links + FAST_TRAILER.len()
        );
        assert_eq!(copied_by_chunks(&chain), chain);
        // Without the trailer, or with a classic header's options, it is refused.
        assert!(decode_header(&header[..header.len() - 8], &EAGER).is_err());
        let mut wrong_trailer = header.clone();
        let end = wrong_trailer.len() - 1;
        wrong_trailer[end] ^= 1;
        assert!(decode_header(&wrong_trailer, &EAGER).is_err());
        let classic_header = encode_header(&scaling_test_chain(50, 400, LayoutKind::Classic));
        let mut classic_with_trailer = classic_header.clone();
        classic_with_trailer.extend_from_slice(FAST_TRAILER);
        assert!(decode_header(&classic_with_trailer, &EAGER).is_err());
        // The derived bpe and n2 (the first link's, at bytes 52 and 72) must be the ones the
        // fast link's other fields give.
        for at in [52, 72] {
            let mut derived = header.clone();
            derived[at] ^= 1;
            assert_eq!(
                decode_header(&derived, &EAGER).err(),
                Some(Error::BadEncoding)
            );
        }
    }

    #[test]
    fn chunks_holding_only_zeros_are_skipped() {
        // A non-scaling classic filter of ~24 MB: two chunks on RedisBloom's grid.
        let params = Params {
            capacity: 20_000_000,
            error_rate: 0.01,
            expansion: 2,
            nonscaling: true,
            layout: LayoutKind::Classic,
        };
        let mut chain = Chain::new(params, &EAGER).unwrap();
        let size = chain.links()[0].shape().bytes() as i64;
        assert_eq!(chunk_at(&chain, 1), None, "nothing set: nothing to send");
        let second = MAX_CHUNK as i64 + 1;
        load_chunk(&mut chain, second + 1, &[3]).unwrap();
        let (next, data) = chunk_at(&chain, 1).unwrap();
        assert_eq!(
            (next, data.len() as i64),
            (size + 1, size - MAX_CHUNK as i64)
        );
        assert_eq!(data[0], 3);
        // Emptied again, it is skipped again: what is sent depends on the bits alone.
        load_chunk(&mut chain, second + 1, &[0]).unwrap();
        assert_eq!(chunk_at(&chain, 1), None);
        // Links under 64 KiB are sent even when empty, as RedisBloom sends them.
        let small = Chain::new(
            Params {
                capacity: 100,
                ..params
            },
            &EAGER,
        )
        .unwrap();
        assert!(chunk_at(&small, 1).is_some());
    }
}
