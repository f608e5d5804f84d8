//! One sub-filter ("link" of the chain): a bit array and the rule that places an item's bits.
//!
//! Two shapes exist. The classic one is RedisBloom's, bit for bit: k probes `(a + i·b) mod m`
//! over the whole array, bits numbered LSB-first within each byte (`bitvec`'s `Lsb0` over
//! `u8`, RedisBloom's `buf[x >> 3] & (1 << (x % 8))`), so the raw bytes are the SCANDUMP and
//! RDB bytes. The blocked one is the fast layout (see `blocked`).

use bitvec::prelude::{BitVec, Lsb0};

use super::blocked::Blocked;
use super::divisor::Divisor;
use super::hash::HashPair;
use super::sizing::Layout;
use super::Error;

/// The bit array of one sub-filter.
pub type Bits = BitVec<u8, Lsb0>;

/// Supplies the zero-filled bytes of a new bit array, or `None` when that much memory cannot
/// be had. It is a parameter, not a global: the server glue passes one that maps fresh,
/// lazily zeroed pages and refuses sizes beyond the machine's memory; [`eager_zeroed`] serves
/// where there is no server.
pub type Zeroed = fn(usize) -> Option<Vec<u8>>;

/// Zeroed bytes from a fallible reservation, written eagerly.
pub fn eager_zeroed(len: usize) -> Option<Vec<u8>> {
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).ok()?;
    bytes.resize(len, 0);
    Some(bytes)
}

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
    fn is_valid(&self) -> bool {
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
    bits: Bits,
    /// Items added to this link (adds that set at least one new bit).
    items: u64,
}

impl Link {
    /// A new, empty sub-filter.
    pub fn new(shape: Shape, zeroed: Zeroed) -> Result<Link, Error> {
        let bits = zeroed_bits(&shape, zeroed)?;
        Ok(Link::assemble(shape, bits, 0))
    }

    /// Rebuilds a saved sub-filter. `data` must be exactly the shape's bytes, and a classic
    /// shape one that sizing could have produced.
    pub fn from_saved(shape: Shape, data: Vec<u8>, items: u64) -> Result<Link, Error> {
        if !shape.is_valid() || data.len() as u64 != shape.bytes() {
            return Err(Error::BadEncoding);
        }
        Ok(Link::assemble(shape, Bits::from_vec(data), items))
    }

    /// A saved sub-filter whose bits arrive later (SCANDUMP header, then chunks).
    pub fn zeroed_from_saved(shape: Shape, items: u64, zeroed: Zeroed) -> Result<Link, Error> {
        if !shape.is_valid() {
            return Err(Error::BadEncoding);
        }
        let bits = zeroed_bits(&shape, zeroed)?;
        Ok(Link::assemble(shape, bits, items))
    }

    fn assemble(shape: Shape, bits: Bits, items: u64) -> Link {
        let modulus = match shape {
            Shape::Classic(l) => Divisor::new(l.modulus()),
            Shape::Blocked(_) => Divisor::new(1),
        };
        Link {
            shape,
            modulus,
            bits,
            items,
        }
    }

    /// A deep copy, or `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self) -> Result<Link, Error> {
        let bits = Bits::from_vec(try_copy(self.bytes())?);
        Ok(Link { bits, ..*self })
    }

    /// Its shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Items added to it.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// The raw bit array, as saved to RDB and SCANDUMP.
    pub fn bytes(&self) -> &[u8] {
        self.bits.as_raw_slice()
    }

    /// The raw bit array, for loading SCANDUMP chunks.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.bits.as_raw_mut_slice()
    }

    /// True when it holds as many items as it was sized for.
    pub fn is_full(&self) -> bool {
        self.items >= self.shape.entries()
    }

    /// True when every bit of `hash` is set (a member, or a false positive).
    pub fn contains(&self, hash: HashPair) -> bool {
        match &self.shape {
            Shape::Classic(l) => {
                let bytes = self.bits.as_raw_slice();
                probes(l.hashes, self.modulus, hash)
                    .all(|bit| bytes.get(bit >> 3).is_some_and(|b| b & bit_mask(bit) != 0))
            }
            Shape::Blocked(b) => b.contains(self.bits.as_raw_slice(), hash),
        }
    }

    /// The byte holding the first bit `hash` probes. Reading it ahead of the real check pulls
    /// the item's (first) cache line in: batches of items read ahead this way have their
    /// memory accesses overlap, a prefetch in safe code.
    pub fn first_probed_byte(&self, hash: HashPair) -> u8 {
        let bit = match &self.shape {
            Shape::Classic(_) => self.modulus.remainder(hash.a),
            Shape::Blocked(b) => b.block_first_bit(hash),
        };
        usize::try_from(bit / 8)
            .ok()
            .and_then(|i| self.bytes().get(i))
            .copied()
            .unwrap_or(0)
    }

    /// Sets every bit of `hash`; true when at least one bit was new, counting the item.
    pub fn insert(&mut self, hash: HashPair) -> bool {
        let any_new = match self.shape {
            Shape::Classic(l) => {
                let bytes = self.bits.as_raw_mut_slice();
                let mut any_new = false;
                for bit in probes(l.hashes, self.modulus, hash) {
                    if let Some(byte) = bytes.get_mut(bit >> 3) {
                        any_new |= *byte & bit_mask(bit) == 0;
                        *byte |= bit_mask(bit);
                    }
                }
                any_new
            }
            Shape::Blocked(b) => b.insert(self.bits.as_raw_mut_slice(), hash),
        };
        if any_new {
            self.items += 1;
        }
        any_new
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

/// The cleared bit array of `shape`.
fn zeroed_bits(shape: &Shape, zeroed: Zeroed) -> Result<Bits, Error> {
    let len = usize::try_from(shape.bytes()).map_err(|_| Error::OutOfMemory)?;
    let bytes = zeroed(len)
        .filter(|b| b.len() == len)
        .ok_or(Error::OutOfMemory)?;
    Ok(Bits::from_vec(bytes))
}

/// A copy of `bytes`, or `OutOfMemory` instead of aborting the server.
pub fn try_copy(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    let mut copy = Vec::new();
    copy.try_reserve_exact(bytes.len())
        .map_err(|_| Error::OutOfMemory)?;
    copy.extend_from_slice(bytes);
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::hash::HashKind;
    use crate::core::sizing::options;

    fn classic(entries: u64, error: f64) -> Shape {
        Shape::Classic(Layout::new(entries, error, options::DEFAULT).unwrap())
    }

    #[test]
    fn item1_sets_the_documented_bits() {
        // shared/reference/redisbloom-bf.md §3.4: 64 bits, k=5 → bytes 01 08 00 80 00 04 20 00.
        let shape = classic(10, 0.05);
        assert_eq!((shape.bytes(), shape.hashes()), (8, 5));
        let mut link = Link::new(shape, eager_zeroed).unwrap();
        let h = HashPair::of(b"item1", HashKind::Murmur64);
        assert!(!link.contains(h));
        assert!(link.insert(h));
        assert_eq!(link.bytes(), b"\x01\x08\x00\x80\x00\x04\x20\x00");
        assert!(link.contains(h));
        assert!(!link.insert(h), "a second insert sets nothing new");
        assert_eq!(link.items(), 1);
    }

    #[test]
    fn saved_data_must_match_the_shape() {
        let shape = classic(10, 0.05);
        assert_eq!(
            Link::from_saved(shape, vec![0; 7], 0),
            Err(Error::BadEncoding)
        );
        assert!(Link::from_saved(shape, vec![0; 8], 0).is_ok());
        let blocked = Shape::Blocked(Blocked {
            entries: 10,
            error: 0.01,
            hashes: 7,
            blocks: 2,
        });
        assert!(Link::from_saved(blocked, vec![0; 128], 0).is_ok());
        assert_eq!(
            Link::from_saved(blocked, vec![0; 64], 0),
            Err(Error::BadEncoding)
        );
    }

    #[test]
    fn impossible_sizes_fail_cleanly() {
        // Bits for 2^62 entries: an exabyte array. black_box: an unused allocation may
        // legally be optimised away as if it had succeeded.
        let result = Link::new(std::hint::black_box(classic(1 << 62, 0.01)), eager_zeroed);
        assert_eq!(
            std::hint::black_box(&result).as_ref().err(),
            Some(&Error::OutOfMemory)
        );
        let refused: Zeroed = |_| None;
        assert_eq!(
            Link::new(classic(10, 0.01), refused).err(),
            Some(Error::OutOfMemory)
        );
    }
}
