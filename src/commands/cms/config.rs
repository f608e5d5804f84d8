//! `cms-rdb-encoding`: which encoding of `CMSk-TYPE` the module writes, fixed when it loads.
//! `1` (the default) is RedisBloom's as Redis 8.12 ships it, which holds every cell size;
//! `0` is the one RedisBloom before 8.12 reads (four-byte cells only), the way back for a
//! user who tries redis-bf on an older server: while it is set, `CELL_SIZE` other than 4 is
//! refused and sketches loaded with other cell sizes are widened to four bytes. Both load
//! either way. A data type's encoding is registered with the server when the module loads, so
//! this cannot change later (CONFIG SET refuses it).

use super::errors;
use crate::commands::setting::Setting;
use crate::core::cms::rdb::{ENCODING_VERSION, LEGACY_ENCODING_VERSION};

pub static RDB_ENCODING: Setting = Setting::new(
    c"cms-rdb-encoding",
    None,
    |text| match text {
        b"0" => Ok(LEGACY_ENCODING_VERSION as u64),
        b"1" => Ok(ENCODING_VERSION as u64),
        _ => Err(errors::CONFIG_RDB_ENCODING),
    },
    |n| n.to_string(),
    ENCODING_VERSION as u64,
)
.at_load_only();

/// The family's settings.
pub static SETTINGS: &[&Setting] = &[&RDB_ENCODING];

/// The encoding version the data type writes.
pub fn rdb_encoding() -> i32 {
    if RDB_ENCODING.get() == LEGACY_ENCODING_VERSION as u64 {
        LEGACY_ENCODING_VERSION
    } else {
        ENCODING_VERSION
    }
}

/// Whether sketches are held as RedisBloom before 8.12 holds them: four-byte cells only.
pub fn legacy_cells() -> bool {
    rdb_encoding() == LEGACY_ENCODING_VERSION
}
