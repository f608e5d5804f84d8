//! The Rust heap on Redis's allocator, so filters count in `used_memory` and `maxmemory`.
//!
//! Unlike the crate's `RedisAlloc`, allocation goes through `RedisModule_TryAlloc` where the
//! server has it (Redis ≥ 7.0, Valkey): a failed allocation returns null instead of killing
//! the server, so the core's `try_reserve` paths can answer "insufficient memory".

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

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, i.e. from the server's allocator.
        unsafe {
            if let Some(free) = raw::RedisModule_Free {
                free(ptr.cast::<c_void>());
            }
        }
    }
}
