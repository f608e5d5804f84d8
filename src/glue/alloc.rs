//! The Rust heap on Redis's allocator, so filters count in `used_memory` and `maxmemory`.
//!
//! Unlike the crate's `RedisAlloc`, allocation goes through `RedisModule_TryAlloc` where the
//! server has it (Redis ≥ 7.0, Valkey): a failed allocation returns null instead of killing
//! the server, so the core's `try_reserve` paths can answer "insufficient memory". Zeroed
//! allocations go to the server's calloc, which maps fresh pages for large blocks: a big
//! filter costs no time and no resident memory until its bits are set.

use std::alloc::{GlobalAlloc, Layout};
use std::os::raw::c_void;

use redis_module::raw;

/// The module's global allocator.
pub struct BloomAlloc;

/// Rounds up so that jemalloc's size classes give the alignment the layout asks for: its
/// classes of at least `align` bytes (for powers of two) are `align`-aligned.
fn aligned_size(layout: Layout) -> usize {
    (layout.size() + layout.align() - 1) & !(layout.align() - 1)
}

// SAFETY: every block is obtained from and returned to the server's allocator, which is
// thread-safe (jemalloc or libc); a null return is how GlobalAlloc reports failure.
unsafe impl GlobalAlloc for BloomAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let size = aligned_size(layout);
        // SAFETY: the API pointers are set by RedisModule_Init before any allocation of ours.
        unsafe {
            match (raw::RedisModule_TryAlloc, raw::RedisModule_Alloc) {
                (Some(try_alloc), _) => try_alloc(size).cast(),
                (None, Some(alloc)) => alloc(size).cast(),
                (None, None) => std::ptr::null_mut(),
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let size = aligned_size(layout);
        // SAFETY: as in `alloc`.
        unsafe {
            match (raw::RedisModule_TryCalloc, raw::RedisModule_Calloc) {
                (Some(try_calloc), _) => try_calloc(1, size).cast(),
                (None, Some(calloc)) => calloc(1, size).cast(),
                (None, None) => std::ptr::null_mut(),
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, i.e. from the server's allocator.
        unsafe {
            if let Some(free) = raw::RedisModule_Free {
                free(ptr.cast::<c_void>());
            }
        }
    }
}

/// The bit arrays of new filters (`core::filter::Zeroed`): lazily zeroed pages, refused beyond
/// the machine's physical memory. Servers before Redis 7.4 have no fallible calloc, and with
/// the overcommit Redis recommends even an absurd size would be granted and then fault the
/// server to death as its bits are set; a size no machine of this one's memory can hold is
/// refused here instead (`ERR Insufficient memory to create filter`).
pub fn lazy_zeroed(len: usize) -> Option<Vec<u8>> {
    if len == 0 {
        return Some(Vec::new());
    }
    if len as u64 > physical_memory() {
        return None;
    }
    let layout = Layout::array::<u8>(len).ok()?;
    // SAFETY: `layout` has a nonzero size.
    let bytes = unsafe { std::alloc::alloc_zeroed(layout) };
    if bytes.is_null() {
        return None;
    }
    // SAFETY: `bytes` is a fresh, zeroed allocation of exactly `len` bytes from the global
    // allocator with the layout of `[u8; len]`, which is what the Vec will free it with.
    Some(unsafe { Vec::from_raw_parts(bytes, len, len) })
}

/// Bytes of RAM in this machine.
fn physical_memory() -> u64 {
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
}
