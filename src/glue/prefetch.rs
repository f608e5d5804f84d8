//! The processor's prefetch instruction, for the core's reads ahead (`core::batch`): the core
//! starts the reads of a batch's bytes before it checks any item, and with a prefetch those
//! reads do not hold the processor until they arrive (bench/README.md, "Reading ahead with the
//! prefetch instruction"). Safe Rust has no prefetch, so the glue, where `unsafe` lives, wraps
//! it in a safe function and hands that to the core at load. Elsewhere than x86-64 the core
//! reads the bytes instead.

#[cfg(target_arch = "x86_64")]
use crate::core::batch;

/// Hands the core the prefetch of this processor, if there is one. At load.
pub fn install() {
    #[cfg(target_arch = "x86_64")]
    batch::use_prefetch(prefetch);
}

/// Asks for the cache line of `bytes[offset]`, into every level of cache.
#[cfg(target_arch = "x86_64")]
fn prefetch(bytes: &[u8], offset: usize) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    // SAFETY: a prefetch is a hint: it reads nothing into a register, writes nothing and never
    // faults, whatever the address (`wrapping_add` only computes one). SSE, which has the
    // instruction, is part of every x86-64 processor.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().wrapping_add(offset).cast()) };
}
