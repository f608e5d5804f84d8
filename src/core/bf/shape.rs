//! A sub-filter's shape: everything about it but its bits, in either layout.

use super::blocked::Blocked;
use super::sizing::{self, Layout};
use crate::core::Error;

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

    /// Bits its probes can reach: a classic layout's modulus (RedisBloom's `bits`, or the
    /// power of two it rounded to), every bit of a blocked one.
    pub fn probed_bits(&self) -> u64 {
        match self {
            Shape::Classic(l) => l.modulus(),
            Shape::Blocked(b) => b.bytes().saturating_mul(8),
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

    /// The sizes of its bytes' parts: the whole array, or its 16 MiB segments.
    pub fn segment_lengths(&self) -> impl Iterator<Item = u64> {
        let (whole, blocked) = match self {
            Shape::Classic(l) => (Some(l.bytes()), None),
            Shape::Blocked(b) => (None, Some(b.segment_lengths())),
        };
        whole.into_iter().chain(blocked.into_iter().flatten())
    }

    /// Whether a stored shape can be used as it is.
    fn is_valid(&self) -> bool {
        match self {
            Shape::Classic(l) => l.is_consistent(),
            Shape::Blocked(b) => b.is_plausible(),
        }
    }
}

/// The fields both layouts store for a sub-filter (RDB values, SCANDUMP headers), not yet
/// trusted. Its methods are the one place a stored shape is rebuilt and checked: a loader
/// reads these, then the fields of its layout, and uses the shape only once one of them has
/// accepted it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StoredShape {
    /// Items it is sized for.
    pub entries: u64,
    /// Its own false-positive rate.
    pub error: f64,
    /// Bits set per item.
    pub hashes: u32,
}

impl StoredShape {
    /// The classic shape of these fields and RedisBloom's `bpe`, `bits` and `n2`:
    /// `BadEncoding` unless `Layout::new` could have made it ([`Layout::is_consistent`]).
    pub fn classic(self, bpe: f64, bits: u64, n2: u8) -> Result<Shape, Error> {
        let shape = Shape::Classic(Layout {
            entries: self.entries,
            error: self.error,
            bpe,
            hashes: self.hashes,
            bits,
            n2,
        });
        shape.is_valid().then_some(shape).ok_or(Error::BadEncoding)
    }

    /// The blocked shape of these fields and `blocks` blocks: `BadEncoding` unless its probes
    /// are bounded, its blocks addressable and its array sized for its capacity. Only redis-bf
    /// writes this layout, always sized exactly: anything else is bad data. Checked before
    /// the segment lengths are derived, whose byte count a hostile block count would overflow.
    pub fn blocked(self, blocks: u64) -> Result<Shape, Error> {
        let shape = Shape::Blocked(Blocked {
            entries: self.entries,
            error: self.error,
            hashes: self.hashes,
            blocks,
        });
        (shape.is_valid() && shape.is_sized_for_its_capacity())
            .then_some(shape)
            .ok_or(Error::BadEncoding)
    }
}
