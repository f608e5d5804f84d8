//! How much memory a value may take and where its arrays come from ([`Memory`], the core's
//! bound): the machine's physical memory, the server's `maxmemory`, the operator's
//! `bf-memory-usage-limit`, and lazily zeroed pages from the server's calloc, advised huge pages
//! once dense. The allocator itself is `alloc.rs`.

use std::alloc::Layout;
use std::sync::OnceLock;

use redis_module::raw;

use super::huge_pages::advise_huge_pages;
use super::{server, settings};
use crate::core::{no_server_bound, Memory};

/// Where the arrays of the command (or load) running in `ctx` come from: lazily zeroed pages,
/// each value bounded as a whole by the machine's physical memory, by the server's
/// `maxmemory` where set, and by the operator's `bf-memory-usage-limit`
/// (`settings::memory_limit`), the last two except where the write is replayed. Servers before Redis
/// 7.4 have no fallible calloc, and with the overcommit Redis recommends even an absurd size
/// would be granted and then fault the server to death as its bits are set; a value no
/// machine of this one's memory can hold is refused instead (`ERR Insufficient memory to
/// create filter`, or an item not added). `maxmemory` is read only when a value is sized.
pub fn memory(ctx: *mut raw::RedisModuleCtx) -> Memory {
    Memory {
        zeroed: lazy_zeroed,
        dense: advise_huge_pages,
        available: physical_memory(),
        server_bound: maxmemory_bound,
        site: ctx as usize,
        limit: settings::memory_limit(ctx),
    }
}

/// Lazily zeroed arrays bounded by the machine's physical memory alone: for COPY, whose copy
/// has the size its original was allowed, and where the server gave no context.
pub fn machine_memory() -> Memory {
    Memory {
        zeroed: lazy_zeroed,
        dense: advise_huge_pages,
        available: physical_memory(),
        server_bound: no_server_bound,
        site: 0,
        limit: u64::MAX,
    }
}

/// [`Memory::server_bound`] of [`memory`]: the server's `maxmemory` (from `INFO memory`, which
/// Redis 6.0 and later and Valkey give modules), or no bound where it is 0 or where the write
/// is replayed (`server::replayed`: from the primary or an AOF, or an RDB file loading), as
/// for `bf-memory-usage-limit`.
fn maxmemory_bound(site: usize) -> u64 {
    let ctx = site as *mut raw::RedisModuleCtx;
    // The used memory over `maxmemory`, 0 when there is none (Redis 6.0 and later, Valkey):
    // then there is no bound to read, nor a need to ask whether the write is replayed (about
    // 130 instructions). Reading it from `INFO memory` below costs the server about 270,000
    // (it formats the whole section), more than most commands that create a value cost.
    // SAFETY: reading an API pointer set by RedisModule_Init, and calling it: it takes no
    // arguments and only reads the server's memory counters.
    let ratio = unsafe { raw::RedisModule_GetUsedMemoryRatio.map(|ratio| ratio()) };
    if ratio == Some(0.0) {
        return u64::MAX;
    }
    if ctx.is_null() || server::replayed(ctx) {
        return u64::MAX;
    }
    // SAFETY: `ctx` is the context `memory` was built from, live for the command or load the
    // Memory serves; the info data is freed with the same context before returning; the
    // field name is NUL-terminated.
    let maxmemory = unsafe {
        let (Some(get), Some(field), Some(free)) = (
            raw::RedisModule_GetServerInfo,
            raw::RedisModule_ServerInfoGetFieldUnsigned,
            raw::RedisModule_FreeServerInfo,
        ) else {
            return u64::MAX;
        };
        let info = get(ctx, c"memory".as_ptr());
        if info.is_null() {
            return u64::MAX;
        }
        let mut error = 0;
        let value = field(info, c"maxmemory".as_ptr(), &mut error);
        free(ctx, info);
        if error != 0 {
            0
        } else {
            value
        }
    };
    if maxmemory == 0 {
        u64::MAX
    } else {
        maxmemory
    }
}

/// Zero-filled bytes from the server's calloc, which maps fresh pages for large blocks: a big
/// filter costs no time and no resident memory until its bits are set.
fn lazy_zeroed(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    let layout = Layout::array::<u8>(len).ok()?;
    // SAFETY: `layout` has a nonzero size.
    let bytes = unsafe { std::alloc::alloc_zeroed(layout) };
    if bytes.is_null() {
        return None;
    }
    // SAFETY: `bytes` is a fresh, zeroed allocation of exactly `len` bytes from the global
    // allocator with the layout of `[u8; len]`, which is what the Vec will free it with.
    let bytes = unsafe { Vec::from_raw_parts(bytes, len, len) };
    Some(bytes)
}

/// Bytes of RAM in this machine (read once: it does not change under a running server).
fn physical_memory() -> u64 {
    static BYTES: OnceLock<u64> = OnceLock::new();
    *BYTES.get_or_init(|| {
        // SAFETY: sysconf only reads system information.
        let (pages, page_size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        u64::try_from(pages)
            .unwrap_or(0)
            .saturating_mul(u64::try_from(page_size).unwrap_or(0))
    })
}
