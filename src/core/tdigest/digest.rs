//! The digest stored under a t-digest key, as t-digest-c's `td_histogram` (`src/tdigest.c`,
//! `src/tdigest.h` at the commit RedisBloom 2.8.2 pins): creation, reset, adding, merging and the
//! compression that turns the buffer into centroids, with the arithmetic in RedisBloom's order.
//!
//! # Invariants
//!
//! Every constructor checks these, and every method keeps them:
//!
//! 1. `compression` is a whole number from 1 to [`MAX_COMPRESSION`] and `cap` is
//!    `6 · compression + 10` (so it fits RedisBloom's `int`);
//! 2. the node arrays hold `merged + unmerged ≤ cap` nodes and have room for `cap` (views
//!    excepted: they are never added to), so an add never reallocates;
//! 3. every weight, `merged_weight` and `unmerged_weight` is ≥ 0, the weights' sum fits an
//!    `i64`, and `merged_weight + unmerged_weight`, each converted to a double and added, stays
//!    below 2⁶³ — the double the compression converts back (RedisBloom would wrap it
//!    negative). Below 2⁵³ the weights add up to the totals; past it the totals are rounded
//!    double sums, as RedisBloom keeps them, and the weights may add up to more (`rdb::load`);
//! 4. `min`, `max` and every mean are finite.
//!
//! Only the last two depart from RedisBloom, and only where RedisBloom corrupts the digest.

use std::f64::consts::PI;

use super::sort::sort;
use crate::core::relocate::{Mover, Relocate};
use crate::core::{try_vec, Error, Memory};

/// A failure of adding values, or another digest's centroids (an add or a merge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddError {
    /// A weight sum would overflow, or the buffer is full even after compressing: RedisBloom's
    /// `overflow detected`.
    Overflow,
    /// A value that is NaN or infinite (the command refuses those before adding anything).
    NotFinite,
}

/// The largest compression: `6 · c + 10` must fit RedisBloom's `int` capacity, which wraps
/// negative from 357 913 940 on and leaves a key that refuses every add.
pub const MAX_COMPRESSION: i64 = (i32::MAX as i64 - 10) / 6;
/// `sizeof(td_histogram_t)` on 64-bit machines, which RedisBloom 8 counts in `MEMORY USAGE`.
const STRUCT_BYTES: u64 = 80;
/// 2⁶³ as a double: the first total the conversion back to `long long` cannot hold.
pub(super) const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
/// Up to this many observations a digest counts exactly (`size`, `TDIGEST.INFO`'s
/// `Observations`). RedisBloom's compression adds the two weights as doubles and keeps their sum
/// (`td_compress`), and its format saves both weights as doubles, so past 2⁵³ the count moves
/// by a double's rounding at each compression, in its files as in its memory.
pub const EXACT_SIZE: i64 = 1 << 53;

/// A t-digest: merged centroids, sorted by mean, followed by a buffer of unmerged ones.
#[derive(Debug, PartialEq)]
pub struct TDigest {
    pub(super) compression: f64,
    pub(super) min: f64,
    pub(super) max: f64,
    pub(super) cap: usize,
    /// How many of the nodes are merged centroids; the rest are the buffer.
    pub(super) merged: usize,
    pub(super) total_compressions: i64,
    pub(super) merged_weight: i64,
    pub(super) unmerged_weight: i64,
    pub(super) means: Vec<f64>,
    pub(super) weights: Vec<i64>,
}

/// What `TDIGEST.INFO` reports, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// `Compression`.
    pub compression: i64,
    /// `Capacity`: nodes the arrays hold, `6 · compression + 10`.
    pub capacity: i64,
    /// `Merged nodes`.
    pub merged_nodes: i64,
    /// `Unmerged nodes`.
    pub unmerged_nodes: i64,
    /// `Merged weight`.
    pub merged_weight: i64,
    /// `Unmerged weight`.
    pub unmerged_weight: i64,
    /// `Observations`: both weights.
    pub observations: i64,
    /// `Total compressions`.
    pub total_compressions: i64,
    /// `Memory usage`, as RedisBloom 8 counts it (2.8.2 reported 72 bytes less).
    pub memory_usage: u64,
}

/// `6 · compression + 10`, for a compression already range-checked.
pub(super) fn capacity(compression: i64) -> usize {
    usize::try_from(6 * compression + 10).unwrap_or(usize::MAX)
}

/// Bytes of a digest with `cap` nodes, as RedisBloom 8's `TDigestMemUsage` counts them.
pub(super) fn memory_usage(cap: usize) -> u64 {
    STRUCT_BYTES.saturating_add((cap as u64).saturating_mul(16))
}

/// Empty node arrays with room for `cap` nodes.
pub(super) fn node_arrays(cap: usize) -> Result<(Vec<f64>, Vec<i64>), Error> {
    Ok((try_vec(cap)?, try_vec(cap)?))
}

/// C's conversion of a double to `long long` on x86-64: truncation, and `i64::MIN` for NaN and
/// anything out of range (Rust's `as` saturates instead).
pub(super) fn c_long_long(x: f64) -> i64 {
    if x.is_nan() || !(-TWO_POW_63..TWO_POW_63).contains(&x) {
        i64::MIN
    } else {
        x as i64
    }
}

/// The mean of a centroid of mean `into` that absorbs `(mean, weight)`, `total` being the
/// absorbing centroid's weight afterwards: RedisBloom's arithmetic, in its order. Where that
/// overflows — means of opposite signs near ±1e308, whose difference is infinite — RedisBloom
/// stores ±inf or NaN and every later answer goes with it; there, and only there, the same
/// weighted mean is taken in a form that cannot overflow, kept between the two means.
fn absorbed_mean(into: f64, mean: f64, weight: i64, total: i64) -> f64 {
    let delta = mean - into;
    let exact = into + (delta * weight as f64) / total as f64;
    if exact.is_finite() {
        return exact;
    }
    if total == 0 {
        // Two weightless nodes (left by RedisBloom's reload of a one-value digest): 0/0.
        return into;
    }
    let (low, high) = if into < mean {
        (into, mean)
    } else {
        (mean, into)
    };
    let kept = (total - weight) as f64 / total as f64;
    let blended = into * kept + mean * (weight as f64 / total as f64);
    if blended < low {
        low
    } else if blended > high {
        high
    } else {
        blended
    }
}

impl Relocate for TDigest {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.means);
        mover.vector(&mut self.weights);
    }
}

impl TDigest {
    /// An empty digest (`TDIGEST.CREATE`, and the destination of `TDIGEST.MERGE`), its arrays
    /// checked against `memory` before they are allocated. `InvalidParameters` for a
    /// compression outside 1..=[`MAX_COMPRESSION`].
    pub fn new(compression: i64, memory: &Memory) -> Result<TDigest, Error> {
        if !(1..=MAX_COMPRESSION).contains(&compression) {
            return Err(Error::InvalidParameters);
        }
        let cap = capacity(compression);
        memory.check(memory_usage(cap))?;
        let (means, weights) = node_arrays(cap)?;
        Ok(TDigest {
            compression: compression as f64,
            min: f64::MAX,
            max: -f64::MAX,
            cap,
            merged: 0,
            total_compressions: 0,
            merged_weight: 0,
            unmerged_weight: 0,
            means,
            weights,
        })
    }

    /// Empties the digest (`TDIGEST.RESET`, t-digest-c's `td_reset`).
    pub fn reset(&mut self) {
        self.min = f64::MAX;
        self.max = -f64::MAX;
        self.merged = 0;
        self.means.clear();
        self.weights.clear();
        self.merged_weight = 0;
        self.unmerged_weight = 0;
        self.total_compressions = 0;
    }

    /// Adds one observation (`TDIGEST.ADD` adds its values one by one, keeping those before a
    /// failure). `NotFinite` for NaN or ±inf, which the command refuses before adding anything;
    /// `Overflow` as RedisBloom's `overflow detected`.
    pub fn add(&mut self, value: f64) -> Result<(), AddError> {
        if !value.is_finite() {
            return Err(AddError::NotFinite);
        }
        self.add_centroid(value, 1)
    }

    /// t-digest-c's `td_add`: compresses first when the buffer is full (`cap − 1` nodes), then
    /// appends the node, refusing what would overflow the weights.
    fn add_centroid(&mut self, mean: f64, weight: i64) -> Result<(), AddError> {
        if self.means.len() + 1 >= self.cap {
            self.compress();
        }
        // Room is checked against the reservation too, so that a push never reallocates.
        let position = self.means.len();
        if position >= self.cap || position >= self.means.capacity().min(self.weights.capacity()) {
            return Err(AddError::Overflow);
        }
        let unmerged_weight = self
            .unmerged_weight
            .checked_add(weight)
            .ok_or(AddError::Overflow)?;
        unmerged_weight
            .checked_add(self.merged_weight)
            .ok_or(AddError::Overflow)?;
        if unmerged_weight as f64 + self.merged_weight as f64 >= TWO_POW_63 {
            return Err(AddError::Overflow);
        }
        if mean < self.min {
            self.min = mean;
        }
        if mean > self.max {
            self.max = mean;
        }
        self.means.push(mean);
        self.weights.push(weight);
        self.unmerged_weight = unmerged_weight;
        Ok(())
    }

    /// t-digest-c's `td_merge(self, source)`, one source of `TDIGEST.MERGE`: compresses both
    /// digests in place (as RedisBloom does to its source keys; MERGE is replicated, so replicas
    /// do the same), then adds the source's nodes with their weights, in array order.
    pub fn merge_from(&mut self, source: &mut TDigest) -> Result<(), AddError> {
        self.compress();
        source.compress();
        for (&mean, &weight) in source.means.iter().zip(&source.weights) {
            self.add_centroid(mean, weight)?;
        }
        Ok(())
    }

    /// Sorts the buffer into the centroids and merges neighbours while the scale allows
    /// (t-digest-c's `td_compress`). Nothing happens without a buffer. With a total weight of
    /// at most 1 RedisBloom only sorts: its single observation stays in the buffer.
    pub fn compress(&mut self) {
        if self.merged == self.means.len() {
            return;
        }
        sort(&mut self.means, &mut self.weights);
        // Both weights are below 2⁶³, so none of RedisBloom's infinity checks can fire.
        let total = self.merged_weight as f64 + self.unmerged_weight as f64;
        if total <= 1.0 {
            return;
        }
        let normalizer = self.compression / (2.0 * PI * total * total.ln());
        let mut current = 0;
        let mut weight_so_far = 0.0;
        for i in 1..self.means.len() {
            let (Some(&current_weight), Some(&weight), Some(&current_mean), Some(&mean)) = (
                self.weights.get(current),
                self.weights.get(i),
                self.means.get(current),
                self.means.get(i),
            ) else {
                break;
            };
            let proposed = current_weight as f64 + weight as f64;
            let z = proposed * normalizer;
            let q0 = weight_so_far / total;
            let q2 = (weight_so_far + proposed) / total;
            let (slot_weight, slot_mean) = if z <= q0 * (1.0 - q0) && z <= q2 * (1.0 - q2) {
                // Below 2⁵³ the weights add up to at most the total; past it the total is a
                // rounded double sum and a file's weights may pass it (`rdb::load`), so the sum
                // saturates rather than wrap.
                let merged = current_weight.saturating_add(weight);
                (merged, absorbed_mean(current_mean, mean, weight, merged))
            } else {
                weight_so_far += current_weight as f64;
                current += 1;
                (weight, mean)
            };
            if let (Some(w), Some(m)) = (self.weights.get_mut(current), self.means.get_mut(current))
            {
                *w = slot_weight;
                *m = slot_mean;
            }
        }
        // RedisBloom zeroes the slots after the centroids; they are never read again.
        self.means.truncate(current + 1);
        self.weights.truncate(current + 1);
        self.merged = self.means.len();
        self.merged_weight = c_long_long(total);
        self.unmerged_weight = 0;
        self.total_compressions = self.total_compressions.wrapping_add(1);
    }

    /// Whether the buffer holds nodes.
    pub fn has_buffer(&self) -> bool {
        self.merged < self.means.len()
    }

    /// Whether [`compress`](TDigest::compress) would change anything: a buffer, unless it is
    /// a lone node that a total weight of at most 1 leaves where it is (RedisBloom's single
    /// observation, which its compression only sorts).
    pub fn compress_changes(&self) -> bool {
        self.has_buffer() && (self.size() > 1 || self.means.len() > 1)
    }

    /// An independent copy (`COPY`), with room for `cap` nodes as every digest has, or
    /// `OutOfMemory`.
    pub fn try_clone(&self) -> Result<TDigest, Error> {
        let (mut means, mut weights) = node_arrays(self.cap)?;
        means.extend_from_slice(&self.means);
        weights.extend_from_slice(&self.weights);
        Ok(TDigest {
            means,
            weights,
            ..*self
        })
    }

    /// The compression, as `TDIGEST.MERGE` compares it and `TDIGEST.INFO` shows it.
    pub fn compression(&self) -> i64 {
        self.compression as i64
    }

    /// Observations: both weights (`td_size`).
    pub fn size(&self) -> i64 {
        self.merged_weight.wrapping_add(self.unmerged_weight)
    }

    /// Bytes, as RedisBloom 8 counts them for `MEMORY USAGE` and `TDIGEST.INFO`.
    pub fn memory_usage(&self) -> u64 {
        memory_usage(self.cap)
    }

    /// The nodes as held: the centroids, then the buffer, means and weights (for a digest of
    /// the whole state, as DEBUG DIGEST takes one).
    pub fn nodes(&self) -> (&[f64], &[i64]) {
        (&self.means, &self.weights)
    }

    /// The smallest and largest values added, as held (`f64::MAX` and `-f64::MAX` when
    /// empty, where [`min`](TDigest::min) and [`max`](TDigest::max) answer NaN).
    pub fn extremes(&self) -> (f64, f64) {
        (self.min, self.max)
    }

    /// `TDIGEST.INFO`'s fields, as they are (INFO does not compress).
    pub fn info(&self) -> Info {
        let unmerged_nodes = self.means.len() - self.merged;
        Info {
            compression: self.compression(),
            capacity: self.cap as i64,
            merged_nodes: self.merged as i64,
            unmerged_nodes: unmerged_nodes as i64,
            merged_weight: self.merged_weight,
            unmerged_weight: self.unmerged_weight,
            observations: self.size(),
            total_compressions: self.total_compressions,
            memory_usage: self.memory_usage(),
        }
    }
}

/// The compression of `TDIGEST.MERGE`'s new digest: the one given; else, with OVERRIDE or
/// without a destination, the largest of the sources' (`sources`, in any order, the old
/// destination included when it is named as a source); else the old destination's.
pub fn merge_compression(
    given: Option<i64>,
    overriding: bool,
    destination: Option<&TDigest>,
    sources: impl IntoIterator<Item = i64>,
) -> i64 {
    match (given, destination) {
        (Some(compression), _) => compression,
        (None, Some(old)) if !overriding => old.compression(),
        _ => sources.into_iter().fold(0, i64::max),
    }
}
