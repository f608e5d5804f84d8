//! redis-bf: Bloom-filter (`BF.*`) and Cuckoo-filter (`CF.*`) commands for Redis and Valkey,
//! wire- and RDB-compatible with RedisBloom.
//!
//! Three layers, dependencies pointing one way: [`core`] (the filter, pure Rust) ←
//! `commands` (parse, call the core, build the reply) ← `glue` (the server API, all `unsafe`).

#[cfg_attr(test, allow(dead_code))]
mod commands;
pub mod core;
#[cfg(not(test))]
mod glue;

// Unit tests run without a server, so the module (its entry point, `RedisModule_OnLoad` in
// `glue/load.rs`, and its server-backed allocator) exists only outside them.
#[cfg(not(test))]
#[global_allocator]
static ALLOCATOR: glue::alloc::BloomAlloc = glue::alloc::BloomAlloc;
