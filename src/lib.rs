//! redis-bf: Bloom-filter commands (`BF.*`) for Redis and Valkey, wire- and RDB-compatible
//! with RedisBloom.
//!
//! Three layers, dependencies pointing one way: [`core`] (the filter, pure Rust) ←
//! `commands` (parse, call the core, build the reply) ← `glue` (the server API, all `unsafe`).

#[cfg_attr(any(test, fuzzing), allow(dead_code))]
mod commands;
pub mod core;
#[cfg(not(any(test, fuzzing)))]
mod glue;

// Unit tests and fuzz targets run without a server, so the module (its entry point,
// `RedisModule_OnLoad` in `glue/load.rs`, and its server-backed allocator) exists only outside
// them.
#[cfg(not(any(test, fuzzing)))]
#[global_allocator]
static ALLOCATOR: glue::alloc::BloomAlloc = glue::alloc::BloomAlloc;

/// What the fuzz targets (`fuzz/`) reach besides the core: the argument parsers, which are
/// pure functions of the argument bytes and the configuration. Built only with
/// `--cfg fuzzing`; never part of the module.
#[cfg(fuzzing)]
pub mod fuzzing {
    pub use crate::commands::args::{parse_double, parse_integer};
    pub use crate::commands::bf::{error_rate, integer_in, layout_named, Bad};
    pub use crate::commands::bf::{parse_insert, parse_reserve, Insert, Reserve};
    pub use crate::commands::bf::{CAPACITY, ERROR_RATE_CAP, EXPANSION};
    pub mod cf {
        pub use crate::commands::cf::rules::{bucket_sizes, capacities, Defaults};
        pub use crate::commands::cf::rules::{EXPANSION, MAX_ITERATIONS};
        pub use crate::commands::cf::{parse_insert, parse_reserve, InsertArgs};
    }
    pub use crate::commands::errors::Failure;
}
