//! The settings that concern the whole module, all ours: `bf-memory-usage-limit`, the most memory
//! one value may hold, and `bf-huge-pages`, whether big bit arrays ask for transparent huge pages
//! (for arrays made or loaded afterwards), read by the glue's allocation paths; and
//! `bf-vector-hashing`, whether the sketches' row hashes use the vector unit. `config.rs` registers
//! them with the families' settings; this file imports nothing else of the glue but the server's
//! state, so whatever allocates may read it.

use redis_module::raw;

use super::server;
use crate::commands::args::parse_memory;
use crate::commands::errors;
use crate::commands::setting::{show_number, show_yes_or_no, yes_or_no, Setting};

/// The module's own settings, after the families' in every listing.
pub static MODULE_SETTINGS: [&Setting; 3] = [&MEMORY_LIMIT, &HUGE_PAGES, &VECTOR_HASHING];

/// Ours: whether bit arrays of 2 MiB or more ask for transparent huge pages (`huge_pages.rs`).
static HUGE_PAGES: Setting = Setting::new(
    c"bf-huge-pages",
    None,
    |text| yes_or_no(text, errors::CONFIG_BAD_HUGE_PAGES),
    show_yes_or_no,
    1,
);

/// Ours: whether the sketches' row hashes run on the processor's vector unit, where it has one
/// (`vector.rs`); `no` keeps the scalar path. Fixed at load: both give the same hashes, so it
/// only measures the one against the other, or sets aside a vector unit in doubt.
static VECTOR_HASHING: Setting = Setting::new(
    c"bf-vector-hashing",
    None,
    |text| yes_or_no(text, errors::CONFIG_BAD_VECTOR_HASHING),
    show_yes_or_no,
    1,
)
.at_load_only();

/// `bf-vector-hashing`.
pub fn vector_hashing() -> bool {
    VECTOR_HASHING.get() == 1
}

/// `bf-huge-pages`: whether big bit arrays are advised transparent huge pages.
pub fn huge_pages() -> bool {
    HUGE_PAGES.get() == 1
}

/// Ours: the most bytes one value (of any family) may hold, as `MEMORY USAGE` counts them; 0
/// (the default) for no limit but the machine's memory. Checked before anything is
/// allocated, when a value is created and before it grows.
static MEMORY_LIMIT: Setting = Setting::new(
    c"bf-memory-usage-limit",
    None,
    |text| parse_memory(text).ok_or(errors::CONFIG_MEMORY_LIMIT),
    show_number,
    0,
);

/// The most bytes one value may hold in the command (or RESTORE) running in `ctx`:
/// `bf-memory-usage-limit` (0 there: no limit). What the primary replicates, what the AOF
/// replays and what an RDB file or a full resync loads were accepted once and must apply as
/// they did, whatever this server's limit — as a replica ignores `maxmemory` for its
/// primary's writes — so they get no limit (`server::replayed`).
pub fn memory_limit(ctx: *mut raw::RedisModuleCtx) -> u64 {
    let limit = MEMORY_LIMIT.get();
    if limit == 0 {
        return u64::MAX; // The default: no call to the server on the hot path.
    }
    if server::replayed(ctx) {
        u64::MAX
    } else {
        limit
    }
}
