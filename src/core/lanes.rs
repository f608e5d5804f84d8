//! MurmurHash2 of one item under many seeds in one pass: the rows of a Count-Min sketch and of
//! a Top-K, which RedisBloom hashes once per row seeded with the row's index (`CMS_IncrBy`,
//! `TopK_Add`), and Top-K's fingerprint beside them.
//!
//! A word's mix does not depend on the seed, so it is made once for every seed; each seed's
//! running hash then costs one multiply and one xor a word. Those running hashes are lanes,
//! and a pass runs only the lanes asked for: a depth-3 sketch pays for three.
//!
//! Where the processor has a vector unit, a pass of more than eight lanes runs in its
//! registers: AVX2 multiplies eight 32-bit lanes in one instruction, AVX-512 sixteen. Up to
//! eight, the scalar lanes cost what one vector pass does, with its call and its result's trip
//! through memory, so the scalar path runs them (bench/README.md, "Row hashes on the vector
//! unit"). The kernels ([`x86`]) are the scalar path's Rust built with `#[target_feature]`,
//! which the compiler vectorises. Calling one is sound only on a processor that has those
//! instructions, so the core never calls one itself: the glue checks the processor at load and
//! hands over a safe function that calls the kernel ([`use_kernel`]; fixed at load, as the
//! prefetch of `core::batch` is). Every path gives the same hashes.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::OnceLock;

use super::hash::murmur2_32_seeds;

/// The most seeds one pass hashes: the 32-bit lanes of an AVX-512 register.
pub const MAX_LANES: usize = 16;
/// The most lanes the scalar path runs in one pass over the item: eight running hashes, the
/// item's word and its pointers fill the general registers.
const SCALAR_LANES: usize = 8;

/// One value per lane.
pub type Lanes = [u32; MAX_LANES];

/// A vector path: MurmurHash2 of `data` under each of `seeds`, all sixteen in one pass.
pub type Kernel = fn(data: &[u8], seeds: &Lanes) -> Lanes;

/// The vector path the glue found on this processor, once per process.
static VECTOR_KERNEL: OnceLock<Kernel> = OnceLock::new();
/// Whether the vector path runs (`bf-vector-hashing`, read at every load).
static VECTOR_ON: AtomicBool = AtomicBool::new(false);

/// Makes `kernel` the path of every pass from now on, or the scalar path for `None`; called by
/// the glue at load. A process has one processor, so the first kernel given stays.
pub fn use_kernel(kernel: Option<Kernel>) {
    if let Some(kernel) = kernel {
        // A second load in the same process finds the same processor's kernel there.
        let _ = VECTOR_KERNEL.set(kernel);
    }
    VECTOR_ON.store(kernel.is_some(), Relaxed);
}

/// Calls `f` with each lane of `0..len` (at most [`MAX_LANES`]) and MurmurHash2 of `data` under
/// that lane's seed: on the vector path the glue chose for more than eight lanes, else scalar.
///
/// The hashes reach `f` without a round trip through memory on the scalar path: each pass's
/// hashes come back in registers. An array of them, written lane by lane and then copied whole,
/// is a wide load of narrow stores, which store forwarding cannot serve; it cost 10 ns an item
/// on AMD Zen 4, as much as the three hashes of a depth-3 sketch.
#[inline]
pub fn for_each_lane(data: &[u8], seeds: &Lanes, len: usize, mut f: impl FnMut(usize, u32)) {
    if len > SCALAR_LANES && VECTOR_ON.load(Relaxed) {
        if let Some(kernel) = VECTOR_KERNEL.get() {
            let hashes = kernel(data, seeds);
            for (lane, &hash) in hashes.iter().take(len).enumerate() {
                f(lane, hash);
            }
            return;
        }
    }
    scalar_lanes(data, seeds, len, f);
}

/// [`for_each_lane`] for a caller that hashes each item in one pass (Top-K: its fingerprint
/// and rows): one to eight lanes take a single scalar pass with no loop over passes around it,
/// 9 ns a `TopK::add` less at depth 3. Not inside `for_each_lane` itself: the Count-Min
/// sketch's deep passes go through that, and with it there the compiler laid out the sketch's
/// increment so that it lost 8 ns an item at depth 7 (bench/README.md).
#[inline]
pub fn for_each_lane_in_one_pass(
    data: &[u8],
    seeds: &Lanes,
    len: usize,
    f: impl FnMut(usize, u32),
) {
    if (1..=SCALAR_LANES).contains(&len) {
        scalar_pass_of(len, data, seeds, f);
    } else {
        for_each_lane(data, seeds, len, f);
    }
}

/// The seeds of rows 0–15, every sketch's first pass: a constant, so that a kernel's vector
/// load reads memory no recent store wrote. Built per call, the array was stored in halves and
/// loaded whole, which store forwarding cannot serve: 12 ns an item on AMD Zen 4, three times
/// the hashing itself.
const FIRST_ROWS: Lanes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

/// Calls `f` with each row of `0..depth` and the hash of `data` seeded with the row's index
/// (cut to 32 bits, as C passes it), [`MAX_LANES`] rows a pass.
///
/// A sketch of at most eight rows (`CMS.INITBYPROB` makes 7 for a probability of 0.01) takes
/// one scalar pass with nothing around it. Through the loop over passes below, setting up for
/// a later pass and for the vector path cost about 80 instructions and 3 ns an item at depths
/// 1–7 (AMD Zen 4), a sixth of `CMS.INCRBY`'s work on the core at depth 3. With the loop out of
/// line, deeper sketches lost more than that, so it stays inline.
#[inline]
pub fn for_each_row(data: &[u8], depth: u64, mut f: impl FnMut(u64, u32)) {
    if depth <= SCALAR_LANES as u64 {
        scalar_lanes(data, &FIRST_ROWS, depth as usize, |lane, hash| {
            f(lane as u64, hash)
        });
        return;
    }
    let mut first = 0u64;
    while first < depth {
        let len = (depth - first).min(MAX_LANES as u64) as usize;
        let later_rows: Lanes;
        let seeds = if first == 0 {
            &FIRST_ROWS
        } else {
            later_rows = std::array::from_fn(|lane| (first as u32).wrapping_add(lane as u32));
            &later_rows
        };
        for_each_lane(data, seeds, len, |lane, hash| f(first + lane as u64, hash));
        first += MAX_LANES as u64;
    }
}

/// The scalar path, as an array: lanes `0..len` hashed, the others 0. What the vector kernels
/// are tested against.
#[cfg(test)]
pub(crate) fn scalar(data: &[u8], seeds: &Lanes, len: usize) -> Lanes {
    let mut hashes = [0; MAX_LANES];
    scalar_lanes(data, seeds, len, |lane, hash| {
        if let Some(out) = hashes.get_mut(lane) {
            *out = hash;
        }
    });
    hashes
}

/// The scalar path: exactly `len` lanes, eight at most a pass over the item.
#[inline(always)]
fn scalar_lanes(data: &[u8], seeds: &Lanes, len: usize, mut f: impl FnMut(usize, u32)) {
    let mut done = 0;
    while done < len.min(MAX_LANES) {
        let Some(seeds) = seeds.get(done..) else {
            break;
        };
        let lanes = (len - done).min(SCALAR_LANES);
        scalar_pass_of(lanes, data, seeds, |lane: usize, hash| f(done + lane, hash));
        done += lanes;
    }
}

/// One scalar pass of `lanes` (1 to [`SCALAR_LANES`]) lanes, the first of `seeds`.
#[inline(always)]
fn scalar_pass_of(lanes: usize, data: &[u8], seeds: &[u32], f: impl FnMut(usize, u32)) {
    match lanes {
        1 => scalar_pass::<1>(data, seeds, f),
        2 => scalar_pass::<2>(data, seeds, f),
        3 => scalar_pass::<3>(data, seeds, f),
        4 => scalar_pass::<4>(data, seeds, f),
        5 => scalar_pass::<5>(data, seeds, f),
        6 => scalar_pass::<6>(data, seeds, f),
        7 => scalar_pass::<7>(data, seeds, f),
        _ => scalar_pass::<SCALAR_LANES>(data, seeds, f),
    }
}

/// One scalar pass of `N` lanes, the first `N` of `seeds`.
#[inline(always)]
fn scalar_pass<const N: usize>(data: &[u8], seeds: &[u32], mut f: impl FnMut(usize, u32)) {
    if let Some(seeds) = seeds.first_chunk::<N>() {
        for (lane, hash) in murmur2_32_seeds(data, *seeds).into_iter().enumerate() {
            f(lane, hash);
        }
    }
}

/// The kernels for x86-64's vector units: sixteen lanes of the scalar path's pass, built for
/// AVX2 (two registers) and AVX-512 (one). Safe to call only where the processor has the
/// instructions: the glue checks before it hands one to [`use_kernel`].
#[cfg(target_arch = "x86_64")]
pub mod x86 {
    use super::{murmur2_32_seeds, Lanes};

    /// Sixteen lanes in two AVX2 registers.
    ///
    /// # Safety
    /// Only where the processor has AVX2 (`is_x86_feature_detected!("avx2")`).
    #[target_feature(enable = "avx2")]
    pub fn avx2(data: &[u8], seeds: &Lanes) -> Lanes {
        murmur2_32_seeds(data, *seeds)
    }

    /// Sixteen lanes in one AVX-512 register.
    ///
    /// # Safety
    /// Only where the processor has AVX-512F (`is_x86_feature_detected!("avx512f")`).
    #[target_feature(enable = "avx512f")]
    pub fn avx512(data: &[u8], seeds: &Lanes) -> Lanes {
        murmur2_32_seeds(data, *seeds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::hash::tests::murmur2_32_bytewise;

    #[test]
    fn the_scalar_path_runs_the_lanes_asked_for() {
        let data: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(97) ^ 13).collect();
        for n in 0..data.len() {
            let item = &data[..n];
            for first in [0u32, 7, 1919, u32::MAX - 3] {
                let seeds = std::array::from_fn(|lane| first.wrapping_add(lane as u32));
                for len in 0..=MAX_LANES {
                    let hashes = scalar(item, &seeds, len);
                    for (lane, (&hash, &seed)) in hashes.iter().zip(&seeds).enumerate() {
                        let expected = if lane < len {
                            murmur2_32_bytewise(item, seed)
                        } else {
                            0
                        };
                        assert_eq!(hash, expected, "length {n}, seed {seed}, {len} lanes");
                    }
                }
            }
        }
    }

    #[test]
    fn one_pass_gives_every_lane_asked_for() {
        let seeds: Lanes = std::array::from_fn(|lane| 1919u32.wrapping_mul(lane as u32 + 1));
        for n in [0, 1, 3, 4, 7, 12, 40] {
            let item: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(31) ^ 5).collect();
            for len in 0..=MAX_LANES {
                let mut lanes = Vec::new();
                for_each_lane_in_one_pass(&item, &seeds, len, |lane, hash| {
                    lanes.push((lane, hash))
                });
                let expected: Vec<_> = (0..len)
                    .map(|lane| (lane, murmur2_32_bytewise(&item, seeds[lane])))
                    .collect();
                assert_eq!(lanes, expected, "length {n}, {len} lanes");
            }
        }
    }

    #[test]
    fn rows_are_seeded_with_their_index() {
        for depth in [0u64, 1, 3, 16, 17, 40] {
            let mut rows = Vec::new();
            for_each_row(b"item", depth, |row, hash| rows.push((row, hash)));
            let expected: Vec<_> = (0..depth)
                .map(|row| (row, murmur2_32_bytewise(b"item", row as u32)))
                .collect();
            assert_eq!(rows, expected, "depth {depth}");
        }
    }
}
