//! One sub-filter ("link" of the chain): a bit array probed `hashes` times per item.
//!
//! Bits are numbered LSB-first within each byte (`bitvec`'s `Lsb0` over `u8`), which is
//! RedisBloom's `buf[x >> 3] & (1 << (x % 8))`, so the raw bytes are the SCANDUMP/RDB bytes.

use bitvec::prelude::{BitVec, Lsb0};

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

/// One sub-filter: its layout, its bits and how many items were added to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    layout: Layout,
    bits: Bits,
    /// Items added to this link (adds that set at least one new bit).
    items: u64,
}

impl Link {
    /// A new, empty sub-filter.
    pub fn new(layout: Layout, zeroed: Zeroed) -> Result<Link, Error> {
        let bits = zeroed_bits(layout, zeroed)?;
        Ok(Link {
            layout,
            bits,
            items: 0,
        })
    }

    /// Rebuilds a saved sub-filter. `data` must be exactly the layout's bytes, and the
    /// layout one that sizing could have produced.
    pub fn from_saved(layout: Layout, data: Vec<u8>, items: u64) -> Result<Link, Error> {
        if !layout.is_consistent() || data.len() as u64 != layout.bytes() {
            return Err(Error::BadEncoding);
        }
        Ok(Link {
            layout,
            bits: Bits::from_vec(data),
            items,
        })
    }

    /// A saved sub-filter whose bits arrive later (SCANDUMP header, then chunks).
    pub fn zeroed_from_saved(layout: Layout, items: u64, zeroed: Zeroed) -> Result<Link, Error> {
        if !layout.is_consistent() {
            return Err(Error::BadEncoding);
        }
        Ok(Link {
            layout,
            bits: zeroed_bits(layout, zeroed)?,
            items,
        })
    }

    /// A deep copy, or `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self) -> Result<Link, Error> {
        Ok(Link {
            layout: self.layout,
            bits: Bits::from_vec(try_copy(self.bytes())?),
            items: self.items,
        })
    }

    /// Its shape.
    pub fn layout(&self) -> &Layout {
        &self.layout
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
        self.items >= self.layout.entries
    }

    /// True when every probe of `hash` is set (a member, or a false positive).
    pub fn contains(&self, hash: HashPair) -> bool {
        self.probes(hash)
            .all(|bit| self.bits.get(bit).is_some_and(|b| *b))
    }

    /// Sets every probe of `hash`; true when at least one bit was new, counting the item.
    pub fn insert(&mut self, hash: HashPair) -> bool {
        let mut any_new = false;
        for bit in self.probes(hash) {
            if let Some(mut slot) = self.bits.get_mut(bit) {
                any_new |= !*slot;
                *slot = true;
            }
        }
        if any_new {
            self.items += 1;
        }
        any_new
    }

    /// Bit positions `(a + i·b) mod m` for i in 0..hashes, with 64-bit wrap-around exactly
    /// as RedisBloom's `CHECK_ADD_FUNC` (its 32-bit variant computes the same values).
    fn probes(&self, hash: HashPair) -> impl Iterator<Item = usize> {
        let modulus = self.layout.modulus();
        (0..u64::from(self.layout.hashes))
            .map(move |i| (hash.a.wrapping_add(i.wrapping_mul(hash.b)) % modulus) as usize)
    }
}

/// The cleared bit array of `layout`.
fn zeroed_bits(layout: Layout, zeroed: Zeroed) -> Result<Bits, Error> {
    let len = usize::try_from(layout.bytes()).map_err(|_| Error::OutOfMemory)?;
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

    #[test]
    fn item1_sets_the_documented_bits() {
        // shared/reference/redisbloom-bf.md §3.4: 64 bits, k=5 → bytes 01 08 00 80 00 04 20 00.
        let layout = Layout::new(10, 0.05, options::DEFAULT).unwrap();
        assert_eq!((layout.bits, layout.hashes), (64, 5));
        let mut link = Link::new(layout, eager_zeroed).unwrap();
        let h = HashPair::of(b"item1", HashKind::Murmur64);
        assert!(!link.contains(h));
        assert!(link.insert(h));
        assert_eq!(link.bytes(), b"\x01\x08\x00\x80\x00\x04\x20\x00");
        assert!(link.contains(h));
        assert!(!link.insert(h), "a second insert sets nothing new");
        assert_eq!(link.items(), 1);
    }

    #[test]
    fn saved_data_must_match_the_layout() {
        let layout = Layout::new(10, 0.05, options::DEFAULT).unwrap();
        assert_eq!(
            Link::from_saved(layout, vec![0; 7], 0),
            Err(Error::BadEncoding)
        );
        assert!(Link::from_saved(layout, vec![0; 8], 0).is_ok());
    }

    #[test]
    fn impossible_sizes_fail_cleanly() {
        // Bits for 2^62 entries: an exabyte array. black_box: an unused allocation may
        // legally be optimised away as if it had succeeded.
        let layout = Layout::new(1 << 62, 0.01, options::DEFAULT).unwrap();
        let result = Link::new(std::hint::black_box(layout), eager_zeroed);
        assert_eq!(
            std::hint::black_box(&result).as_ref().err(),
            Some(&Error::OutOfMemory)
        );
        let refused: Zeroed = |_| None;
        let small = Layout::new(10, 0.01, options::DEFAULT).unwrap();
        assert_eq!(Link::new(small, refused).err(), Some(Error::OutOfMemory));
    }
}
