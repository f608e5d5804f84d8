//! A Top-K that forgets: its shape, fixed at creation and saved, and the rings of per-slot
//! counts and totals that shape gives it.

use crate::core::topk::heap::SLOT_BYTES;
use crate::core::topk::params::Params;
use crate::core::window::{Window, MAX_SLOTS};

/// What `MEMORY USAGE` counts besides the buckets, the heap and the per-slot totals: the
/// struct, its decay table included (as the classic Top-K's 2088).
const STRUCT_BYTES: u64 = 2120;

/// Bytes of a bucket's holder: the fingerprint of the item that holds it, first in its head.
pub(super) const HOLDER_BYTES: usize = 4;
/// Bytes of a bucket before its counts: its holder, then its tag (the slot it was last brought
/// to, eight bytes).
pub(super) const HEAD_BYTES: usize = HOLDER_BYTES + 8;

/// A Top-K's shape and window, fixed at creation and saved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// k, width, depth and decay, as `TOPK.RESERVE` takes them.
    pub params: Params,
    /// What it forgets by, and after how long.
    pub window: Window,
    /// Slots per window, 1 to [`MAX_SLOTS`].
    pub slots: u64,
}

impl Shape {
    /// `TOPK.RESERVE key k width depth decay WINDOW|TIMESPAN n SLOTS slots`, or `None` for a
    /// window or slots out of range (the parameters are checked already).
    pub fn new(params: Params, window: Window, slots: u64) -> Option<Shape> {
        let shape = Shape {
            params,
            window,
            slots,
        };
        shape.is_valid().then_some(shape)
    }

    pub(super) fn is_valid(&self) -> bool {
        self.window.is_valid() && (1..=MAX_SLOTS).contains(&self.slots)
    }

    /// Counts per bucket: one per slot and the one straddling the window's start.
    pub(super) fn counts(&self) -> usize {
        self.slots as usize + 1
    }

    /// Bytes of one bucket: fingerprint, tag, counts.
    pub(super) fn bucket_bytes(&self) -> usize {
        HEAD_BYTES + 4 * self.counts()
    }

    /// Bytes of every bucket.
    pub(super) fn buckets_bytes(&self) -> Option<u64> {
        u64::from(self.params.width())
            .checked_mul(u64::from(self.params.depth()))?
            .checked_mul(self.bucket_bytes() as u64)
    }

    /// What a Top-K of this shape takes (`MEMORY USAGE`; its items are not counted, as
    /// RedisBloom counts none).
    pub fn memory_usage(&self) -> Option<u64> {
        self.buckets_bytes()?
            .checked_add(u64::from(self.params.k()) * SLOT_BYTES)?
            .checked_add(8 * self.counts() as u64)?
            .checked_add(STRUCT_BYTES)
    }
}
