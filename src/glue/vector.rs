//! The vector unit for the sketches' row hashes (`core::lanes`): the widest kernel this
//! processor runs, chosen once at load, unless `bf-vector-hashing no` keeps the scalar path.
//!
//! A kernel is built for instructions the baseline x86-64 does not promise (AVX2, AVX-512),
//! so calling it is sound only on a processor that has them. This file asks the processor
//! (`is_x86_feature_detected!`, which reads CPUID once and caches it) and wraps the kernel it
//! can run in a safe function, which it hands to the core. Of the ways to dispatch at run time,
//! this is the one with no dependency: `std::arch` detection, and the core's plain Rust
//! vectorised by the compiler under `#[target_feature]` (ARCHITECTURE.md, "The vector unit").
//! On other architectures the scalar path runs; there the compiler vectorises it for the
//! baseline's own unit where it can (NEON is part of every aarch64). It imports nothing of the
//! glue, so that unit tests, which build no glue, build it alone (`lib.rs`).

use std::ffi::CStr;

use crate::core::lanes::{self, Kernel, Lanes};

/// The kernel this processor runs best, and its name in `INFO bf`.
fn widest() -> Option<(Kernel, &'static CStr)> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") {
            return Some((avx512, c"avx512"));
        }
        if std::is_x86_feature_detected!("avx2") {
            return Some((avx2, c"avx2"));
        }
    }
    None
}

/// The kernel in use: the widest, unless `enabled` (`bf-vector-hashing`) is false.
fn in_use(enabled: bool) -> Option<(Kernel, &'static CStr)> {
    widest().filter(|_| enabled)
}

/// Hands the core the kernel to use. At load, after the configs.
pub fn choose(enabled: bool) {
    lanes::use_kernel(in_use(enabled).map(|(kernel, _)| kernel));
}

/// `INFO bf`'s `vector_hashing`: the unit the row hashes of deep sketches run on, or `no`.
pub fn info(enabled: bool) -> &'static CStr {
    in_use(enabled).map_or(c"no", |(_, name)| name)
}

#[cfg(target_arch = "x86_64")]
fn avx2(data: &[u8], seeds: &Lanes) -> Lanes {
    // SAFETY: `widest` hands this function out only where the processor reports AVX2, the one
    // extension the kernel is built for.
    unsafe { lanes::x86::avx2(data, seeds) }
}

#[cfg(target_arch = "x86_64")]
fn avx512(data: &[u8], seeds: &Lanes) -> Lanes {
    // SAFETY: `widest` hands this function out only where the processor reports AVX-512F, the
    // extension the kernel is built for (AVX2 comes with it).
    unsafe { lanes::x86::avx512(data, seeds) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small random generator (SplitMix64), so that a failure names its inputs.
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(crate::core::hash::GOLDEN_GAMMA);
        crate::core::hash::splitmix64_mix(*state)
    }

    /// Every kernel the processor runs gives the scalar path's hashes: random items of every
    /// length 0–300, under the seeds of rows 0–15 and 16–31 and under random seeds.
    #[test]
    fn every_kernel_gives_the_scalar_hashes() {
        #[cfg(target_arch = "x86_64")]
        let kernels: Vec<(Kernel, &str)> = [
            (
                std::is_x86_feature_detected!("avx2"),
                avx2 as Kernel,
                "avx2",
            ),
            (std::is_x86_feature_detected!("avx512f"), avx512, "avx512"),
        ]
        .into_iter()
        .filter_map(|(has, kernel, name)| has.then_some((kernel, name)))
        .collect();
        #[cfg(not(target_arch = "x86_64"))]
        let kernels: Vec<(Kernel, &str)> = Vec::new();
        let mut state = 1;
        for length in 0..=300 {
            let item: Vec<u8> = (0..length).map(|_| next(&mut state) as u8).collect();
            let random: Lanes = std::array::from_fn(|_| next(&mut state) as u32);
            let rows = |first: u32| -> Lanes { std::array::from_fn(|lane| first + lane as u32) };
            for seeds in [rows(0), rows(16), random] {
                let expected = lanes::scalar(&item, &seeds, lanes::MAX_LANES);
                for &(kernel, name) in &kernels {
                    assert_eq!(
                        kernel(&item, &seeds),
                        expected,
                        "{name}: length {length}, seeds {seeds:?}"
                    );
                }
            }
        }
    }

    /// `bf-vector-hashing no` reports and runs the scalar path; `yes` the widest kernel. Either
    /// way, the rows of every depth 1–32 are the reference's, for items of lengths 0–300.
    #[test]
    fn the_setting_chooses_the_widest_kernel_or_none() {
        assert_eq!(info(false), c"no");
        let expected = match widest() {
            Some((_, name)) => name,
            None => c"no",
        };
        assert_eq!(info(true), expected);
        let mut state = 7;
        for enabled in [true, false] {
            choose(enabled);
            for length in (0..=300).step_by(7) {
                let item: Vec<u8> = (0..length).map(|_| next(&mut state) as u8).collect();
                for depth in 1..=32u64 {
                    let mut rows = Vec::new();
                    lanes::for_each_row(&item, depth, |row, hash| rows.push((row, hash)));
                    let reference: Vec<_> = (0..depth)
                        .map(|row| (row, crate::core::hash::murmur2_32(&item, row as u32)))
                        .collect();
                    assert_eq!(rows, reference, "length {length}, depth {depth}");
                }
            }
        }
    }
}
