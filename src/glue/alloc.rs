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
//! prove that the single-item commands allocate nothing. How large a value may grow, and where
//! its arrays come from, is `memory.rs`'s policy; a block of 2 MiB or more loses any huge page
//! advice (`huge_pages.rs`) before it goes back to the server.

use std::alloc::{GlobalAlloc, Layout};
use std::os::raw::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use redis_module::raw;

use super::huge_pages::{unadvise_huge_pages, HUGE_PAGE};

/// The module's global allocator.
pub struct ServerAllocator;

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

/// Allocations made through [`ServerAllocator`] since the module loaded.
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

/// How many allocations the module has made since it loaded (`realloc` counts as one).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// A counted block of `layout` from the server (zeroed or not): aligned by the server's
/// allocator up to [`MALLOC_ALIGN`], by [`over_aligned`] beyond.
fn allocate(layout: Layout, zeroed: bool) -> *mut u8 {
    // One uncontended atomic add per allocation, beside the server's own accounting of the
    // block; the commands whose speed matters allocate nothing at all.
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    if layout.align() <= MALLOC_ALIGN {
        server_alloc(layout.size(), zeroed)
    } else {
        over_aligned(layout, zeroed)
    }
}

// SAFETY: every block is obtained from and returned to the server's allocator, which is
// thread-safe; blocks are aligned as their layout asks (by the allocator up to 16, by
// `over_aligned` beyond); a null return is how GlobalAlloc reports failure.
unsafe impl GlobalAlloc for ServerAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        allocate(layout, false)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        allocate(layout, true)
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
