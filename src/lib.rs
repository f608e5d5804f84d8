//! redis-bf: RedisBloom's probabilistic data structures for Redis and Valkey — Bloom filters
//! (`BF.*`), Cuckoo filters (`CF.*`), Count-Min sketches (`CMS.*`), Top-K (`TOPK.*`) and
//! t-digests (`TDIGEST.*`) — wire- and RDB-compatible with RedisBloom, and valkey-bloom's
//! Bloom filters too. Beyond them: Bloom filters, Count-Min sketches and Top-Ks that forget
//! (`WINDOW` by count, `TIMESPAN` by time), a Bloom layout that touches one cache line per item
//! (`LAYOUT FAST`), and clusters: merges routed by every key, atomic slot migration on Valkey.
//!
//! Three layers, dependencies pointing one way: [`core`] (the structures, pure Rust) ←
//! [`commands`] (parse, call the core, build the reply) ← `glue` (the server API, all
//! `unsafe`). Each family is a wing: its own folder in `core/` and `commands/`, its own file
//! in `glue/types/` (ARCHITECTURE.md).

#![deny(unsafe_code)]

pub mod commands;
pub mod core;
// The module itself: its entry point (`RedisModule_OnLoad` in `glue/load.rs`) and its
// server-backed allocator. Unit tests and fuzz targets run without a server, so it exists
// only outside them.
#[cfg(not(any(test, fuzzing)))]
#[allow(unsafe_code)]
mod glue;
/// The glue's vector dispatch, alone: unit tests build no glue (it needs a server), and its
/// kernels must be tested against the scalar path on every unit the machine has.
#[cfg(test)]
#[allow(unsafe_code)]
#[path = "glue/vector.rs"]
mod vector;

#[cfg(not(any(test, fuzzing)))]
#[global_allocator]
static ALLOCATOR: glue::alloc::ServerAllocator = glue::alloc::ServerAllocator;
