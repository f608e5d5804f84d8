//! One sub-filter ("link" of the chain): a bit array and the rule that places an item's bits.
//!
//! Two shapes exist. The classic one is RedisBloom's, bit for bit: k probes `(a + i·b) mod m`
//! over the whole array, bits numbered LSB-first within each byte (`bitvec`'s `Lsb0` over
//! `u8`, RedisBloom's `buf[x >> 3] & (1 << (x % 8))`), so the raw bytes are the SCANDUMP and
//! RDB bytes. The blocked one is the fast layout (see `blocked`).

use bitvec::prelude::{BitVec, Lsb0};

use super::blocked::{Blocked, BLOCK_BYTES};
use super::divisor::Divisor;
use super::sizing::Layout;
use crate::core::hash::HashPair;
use crate::core::{try_copy, Error, Memory};

/// The bit array of one sub-filter.
pub type Bits = BitVec<u8, Lsb0>;

/// How a sub-filter is sized and where an item's bits go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// RedisBloom's layout.
    Classic(Layout),
    /// The fast, cache-line-blocked layout.
    Blocked(Blocked),
}

impl Shape {
    /// Items it is sized for.
    pub fn entries(&self) -> u64 {
        match self {
            Shape::Classic(l) => l.entries,
            Shape::Blocked(b) => b.entries,
        }
    }

    /// Its own false-positive rate.
    pub fn error(&self) -> f64 {
        match self {
            Shape::Classic(l) => l.error,
            Shape::Blocked(b) => b.error,
        }
    }

    /// Bits set per item.
    pub fn hashes(&self) -> u32 {
        match self {
            Shape::Classic(l) => l.hashes,
            Shape::Blocked(b) => b.hashes,
        }
    }

    /// Bytes of its bit array.
    pub fn bytes(&self) -> u64 {
        match self {
            Shape::Classic(l) => l.bytes(),
            Shape::Blocked(b) => b.bytes(),
        }
    }

    /// RedisBloom's per-link `bpe` and `n2` fields as RDB and SCANDUMP store them; for the
    /// blocked shape, its bits per entry and 0.
    pub fn stored_bpe_and_n2(&self) -> (f64, u8) {
        match self {
            Shape::Classic(l) => (l.bpe, l.n2),
            Shape::Blocked(b) => ((b.bytes() * 8) as f64 / b.entries as f64, 0),
        }
    }

    /// Whether a stored shape can be used as it is.
    pub fn is_valid(&self) -> bool {
        match self {
            Shape::Classic(l) => l.is_consistent(),
            Shape::Blocked(b) => b.is_plausible(),
        }
    }
}

/// One sub-filter: its shape, its bits and how many items were added to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    shape: Shape,
    /// The classic probes' modulus, prepared once (unused by the blocked shape).
    modulus: Divisor,
    storage: Storage,
    /// Items added to this link (adds that set at least one new bit).
    items: u64,
}

/// A sub-filter's bytes, in parts ("segments"): one for the classic shape, which RedisBloom
/// keeps and saves whole; 16 MiB ones for the blocked shape, whose blocks never straddle two,
/// so each is one RDB string that loads into place without a copy.
#[derive(Debug, Clone, PartialEq)]
enum Storage {
    Whole(Bits),
    Segments(Vec<Vec<u8>>),
}

impl Link {
    /// A new, empty sub-filter, its bytes from `memory` (the caller has checked the filter's
    /// size against it).
    pub fn new(shape: Shape, memory: &Memory) -> Result<Link, Error> {
        let parts = segment_lengths(&shape)
            .into_iter()
            .map(|len| memory.array(len))
            .collect::<Result<Vec<_>, _>>()?;
        Link::assemble(shape, parts, 0)
    }

    /// Rebuilds a saved sub-filter from its bytes, in the parts [`Link::segments`] gives.
    /// The parts must have exactly the shape's sizes, and the shape must be usable.
    pub fn from_saved(shape: Shape, parts: Vec<Vec<u8>>, items: u64) -> Result<Link, Error> {
        if !shape.is_valid() {
            return Err(Error::BadEncoding);
        }
        Link::assemble(shape, parts, items)
    }

    /// A saved sub-filter whose bits arrive later (SCANDUMP header, then chunks).
    pub fn zeroed_from_saved(shape: Shape, items: u64, memory: &Memory) -> Result<Link, Error> {
        if !shape.is_valid() {
            return Err(Error::BadEncoding);
        }
        Ok(Link {
            items,
            ..Link::new(shape, memory)?
        })
    }

    fn assemble(shape: Shape, mut parts: Vec<Vec<u8>>, items: u64) -> Result<Link, Error> {
        let lengths = segment_lengths(&shape);
        let sizes_match = parts.len() == lengths.len()
            && parts
                .iter()
                .zip(&lengths)
                .all(|(part, &len)| part.len() as u64 == len);
        if !sizes_match {
            return Err(Error::BadEncoding);
        }
        let (modulus, storage) = match shape {
            Shape::Classic(l) => (
                Divisor::new(l.modulus()),
                Storage::Whole(Bits::from_vec(parts.pop().unwrap_or_default())),
            ),
            Shape::Blocked(_) => (Divisor::new(1), Storage::Segments(parts)),
        };
        Ok(Link {
            shape,
            modulus,
            storage,
            items,
        })
    }

    /// A deep copy, or `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self) -> Result<Link, Error> {
        let parts = self
            .segments()
            .map(try_copy)
            .collect::<Result<Vec<_>, _>>()?;
        Link::assemble(self.shape, parts, self.items)
    }

    /// Its shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Items added to it.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Its bytes, in order, as saved to RDB (one string per segment) and SCANDUMP.
    pub fn segments(&self) -> impl Iterator<Item = &[u8]> {
        let (whole, parts): (Option<&[u8]>, &[Vec<u8>]) = match &self.storage {
            Storage::Whole(bits) => (Some(bits.as_raw_slice()), &[]),
            Storage::Segments(parts) => (None, parts),
        };
        whole.into_iter().chain(parts.iter().map(Vec::as_slice))
    }

    /// Its bytes, in order, for loading SCANDUMP chunks.
    pub fn segments_mut(&mut self) -> impl Iterator<Item = &mut [u8]> {
        let (whole, parts): (Option<&mut [u8]>, &mut [Vec<u8>]) = match &mut self.storage {
            Storage::Whole(bits) => (Some(bits.as_raw_mut_slice()), &mut []),
            Storage::Segments(parts) => (None, parts),
        };
        whole
            .into_iter()
            .chain(parts.iter_mut().map(Vec::as_mut_slice))
    }

    /// True when it holds as many items as it was sized for.
    pub fn is_full(&self) -> bool {
        self.items >= self.shape.entries()
    }

    /// True when every bit of `hash` is set (a member, or a false positive).
    pub fn contains(&self, hash: HashPair) -> bool {
        match (&self.shape, &self.storage) {
            (Shape::Classic(l), Storage::Whole(bits)) => {
                let bytes = bits.as_raw_slice();
                probes(l.hashes, self.modulus, hash)
                    .all(|bit| bytes.get(bit >> 3).is_some_and(|b| b & bit_mask(bit) != 0))
            }
            (Shape::Blocked(b), Storage::Segments(parts)) => {
                let (segment, offset) = b.locate(hash);
                block_of(parts, segment, offset).is_some_and(|block| b.block_contains(block, hash))
            }
            _ => false,
        }
    }

    /// The byte holding the first bit `hash` probes. Reading it ahead of the real check pulls
    /// the item's (first) cache line in: batches of items read ahead this way have their
    /// memory accesses overlap, a prefetch in safe code.
    pub fn first_probed_byte(&self, hash: HashPair) -> u8 {
        let byte = match (&self.shape, &self.storage) {
            (Shape::Classic(_), Storage::Whole(bits)) => {
                usize::try_from(self.modulus.remainder(hash.a) >> 3)
                    .ok()
                    .and_then(|i| bits.as_raw_slice().get(i))
            }
            (Shape::Blocked(b), Storage::Segments(parts)) => {
                let (segment, offset) = b.locate(hash);
                block_of(parts, segment, offset).and_then(|block| block.first())
            }
            _ => None,
        };
        byte.copied().unwrap_or(0)
    }

    /// Sets every bit of `hash`; true when at least one bit was new, counting the item.
    pub fn insert(&mut self, hash: HashPair) -> bool {
        let any_new = match (&self.shape, &mut self.storage) {
            (Shape::Classic(l), Storage::Whole(bits)) => {
                let bytes = bits.as_raw_mut_slice();
                let mut any_new = false;
                for bit in probes(l.hashes, self.modulus, hash) {
                    if let Some(byte) = bytes.get_mut(bit >> 3) {
                        any_new |= *byte & bit_mask(bit) == 0;
                        *byte |= bit_mask(bit);
                    }
                }
                any_new
            }
            (Shape::Blocked(b), Storage::Segments(parts)) => {
                let (segment, offset) = b.locate(hash);
                let block = parts
                    .get_mut(segment)
                    .and_then(|p| p.get_mut(offset..offset + BLOCK_BYTES as usize));
                block.is_some_and(|block| b.block_insert(block, hash))
            }
            _ => false,
        };
        if any_new {
            self.items += 1;
        }
        any_new
    }
}

/// The 64-byte block at `offset` of segment `segment`.
fn block_of(parts: &[Vec<u8>], segment: usize, offset: usize) -> Option<&[u8]> {
    parts
        .get(segment)?
        .get(offset..offset + BLOCK_BYTES as usize)
}

/// The sizes of a shape's parts: the whole array, or its 16 MiB segments.
fn segment_lengths(shape: &Shape) -> Vec<u64> {
    match shape {
        Shape::Classic(l) => vec![l.bytes()],
        Shape::Blocked(b) => b.segment_lengths().collect(),
    }
}

/// Classic bit positions `(a + i·b) mod m` for i in 0..hashes, with 64-bit wrap-around exactly
/// as RedisBloom's `CHECK_ADD_FUNC` (its 32-bit variant computes the same values).
fn probes(hashes: u32, modulus: Divisor, hash: HashPair) -> impl Iterator<Item = usize> {
    (0..u64::from(hashes))
        .map(move |i| modulus.remainder(hash.a.wrapping_add(i.wrapping_mul(hash.b))) as usize)
}

/// Bit `bit` of a byte array, LSB first within each byte (`Lsb0`): RedisBloom's
/// `buf[x >> 3] & (1 << (x % 8))`. Probes work on the raw bytes rather than through bitvec's
/// per-bit proxies, which read, copy and write back a byte for every bit touched.
fn bit_mask(bit: usize) -> u8 {
    1 << (bit & 7)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bloom::sizing::options;
    use crate::core::hash::HashKind;
    use crate::core::EAGER;

    fn classic(entries: u64, error: f64) -> Shape {
        Shape::Classic(Layout::new(entries, error, options::DEFAULT).unwrap())
    }

    #[test]
    fn item1_sets_the_documented_bits() {
        // RedisBloom's BF.SCANDUMP documentation example (`BF.RESERVE bf 0.1 10`, `BF.ADD bf
        // item1`): 64 bits, k=5 → bytes 01 08 00 80 00 04 20 00.
        let shape = classic(10, 0.05);
        assert_eq!((shape.bytes(), shape.hashes()), (8, 5));
        let mut link = Link::new(shape, &EAGER).unwrap();
        let h = HashPair::of(b"item1", HashKind::Murmur64);
        assert!(!link.contains(h));
        assert!(link.insert(h));
        assert_eq!(
            link.segments().collect::<Vec<_>>(),
            [b"\x01\x08\x00\x80\x00\x04\x20\x00"]
        );
        assert!(link.contains(h));
        assert!(!link.insert(h), "a second insert sets nothing new");
        assert_eq!(link.items(), 1);
    }

    #[test]
    fn saved_data_must_match_the_shape() {
        let shape = classic(10, 0.05);
        let saved = |shape, parts: &[usize]| {
            Link::from_saved(shape, parts.iter().map(|&n| vec![0; n]).collect(), 0)
        };
        assert_eq!(saved(shape, &[7]), Err(Error::BadEncoding));
        assert_eq!(saved(shape, &[8, 8]), Err(Error::BadEncoding));
        assert!(saved(shape, &[8]).is_ok());
        let blocked = Shape::Blocked(Blocked {
            entries: 10,
            error: 0.01,
            hashes: 7,
            blocks: 2,
        });
        assert!(saved(blocked, &[128]).is_ok());
        assert_eq!(saved(blocked, &[64]), Err(Error::BadEncoding));
        assert_eq!(saved(blocked, &[64, 64]), Err(Error::BadEncoding));
    }

    #[test]
    fn impossible_sizes_fail_cleanly() {
        // Bits for 2^62 entries: an exabyte array. black_box: an unused allocation may
        // legally be optimised away as if it had succeeded.
        let result = Link::new(std::hint::black_box(classic(1 << 62, 0.01)), &EAGER);
        assert_eq!(
            std::hint::black_box(&result).as_ref().err(),
            Some(&Error::OutOfMemory)
        );
        let refused = Memory {
            zeroed: |_| None,
            ..EAGER
        };
        assert_eq!(
            Link::new(classic(10, 0.01), &refused).err(),
            Some(Error::OutOfMemory)
        );
    }
}
