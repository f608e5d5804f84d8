//! One sub-filter of a valkey-bloom object: the `bloomfilter` crate's (3.x) bitmap blob,
//! kept as the bytes it saves — a 45-byte header (version 1, the bitmap's length in bytes as
//! a little-endian `u64`, k as a little-endian `u32`, the 32-byte seed) then the bits — so a
//! save writes it as it is and a load adopts it, with the sub-filter's capacity and items.
//!
//! An item's probes: `h0` and `h1` are SipHash-1-3 of the item under the seed's two halves
//! (`sip`), probe 0 is `h0`, probe 1 `h1`, probe i ≥ 2 `(h0 + i·h1 mod 2⁶⁴) mod
//! 0xFFFFFFFFFFFFFFC5`; each probe modulo the bitmap's bits is a bit, at byte `bit / 8`, mask
//! `1 << (bit % 8)`.

use super::sip::hash_item;
use crate::core::bf::estimate;
use crate::core::bits;
use crate::core::le::LeReader;
use crate::core::relocate::{Mover, Relocate};
use crate::core::{Error, Memory};

/// The blob's header: version, bitmap length, k, seed.
pub const HEADER_BYTES: usize = 45;
/// The seed's length.
pub const SEED_BYTES: usize = 32;
/// The only blob version the crate writes.
const BLOB_VERSION: u8 = 1;
/// The largest 64-bit prime, which probes past the second are taken modulo.
const PRIME: u64 = 0xFFFF_FFFF_FFFF_FFC5;
/// The most probes a sub-filter takes: the crate's sizing gives about −log₂ of the error rate,
/// 1,076 for the smallest rate a double holds (5e-324, at capacity 1); more comes only from a
/// forged header, and would make every command a denial of service.
pub const MAX_PROBES: u32 = 1100;

/// A seed: two SipHash keys of 16 bytes each.
pub type Seed = [u8; SEED_BYTES];

/// One sub-filter.
#[derive(Debug, PartialEq, Eq)]
pub struct SubFilter {
    /// Header and bits.
    blob: Vec<u8>,
    /// Items it was made for.
    pub capacity: i64,
    /// Items added to it.
    pub items: i64,
}

impl Relocate for SubFilter {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.blob);
    }
}

/// An item's two hashes under a seed, from which every probe follows.
#[derive(Debug, Clone, Copy)]
pub struct Hashes(u64, u64);

impl Hashes {
    /// The hashes of `item` under `seed`.
    pub fn of(seed: &Seed, item: &[u8]) -> Hashes {
        let key = |at: usize| {
            let mut word = [0u8; 8];
            if let Some(bytes) = seed.get(at..at + 8) {
                word.copy_from_slice(bytes);
            }
            u64::from_le_bytes(word)
        };
        Hashes(
            hash_item(key(0), key(8), item),
            hash_item(key(16), key(24), item),
        )
    }

    fn probe(self, i: u32) -> u64 {
        match i {
            0 => self.0,
            1 => self.1,
            _ => self.0.wrapping_add(u64::from(i).wrapping_mul(self.1)) % PRIME,
        }
    }
}

/// The bitmap's bytes for `capacity` items at `fp_rate` (the crate's `compute_bitmap_size`),
/// or `None` where the arithmetic leaves the range a `usize` holds.
pub fn bitmap_bytes(capacity: i64, fp_rate: f64) -> Option<u64> {
    let ln2 = std::f64::consts::LN_2;
    let bytes = (capacity as f64 * fp_rate.ln() / (-8.0 * ln2 * ln2)).ceil();
    (bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// Probes per item for a bitmap of `bits` bits and `capacity` items (the crate's
/// `optimal_k_num`: `max(1, round(bits / capacity · ln 2))`).
fn probes_for(bits: u64, capacity: i64) -> u32 {
    let k = (bits as f64 / capacity as f64 * std::f64::consts::LN_2).round();
    (k as u32).max(1)
}

impl SubFilter {
    /// An empty sub-filter for `capacity` items at `fp_rate` under `seed`; its bitmap is
    /// allocated from `memory` (whose bound the caller checked for the whole object).
    pub fn new(
        capacity: i64,
        fp_rate: f64,
        seed: &Seed,
        memory: &Memory,
    ) -> Result<SubFilter, Error> {
        let bytes = bitmap_bytes(capacity, fp_rate).ok_or(Error::OutOfMemory)?;
        let k = probes_for(bytes.saturating_mul(8), capacity);
        let len = bytes
            .checked_add(HEADER_BYTES as u64)
            .ok_or(Error::OutOfMemory)?;
        let mut blob = memory.array(len)?;
        let header = [BLOB_VERSION]
            .into_iter()
            .chain(bytes.to_le_bytes())
            .chain(k.to_le_bytes())
            .chain(*seed);
        for (byte, value) in blob.iter_mut().zip(header) {
            *byte = value;
        }
        Ok(SubFilter {
            blob,
            capacity,
            items: 0,
        })
    }

    /// A saved sub-filter, adopting `blob`: `BadEncoding` unless its header is version 1, its
    /// length is the bits it holds (at least one byte), k is 1 to [`MAX_PROBES`], and the
    /// counts are not negative (the crate checks the first two; valkey-bloom then `expect`s).
    pub fn from_saved(blob: Vec<u8>, capacity: i64, items: i64) -> Result<SubFilter, Error> {
        let mut header = LeReader(blob.get(..HEADER_BYTES).ok_or(Error::BadEncoding)?);
        let (version, length, k) = (header.u8()?, header.u64()?, header.u32()?);
        let bits = (blob.len() - HEADER_BYTES) as u64;
        if version != BLOB_VERSION
            || length != bits
            || bits == 0
            || !(1..=MAX_PROBES).contains(&k)
            || capacity < 1
            || items < 0
        {
            return Err(Error::BadEncoding);
        }
        Ok(SubFilter {
            blob,
            capacity,
            items,
        })
    }

    /// The blob as saved: header and bits.
    pub fn blob(&self) -> &[u8] {
        &self.blob
    }

    /// The seed it hashes with.
    pub fn seed(&self) -> Seed {
        let mut seed = [0; SEED_BYTES];
        if let Some(bytes) = self.blob.get(13..HEADER_BYTES) {
            seed.copy_from_slice(bytes);
        }
        seed
    }

    /// Bytes of the bitmap.
    pub fn bitmap_len(&self) -> u64 {
        (self.blob.len() - HEADER_BYTES) as u64
    }

    /// Probes per item.
    pub fn probes(&self) -> u32 {
        self.k()
    }

    /// ORs the bits of `other`, a sub-filter of the same header (size, probes, seed), into
    /// this one's: afterwards it finds every item either held. `BadEncoding`, changing nothing,
    /// when the headers differ.
    pub fn or_from(&mut self, other: &SubFilter) -> Result<(), Error> {
        let header = |f: &SubFilter| f.blob.get(..HEADER_BYTES).map(<[u8]>::to_vec);
        if header(self) != header(other) || self.blob.len() != other.blob.len() {
            return Err(Error::BadEncoding);
        }
        let pairs = self.blob.iter_mut().zip(&other.blob).skip(HEADER_BYTES);
        pairs.for_each(|(to, &from)| *to |= from);
        Ok(())
    }

    /// The items its bits say it holds (`core::bf::estimate`), and that estimate's spread at
    /// its capacity.
    pub fn estimated_items(&self) -> (u64, f64) {
        let bitmap = self.blob.get(HEADER_BYTES..).unwrap_or_default();
        let set = bitmap.iter().map(|b| u64::from(b.count_ones())).sum();
        let bits = bitmap.len() as u64 * 8;
        let capacity = u64::try_from(self.capacity).unwrap_or(0);
        let estimate = estimate::estimated_items(bits, set, self.k());
        (
            estimate,
            estimate::estimate_spread(bits, capacity, self.k()),
        )
    }

    fn k(&self) -> u32 {
        self.blob
            .get(9..13)
            .and_then(|b| b.try_into().ok())
            .map_or(1, u32::from_le_bytes)
    }

    /// The bitmap's bit of probe `i` of `hashes`, in a bitmap of `len` bits.
    fn bit(hashes: Hashes, i: u32, len: u64) -> usize {
        (hashes.probe(i) % len) as usize
    }

    /// Whether every probe's bit is set.
    pub fn check(&self, hashes: Hashes) -> bool {
        let len = self.bitmap_len() * 8;
        let bitmap = self.blob.get(HEADER_BYTES..).unwrap_or_default();
        (0..self.k()).all(|i| bits::is_set(bitmap, SubFilter::bit(hashes, i, len)))
    }

    /// Sets every probe's bit.
    pub fn set(&mut self, hashes: Hashes) {
        let len = self.bitmap_len() * 8;
        let k = self.k();
        if let Some(bitmap) = self.blob.get_mut(HEADER_BYTES..) {
            for i in 0..k {
                bits::set(bitmap, SubFilter::bit(hashes, i, len));
            }
        }
    }

    /// An independent copy, or `OutOfMemory`.
    pub fn try_clone(&self) -> Result<SubFilter, Error> {
        Ok(SubFilter {
            blob: crate::core::try_copy(&self.blob)?,
            capacity: self.capacity,
            items: self.items,
        })
    }
}
