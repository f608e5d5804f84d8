//! Active defragmentation (`activedefrag yes`, Redis ≥ 6.2 and Valkey built with jemalloc):
//! the server asks each value, through its type's `defrag` callback, to move its heap blocks
//! out of sparsely used pages. Each value offers its blocks in a fixed order
//! (`core::relocate`); this mover hands each one to `RedisModule_DefragAlloc`, which moves it
//! when the allocator says it is worth it and frees the old block.
//!
//! A value whose free effort passes `active-defrag-max-scan-fields` (a Top-K of large k, a
//! filter of many sub-filters) is walked in slices: the server gives the callback a deadline
//! (`RedisModule_DefragShouldStop`) and a cursor. Where the deadline passes, the mover keeps
//! the number of blocks offered so far as the cursor, and the next call skips that many.
//! Should the value change between slices, a few blocks are skipped or offered twice: moving
//! is never wrong, only sometimes not done.

use std::mem::{align_of, size_of, ManuallyDrop};
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use redis_module::raw;

use super::alloc::MALLOC_ALIGN;
use crate::core::relocate::{Mover, Walk};

/// Blocks above this are not offered to the server: allocators move only blocks of their
/// small size classes (jemalloc's end at 14 KiB), and copying a large block, possibly of
/// lazily zeroed pages, would cost more than it could give back.
const LARGEST_MOVED: usize = 64 * 1024;

/// Blocks moved since the module loaded (`bf_bloom_defrag_hits` in `INFO bf`).
static HITS: AtomicU64 = AtomicU64::new(0);
/// Blocks offered to the allocator and left where they were (`bf_bloom_defrag_misses`).
static MISSES: AtomicU64 = AtomicU64::new(0);

/// Blocks moved since the module loaded.
pub fn hits() -> u64 {
    HITS.load(Relaxed)
}

/// Blocks the allocator left where they were since the module loaded.
pub fn misses() -> u64 {
    MISSES.load(Relaxed)
}

/// Moves a value's blocks through the server's allocator, within one call of the callback.
pub struct ServerMover {
    ctx: *mut raw::RedisModuleDefragCtx,
    walk: Walk,
}

impl ServerMover {
    /// A mover for one call of the callback, resuming where the previous call of the same
    /// walk stopped.
    pub fn resume(ctx: *mut raw::RedisModuleDefragCtx) -> ServerMover {
        // (`unsigned long`: 64 bits on the 64-bit Linux servers the module is built for.)
        let mut cursor: u64 = 0;
        // SAFETY: `ctx` is the context the server passed to the running callback; the cursor
        // is written only when the call is part of a sliced walk (else it stays 0).
        unsafe {
            if let Some(get) = raw::RedisModule_DefragCursorGet {
                if get(ctx, &mut cursor) != raw::REDISMODULE_OK as c_int {
                    cursor = 0;
                }
            }
        }
        ServerMover {
            ctx,
            walk: Walk::resuming_at(cursor),
        }
    }

    /// Whether this call starts the walk (no earlier call of it moved anything).
    pub fn at_start(&self) -> bool {
        self.walk.at_start()
    }

    /// The block `ptr` moved, or `None` where the server left it.
    fn move_block(&self, ptr: *mut c_void) -> Option<*mut c_void> {
        // SAFETY: `ptr` is a live block from the server's allocator (every heap block of the
        // module is: `alloc::ServerAllocator`), owned by the value being walked; when the server
        // moves it, the old block is freed and the caller takes the new one.
        let moved = unsafe { raw::RedisModule_DefragAlloc.map(|alloc| alloc(self.ctx, ptr)) };
        let moved = moved.filter(|moved| !moved.is_null());
        match moved {
            Some(_) => HITS.fetch_add(1, Relaxed),
            None => MISSES.fetch_add(1, Relaxed),
        };
        moved
    }

    /// Moves the value's own box `*value`, a `Box<T>` pointer, updating it.
    ///
    /// # Safety
    /// `value` must point to the live value pointer the server passed to the callback.
    pub unsafe fn move_box<T>(&self, value: *mut *mut c_void) {
        if size_of::<T>() == 0 || align_of::<T>() > MALLOC_ALIGN {
            return;
        }
        // SAFETY: guaranteed by the caller; the box's block is the server's, and its new
        // address replaces the old in the key.
        unsafe {
            if let Some(moved) = self.move_block(*value) {
                *value = moved;
            }
        }
    }

    /// Ends the call: 1 (saving the cursor) if blocks are left for the next call, else 0,
    /// as the `defrag` callback returns.
    pub fn finish(self) -> c_int {
        let Some(cursor) = self.walk.cursor() else {
            return 0;
        };
        // SAFETY: `ctx` is the running callback's context; the server refuses the cursor
        // unless the walk is sliced, and only a sliced walk has a deadline that stops it.
        unsafe {
            if let Some(set) = raw::RedisModule_DefragCursorSet {
                set(self.ctx, cursor);
            }
        }
        1
    }
}

impl Mover for ServerMover {
    fn vector<T>(&mut self, vector: &mut Vec<T>) {
        let ctx = self.ctx;
        // SAFETY: `ctx` is the running callback's context.
        let deadline_passed =
            || unsafe { raw::RedisModule_DefragShouldStop.is_some_and(|stop| stop(ctx) != 0) };
        if !self.walk.take(deadline_passed) {
            return;
        }
        let bytes = vector.capacity().saturating_mul(size_of::<T>());
        if bytes == 0 || bytes > LARGEST_MOVED || align_of::<T>() > MALLOC_ALIGN {
            return;
        }
        let Some(moved) = self.move_block(vector.as_mut_ptr().cast()) else {
            return;
        };
        // The old block is freed: the old vector must not be dropped.
        let old = ManuallyDrop::new(std::mem::take(vector));
        // SAFETY: `moved` holds the old block's bytes (its first `len` elements initialised),
        // at least `capacity` elements long, from the server's allocator which the global
        // allocator frees blocks to; the old vector's block is not touched again.
        *vector = unsafe { Vec::from_raw_parts(moved.cast::<T>(), old.len(), old.capacity()) };
    }
}
