//! The two versions the module has, in one place. `MODULE LIST` shows, under RedisBloom's name
//! `bf`, the version of RedisBloom whose commands, replies and formats redis-bf reproduces,
//! encoded as RedisBloom encodes its own (major × 10000 + minor × 100 + patch): clients and
//! tools gate features on it (redis-py's tests enable t-digest checks from 2.4.0; a client that
//! sends `CELL_SIZE` may gate it on 8.12). redis-bf's
//! own version (Cargo.toml's) is in the load log line and in `INFO bf` (`bf_redis_bf_version`).

use std::ffi::CStr;
use std::os::raw::c_int;

/// The RedisBloom release redis-bf answers as (docs/differences.md lists what it changed since
/// 2.8.2, the release the differential tests run against).
const REDISBLOOM: (c_int, c_int, c_int) = (8, 12, 0);

/// The module version `MODULE LIST` shows: RedisBloom's, encoded as RedisBloom encodes it.
pub const MODULE_VERSION: c_int = REDISBLOOM.0 * 10000 + REDISBLOOM.1 * 100 + REDISBLOOM.2;

/// redis-bf's own version, Cargo.toml's.
pub const REDIS_BF: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("the package version holds a NUL"),
    };

/// The line the server log gets when the module has loaded.
pub fn loaded_line() -> String {
    format!(
        "redis-bf {} loaded, answering as RedisBloom {}.{}.{}",
        REDIS_BF.to_string_lossy(),
        REDISBLOOM.0,
        REDISBLOOM.1,
        REDISBLOOM.2
    )
}
