//! redis-bf: Bloom-filter (`BF.*`) and Cuckoo-filter (`CF.*`) commands for Redis and Valkey,
//! wire- and RDB-compatible with RedisBloom.
//!
//! Three layers, dependencies pointing one way: [`core`] (the filter, pure Rust) ←
//! `commands` (parse, call the core, build the reply) ← `glue` (the server API, all `unsafe`).

#[cfg_attr(any(test, fuzzing), allow(dead_code))]
mod commands;
pub mod core;
#[cfg(not(any(test, fuzzing)))]
mod glue;

#[cfg(not(any(test, fuzzing)))]
use glue::{
    bloom_type::{BLOOM_TYPE, FAST_TYPE},
    cuckoo_type::CUCKOO_TYPE,
    init,
};

// Unit tests and fuzz targets run without a server, so the module (and its server-backed
// allocator) exists only outside them.
#[cfg(not(any(test, fuzzing)))]
redis_module::redis_module! {
    name: "bf",
    version: 100,
    allocator: (glue::alloc::BloomAlloc, glue::alloc::BloomAlloc),
    data_types: [BLOOM_TYPE, FAST_TYPE, CUCKOO_TYPE],
    init: init,
}

/// What the fuzz targets (`fuzz/`) reach besides the core: the argument parsers, which are
/// pure functions of the argument bytes and the configuration. Built only with
/// `--cfg fuzzing`; never part of the module.
#[cfg(fuzzing)]
pub mod fuzzing {
    pub use crate::commands::args::{parse_double, parse_integer};
    pub use crate::commands::bf::{error_rate, integer_in, layout_named, Bad};
    pub use crate::commands::bf::{parse_insert, parse_reserve, Insert, Reserve};
    pub use crate::commands::bf::{CAPACITY, ERROR_RATE_CAP, EXPANSION};
    pub use crate::commands::errors::Failure;
}
