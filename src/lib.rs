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

#[cfg(not(test))]
use glue::{
    bloom_type::{BLOOM_TYPE, FAST_TYPE},
    cuckoo_type::CUCKOO_TYPE,
    init,
};

// Unit tests run without a server, so the module (and its server-backed allocator) exists
// only outside them.
#[cfg(not(test))]
redis_module::redis_module! {
    name: "bf",
    version: 100,
    allocator: (glue::alloc::BloomAlloc, glue::alloc::BloomAlloc),
    data_types: [BLOOM_TYPE, FAST_TYPE, CUCKOO_TYPE],
    init: init,
}
