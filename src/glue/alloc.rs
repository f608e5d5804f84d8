//! The Rust heap on Redis's allocator, so filters count in `used_memory` and `maxmemory`.
//!
//! Unlike the crate's `RedisAlloc`, allocation goes through `RedisModule_TryAlloc` where the
//! server has it (Redis ≥ 7.4, Valkey): a failed allocation returns null instead of killing
//! the server, so the core's `try_reserve` paths can answer "insufficient memory". It makes no
//! assumption about the server's malloc beyond 16-byte alignment (some builds use libc's). Zeroed
//! allocations go to the server's calloc, which maps fresh pages for large blocks: a big
//! filter costs no time and no resident memory until its bits are set.
//!
//! Every allocation is counted (`bf_heap_allocations` in `INFO bf`), which is how the tests
//! prove that the single-item commands allocate nothing. Bit arrays of 2 MiB or more may be
//! backed by transparent huge pages (`bf-huge-pages`, see [`advise_huge_pages`]) once they are
//! dense (`Memory::dense`): fresh ones are not, or each item written at random into a huge
//! array would fault in 2 MiB.

use std::alloc::{GlobalAlloc, Layout};
use std::os::raw::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use redis_module::raw;

use super::huge_pages::{advise_huge_pages, unadvise_huge_pages, HUGE_PAGE};

use crate::core::{no_server_bound, Memory};

/// The module's global allocator.
pub struct BloomAlloc;

/// Every allocator a server may be built with (jemalloc, libc malloc, tcmalloc) returns
/// blocks aligned to at least this; larger alignments need [`over_aligned`].
pub(super) const MALLOC_ALIGN: usize = 16;

/// Raw blocks from the server: `TryAlloc`/`TryCalloc` where it has them (Redis ≥ 7.4, Valkey),
/// which return null on failure, else the aborting `Alloc`/`Calloc`.
fn server_alloc(size: usize, zeroed: bool) -> *mut u8 {
    // SAFETY: the API pointers are set by RedisModule_Init before any allocation of ours;
    // each is called with the arguments its C declaration takes.
    unsafe {
        if zeroed {
            match (raw::RedisModule_TryCalloc, raw::RedisModule_Calloc) {
                (Some(try_calloc), _) => try_calloc(1, size).cast(),
                (None, Some(calloc)) => calloc(1, size).cast(),
                (None, None) => std::ptr::null_mut(),
            }
        } else {
            match (raw::RedisModule_TryAlloc, raw::RedisModule_Alloc) {
                (Some(try_alloc), _) => try_alloc(size).cast(),
                (None, Some(alloc)) => alloc(size).cast(),
                (None, None) => std::ptr::null_mut(),
            }
        }
    }
}

fn server_free(ptr: *mut u8) {
    // SAFETY: `ptr` came from `server_alloc`, i.e. from the server's allocator.
    unsafe {
        if let Some(free) = raw::RedisModule_Free {
            free(ptr.cast::<c_void>());
        }
    }
}

/// A block of `layout` aligned beyond [`MALLOC_ALIGN`]: `align` more bytes are taken, the
/// block starts at the first aligned address past the server's pointer, and that pointer is
/// kept in the word just before the block, where [`over_aligned_base`] finds it to free it.
/// (libc malloc aligns to 16 only, and SIMD code in std and its dependencies asks for 32.)
fn over_aligned(layout: Layout, zeroed: bool) -> *mut u8 {
    let Some(size) = layout.size().checked_add(layout.align()) else {
        return std::ptr::null_mut();
    };
    let base = server_alloc(size, zeroed);
    if base.is_null() {
        return base;
    }
    // Between 16 and `align` bytes past `base` (base is 16-aligned, align ≥ 32): room for the
    // pointer, and the block's `layout.size()` bytes still end inside the allocation.
    let offset = layout.align() - (base as usize & (layout.align() - 1));
    // SAFETY: `offset` ≤ `align`, so both pointers stay inside the `size + align` bytes
    // allocated; the word before the block is ≥ 8 bytes past `base`, and 8-aligned.
    unsafe {
        let block = base.add(offset);
        block.cast::<*mut u8>().sub(1).write(base);
        block
    }
}

/// The server pointer behind a block from [`over_aligned`].
///
/// # Safety
/// `block` must come from `over_aligned`.
unsafe fn over_aligned_base(block: *mut u8) -> *mut u8 {
    // SAFETY: `over_aligned` wrote the base pointer in the word before the block.
    unsafe { block.cast::<*mut u8>().sub(1).read() }
}

/// Allocations made through [`BloomAlloc`] since the module loaded.
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// How many allocations the module has made since it loaded (`realloc` counts as one).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

// SAFETY: every block is obtained from and returned to the server's allocator, which is
// thread-safe; blocks are aligned as their layout asks (by the allocator up to 16, by
// `over_aligned` beyond); a null return is how GlobalAlloc reports failure.
unsafe impl GlobalAlloc for BloomAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // One uncontended atomic add per allocation, beside the server's own accounting of
        // the block; the commands whose speed matters allocate nothing at all.
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if layout.align() <= MALLOC_ALIGN {
            server_alloc(layout.size(), false)
        } else {
            over_aligned(layout, false)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if layout.align() <= MALLOC_ALIGN {
            server_alloc(layout.size(), true)
        } else {
            over_aligned(layout, true)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if layout.size() >= HUGE_PAGE {
            unadvise_huge_pages(ptr, layout.size());
        }
        if layout.align() <= MALLOC_ALIGN {
            server_free(ptr);
        } else {
            // SAFETY: blocks of this alignment come from `over_aligned`.
            server_free(unsafe { over_aligned_base(ptr) });
        }
    }
}

/// Where the arrays of the command (or load) running in `ctx` come from: lazily zeroed pages,
/// each value bounded as a whole by the machine's physical memory, by the server's
/// `maxmemory` where set, and by the operator's `bf-memory-usage-limit`
/// (`config::memory_limit`), the last two except where the write is replayed. Servers before Redis
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
        limit: super::config::memory_limit(ctx),
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
/// is replayed (`context::replayed`: from the primary or an AOF, or an RDB file loading), as
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
    if ctx.is_null() || super::context::replayed(ctx) {
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
