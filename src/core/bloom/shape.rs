//! A sub-filter's shape: everything about it but its bits, in either layout.

use super::blocked::Blocked;
use super::sizing::{self, Layout};

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
            // In floating point: the bit count of a huge array does not fit 64 bits.
            Shape::Blocked(b) => (b.bytes() as f64 * 8.0 / b.entries as f64, 0),
        }
    }

    /// Whether its bit array is no bigger than its capacity and error rate imply, allowing
    /// for every rounding a writer applies (to whole words, to a power of two, to whole
    /// blocks). A saved header claiming more is inflated — bad data, as RedisBloom answers —
    /// and is refused before anything is allocated for it.
    pub fn is_sized_for_its_capacity(&self) -> bool {
        /// Rounding up to a word or a block adds at most this much to a small filter.
        const ROUNDING_BITS: f64 = 1024.0;
        let needed = match self {
            Shape::Classic(l) => sizing::bits_needed(l.entries, l.error),
            Shape::Blocked(b) => match Blocked::new(b.entries, b.error) {
                Ok(fresh) => fresh.bytes() as f64 * 8.0,
                Err(_) => return false,
            },
        };
        // A power-of-two layout is at most twice what it needs.
        self.bytes() as f64 * 8.0 <= 2.0 * needed + ROUNDING_BITS
    }

    /// Whether a stored shape can be used as it is.
    pub fn is_valid(&self) -> bool {
        match self {
            Shape::Classic(l) => l.is_consistent(),
            Shape::Blocked(b) => b.is_plausible(),
        }
    }
}
