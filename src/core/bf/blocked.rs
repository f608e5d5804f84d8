//! The fast layout: a cache-line-blocked Bloom filter (Putze, Sanders, Singler, "Cache-,
//! Hash- and Space-Efficient Bloom Filters", 2007). Each item's k bits all fall in one
//! 512-bit block, so a lookup or insert touches one cache line per sub-filter however large
//! the filter, instead of k random lines.
//!
//! Items hash once with xxh3-128: the high 64 bits choose the block (Lemire's multiply-shift,
//! no division), the low 64 bits give the k 9-bit positions inside it (re-mixed every 7
//! positions), so block choice and positions never share bits.
//!
//! Blocks hold a Poisson-distributed number of items, and overloaded blocks dominate the
//! false-positive rate, so the textbook `-ln ε / ln² 2` sizing would miss ε. Sizing instead
//! finds, for each k, the largest load per block whose exact rate
//! `Σᵢ Pois(i; λ) · (1 − (1 − 1/512)^{k·i})^k` stays within ε, and keeps the smallest array.

use super::sizing::is_valid_target;
use crate::core::bits;
use crate::core::hash::{splitmix64_mix, HashPair};
use crate::core::Error;

/// Bits per block: one 64-byte cache line.
const BLOCK_BITS: u32 = 512;
/// Bytes per block.
pub const BLOCK_BYTES: u64 = 64;
/// The bits of a blocked sub-filter are kept in segments of this size (the last one
/// shorter): blocks never straddle two, and each is one RDB string and one SCANDUMP chunk.
pub const SEGMENT_BYTES: u64 = 16 * 1024 * 1024;
const BLOCKS_PER_SEGMENT: u64 = SEGMENT_BYTES / BLOCK_BYTES;
/// Probes per item considered by sizing; more never pays at any error rate above 1e-20.
pub const MAX_HASHES: u32 = 16;
/// Positions taken from one 64-bit word (7 × 9 bits) before it is re-mixed.
const POSITIONS_PER_WORD: u32 = 7;

/// The shape of one blocked sub-filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blocked {
    /// Items it is sized for.
    pub entries: u64,
    /// Its own false-positive rate at `entries` items.
    pub error: f64,
    /// Bits set per item, all in one block.
    pub hashes: u32,
    /// 512-bit blocks.
    pub blocks: u64,
}

impl Blocked {
    /// The smallest blocked array holding `entries` items at `error`.
    pub fn new(entries: u64, error: f64) -> Result<Blocked, Error> {
        if !is_valid_target(entries, error) {
            return Err(Error::InvalidParameters);
        }
        let (hashes, load) = best_hashes_and_load(error);
        // An error rate so small that even one item per block misses it leaves no load.
        let blocks = (entries as f64 / load).ceil();
        let addressable = (u64::MAX / BLOCK_BYTES) as f64;
        if load.is_nan() || load <= 0.0 || blocks.is_nan() || blocks < 1.0 || blocks >= addressable
        {
            return Err(Error::InvalidParameters);
        }
        Ok(Blocked {
            entries,
            error,
            hashes,
            blocks: blocks as u64,
        })
    }

    /// Bytes of the bit array.
    pub fn bytes(&self) -> u64 {
        self.blocks * BLOCK_BYTES
    }

    /// Whether a stored shape is usable: probes bounded, blocks addressable. (Sizing is not
    /// recomputed on load: the array is what it is, and any such shape is safe to probe.)
    pub fn is_plausible(&self) -> bool {
        is_valid_target(self.entries, self.error)
            && (1..=MAX_HASHES).contains(&self.hashes)
            && self.blocks >= 1
            && self.blocks <= u64::MAX / BLOCK_BYTES
    }

    /// Where the item's block is: its segment, and its byte offset in that segment.
    /// Block `⌊a · blocks / 2⁶⁴⌋` (multiply-shift, no division); segments hold a power of two
    /// of blocks, so the split is a shift and a mask.
    pub fn locate(&self, hash: HashPair) -> (usize, usize) {
        let block = ((u128::from(hash.a) * u128::from(self.blocks)) >> 64) as u64;
        let segment = block / BLOCKS_PER_SEGMENT;
        let offset = (block % BLOCKS_PER_SEGMENT) * BLOCK_BYTES;
        (segment as usize, offset as usize)
    }

    /// The byte sizes of the segments holding `blocks` blocks: full ones, then the rest.
    pub fn segment_lengths(&self) -> impl Iterator<Item = u64> {
        let total = self.bytes();
        (0..total.div_ceil(SEGMENT_BYTES))
            .map(move |i| (total - i * SEGMENT_BYTES).min(SEGMENT_BYTES))
    }

    /// True when every bit of `hash` is set in its 64-byte `block`.
    pub fn block_contains(&self, block: &[u8], hash: HashPair) -> bool {
        positions(hash, self.hashes).all(|p| bits::is_set(block, p as usize))
    }

    /// Sets every bit of `hash` in its 64-byte `block`; true when at least one was new.
    pub fn block_insert(&self, block: &mut [u8], hash: HashPair) -> bool {
        let mut any_new = false;
        for p in positions(hash, self.hashes) {
            any_new |= bits::set(block, p as usize);
        }
        any_new
    }
}

/// The k bit positions (0..512) of an item within its block, from the low hash word.
fn positions(hash: HashPair, hashes: u32) -> impl Iterator<Item = u32> {
    let mut word = hash.b;
    (0..hashes).map(move |j| {
        if j > 0 && j % POSITIONS_PER_WORD == 0 {
            word = splitmix64_mix(hash.b.wrapping_add(u64::from(j)));
        }
        let position = (word % u64::from(BLOCK_BITS)) as u32;
        word /= u64::from(BLOCK_BITS);
        position
    })
}

/// The false-positive rate of blocks holding on average `load` items, with k bits per item.
pub fn false_positive_rate(load: f64, hashes: u32) -> f64 {
    // P(a given bit is still clear after one item) = 1 − 1/512, k bits per item.
    let clear_per_item = (1.0 - 1.0 / f64::from(BLOCK_BITS)).powi(hashes as i32);
    let last = (load + 15.0 * load.sqrt() + 30.0).ceil() as u32;
    let mut poisson = (-load).exp(); // Pois(0; λ)
    let mut clear = 1.0f64; // P(bit clear) with i items in the block
    let mut rate = 0.0;
    for i in 0..=last {
        // Past the mode the Poisson weights only shrink, and each term is at most its weight:
        // once a weight is under a quarter of the sum's unit in the last place, no later term
        // can change the sum, so stopping there gives the very same bits.
        if f64::from(i) > load && poisson < rate * f64::EPSILON / 4.0 {
            break;
        }
        rate += poisson * (1.0f64 - clear).powi(hashes as i32);
        poisson *= load / f64::from(i + 1);
        clear *= clear_per_item;
    }
    rate
}

/// The k (1 to [`MAX_HASHES`]) allowing the largest load per block at `error`, and that load;
/// of equal loads, the larger k.
///
/// Each [`max_load`] is a 64-step bisection, so trying every k costs about a millisecond —
/// paid by every fast-layout link created, loaded or received as a SCANDUMP header. Since the
/// rate grows with the load, a k whose rate at the best load so far exceeds `error` allows
/// less than that load and cannot win: one evaluation rules it out. The best k is near
/// `log2(1 / error)`, so that one is bisected first; the rest are mostly ruled out.
fn best_hashes_and_load(error: f64) -> (u32, f64) {
    let guess = (-error.log2()).round().clamp(1.0, f64::from(MAX_HASHES)) as u32;
    let guessed = max_load(guess, error);
    let mut best = (1, f64::NEG_INFINITY);
    for k in 1..=MAX_HASHES {
        let load = if k == guess {
            guessed
        } else if false_positive_rate(guessed.max(best.1), k) > error {
            continue;
        } else {
            max_load(k, error)
        };
        if load >= best.1 {
            best = (k, load);
        }
    }
    best
}

/// The largest average load per block keeping the rate within `error` with k bits per item.
fn max_load(hashes: u32, error: f64) -> f64 {
    let (mut low, mut high) = (0.0f64, f64::from(BLOCK_BITS));
    if false_positive_rate(high, hashes) <= error {
        return high;
    }
    for _ in 0..64 {
        let mid = (low + high) / 2.0;
        if false_positive_rate(mid, hashes) <= error {
            low = mid;
        } else {
            high = mid;
        }
    }
    low
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bf::assert_false_positive_rate_near;
    use crate::core::hash::{HashKind, HashPair};

    /// Test helpers over one flat array (one segment: these filters are small).
    fn contains(b: &Blocked, bytes: &[u8], hash: HashPair) -> bool {
        let (segment, offset) = b.locate(hash);
        assert_eq!(segment, 0);
        b.block_contains(&bytes[offset..offset + 64], hash)
    }
    fn insert(b: &Blocked, bytes: &mut [u8], hash: HashPair) -> bool {
        let (segment, offset) = b.locate(hash);
        assert_eq!(segment, 0);
        b.block_insert(&mut bytes[offset..offset + 64], hash)
    }

    #[test]
    fn ruling_out_hashes_finds_what_trying_every_one_finds() {
        let every_k = |error: f64| {
            (1..=MAX_HASHES)
                .map(|k| (k, max_load(k, error)))
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap()
        };
        // Error rates from 0.99 down to 1e-15, 24 per decade.
        for step in 0..=360 {
            let error = 0.99 * 10f64.powf(-f64::from(step) / 24.0);
            let (k, load) = best_hashes_and_load(error);
            let (every, every_load) = every_k(error);
            assert_eq!(
                (k, load.to_bits()),
                (every, every_load.to_bits()),
                "{error}"
            );
        }
    }

    #[test]
    fn sizing_meets_the_memory_targets() {
        // bits per item of a filter at capacity: ≤ 10.0 at 1%, ≤ 15.5 at 0.1% (blocked-512 needs
        // 9.90 and 15.49 by the same formula).
        for (error, most) in [(0.01, 10.0), (0.001, 15.5)] {
            let b = Blocked::new(1_000_000, error).unwrap();
            let bits_per_item = (b.blocks * 512) as f64 / 1e6;
            assert!(
                bits_per_item <= most,
                "{bits_per_item} bits/item at {error}"
            );
            assert!(
                bits_per_item >= 9.5,
                "{bits_per_item} is below what any Bloom filter can do"
            );
            assert!(false_positive_rate(1e6 / b.blocks as f64, b.hashes) <= error);
        }
    }

    #[test]
    fn rate_formula_agrees_with_published_values() {
        // Boost.Bloom's measured tables (doc/bloom/benchmarks.adoc, `block<…>` rows) and its
        // fpr_estimation.adoc formula: blocked-512 at 9.585 bits/key ≈ 1.141%, at
        // 14.378 ≈ 0.154% (integer-optimal k).
        let best = |bits_per_key: f64| {
            (1..=16)
                .map(|k| false_positive_rate(512.0 / bits_per_key, k))
                .fold(1.0, f64::min)
        };
        assert!((best(9.585) - 0.01141).abs() < 0.0002, "{}", best(9.585));
        assert!((best(14.378) - 0.00154).abs() < 0.00003, "{}", best(14.378));
    }

    #[test]
    fn measured_rate_is_within_ten_percent_of_configured() {
        for error in [0.01, 0.001] {
            let n = 200_000u64;
            let b = Blocked::new(n, error).unwrap();
            let mut bytes = vec![0u8; b.bytes() as usize];
            for i in 0..n {
                insert(
                    &b,
                    &mut bytes,
                    HashPair::of(format!("member:{i}").as_bytes(), HashKind::Xxh3),
                );
            }
            for i in 0..n {
                assert!(contains(
                    &b,
                    &bytes,
                    HashPair::of(format!("member:{i}").as_bytes(), HashKind::Xxh3)
                ));
            }
            assert_false_positive_rate_near(error, 2_000_000, |item| {
                contains(&b, &bytes, HashPair::of(item, HashKind::Xxh3))
            });
        }
    }

    #[test]
    fn every_probe_stays_in_one_block() {
        let b = Blocked {
            entries: 10,
            error: 0.01,
            hashes: 16,
            blocks: 3,
        };
        for i in 0..1000u32 {
            let mut bytes = vec![0u8; b.bytes() as usize];
            insert(
                &b,
                &mut bytes,
                HashPair::of(&i.to_le_bytes(), HashKind::Xxh3),
            );
            let touched: Vec<usize> = bytes
                .chunks(64)
                .enumerate()
                .filter(|(_, c)| c.iter().any(|&x| x != 0))
                .map(|(i, _)| i)
                .collect();
            assert_eq!(touched.len(), 1);
        }
    }

    #[test]
    fn segments_split_blocks_on_power_of_two_boundaries() {
        let b = Blocked {
            entries: 1,
            error: 0.01,
            hashes: 7,
            blocks: BLOCKS_PER_SEGMENT * 2 + 3,
        };
        let lengths: Vec<u64> = b.segment_lengths().collect();
        assert_eq!(lengths, [SEGMENT_BYTES, SEGMENT_BYTES, 3 * 64]);
        let last = HashPair { a: u64::MAX, b: 0 };
        assert_eq!(b.locate(last), (2, 2 * 64));
        assert_eq!(b.locate(HashPair { a: 0, b: 0 }), (0, 0));
    }

    #[test]
    fn rejects_what_cannot_be_built() {
        for (entries, error) in [(0, 0.01), (1, 0.0), (1, 1.0), (1, f64::NAN)] {
            assert_eq!(Blocked::new(entries, error), Err(Error::InvalidParameters));
        }
        assert!(!Blocked {
            entries: 1,
            error: 0.01,
            hashes: 17,
            blocks: 1
        }
        .is_plausible());
        assert!(!Blocked {
            entries: 1,
            error: 0.01,
            hashes: 4,
            blocks: 0
        }
        .is_plausible());
    }
}
