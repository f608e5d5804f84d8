//! A bounded `Memory` for the targets, which counts what it hands out: a filter may hold at
//! most [`LIMIT`] bytes, and every array must come after the core checked the whole filter
//! against that — an array request above the bound is a bug, and panics on the spot.

use std::cell::Cell;

use redis_bf::core::{eager_zeroed, Memory, EAGER};

/// The most one filter may hold in a target (as `memory_usage` counts it). Small, so that
/// every execution is fast; what the bound itself does is tested in the core.
pub const LIMIT: u64 = 1 << 20;

thread_local! {
    static GRANTED: Cell<u64> = const { Cell::new(0) };
}

fn counting(len: usize) -> Option<Vec<u8>> {
    assert!(
        len as u64 <= LIMIT,
        "an array of {len} bytes was asked for: no filter within the bound has one"
    );
    GRANTED.with(|g| g.set(g.get() + len as u64));
    eager_zeroed(len)
}

/// The bounded memory of the targets.
pub fn bounded() -> Memory {
    Memory {
        zeroed: counting,
        available: LIMIT,
        limit: LIMIT,
        ..EAGER
    }
}

/// Bytes handed out since the last call, which starts the count again.
pub fn take_granted() -> u64 {
    GRANTED.with(|g| g.replace(0))
}
