//! A Top-K that forgets as RDB fields (see `core::rdb`), data type `tk-window`, encoding
//! version 0: kind (0 count, 1 time), window (updates or milliseconds), slots, k, width, depth
//! as unsigned integers, decay as a double, the newest slot and the updates applied (count
//! windows) as unsigned integers; then the per-slot totals, one string of `slots + 1`
//! little-endian `u64`; the buckets, `width × depth` records of `fp u32, tag u64, counts u32 ×
//! (slots + 1)` little-endian, as strings of at most 16 MiB; then the heap as the classic
//! Top-K saves it (`super::super::rdb`): one string of `24 × k` bytes, and per slot its item
//! followed by one NUL.
//!
//! Every field is checked before anything is sized from it, every heap slot must be as `save`
//! writes it, and the whole value's size
//! against the memory limits before the first string is read. The decay table is rebuilt
//! from the decay.

use super::{Shape, WindowTopK};
use crate::core::rdb::{known_version, load_array, save_array, RdbRead, RdbWrite};
use crate::core::topk::params::Params;
use crate::core::topk::rdb::{load_heap, save_heap};
use crate::core::window;
use crate::core::{Error, Memory};

/// The encoding version written and loaded.
pub const ENCODING_VERSION: i32 = 0;

/// Saves a Top-K that forgets.
pub fn save(topk: &WindowTopK, out: &mut impl RdbWrite) {
    let shape = topk.shape;
    let params = shape.params;
    window::save(shape.window, out);
    for field in [
        shape.slots,
        u64::from(params.k()),
        u64::from(params.width()),
        u64::from(params.depth()),
    ] {
        out.unsigned(field);
    }
    out.double(params.decay());
    window::save_clock(&topk.clock, out);
    window::save_totals(&topk.totals, out);
    save_array(&topk.buckets, out);
    save_heap(&topk.heap, out);
}

/// Loads a value of encoding version `encver`. `BadEncoding` for another version or any
/// field out of range; `OverLimit`/`OutOfMemory` when `memory` refuses the size the fields
/// announce, before the buckets are read.
pub fn load(input: &mut impl RdbRead, encver: i32, memory: &Memory) -> Result<WindowTopK, Error> {
    known_version(encver, ENCODING_VERSION..=ENCODING_VERSION)?;
    let window = window::load(input)?;
    let slots = input.unsigned()?;
    let mut dimension = || -> Result<i64, Error> {
        i64::try_from(input.unsigned()?).map_err(|_| Error::BadEncoding)
    };
    let (k, width, depth) = (dimension()?, dimension()?, dimension()?);
    let params = Params::new(k, width, depth, input.double()?).map_err(|_| Error::BadEncoding)?;
    let shape = Shape::new(params, window, slots).ok_or(Error::BadEncoding)?;
    let clock = window::load_clock(input, window, shape.slots)?;
    memory.check(shape.memory_usage().ok_or(Error::BadEncoding)?)?;
    let totals = window::load_totals(input, shape.counts())?;
    let buckets = load_array(
        input,
        shape.buckets_bytes().ok_or(Error::BadEncoding)?,
        memory,
    )?;
    // Only the canonical form of each slot (no pointer, no pad, the item's own length, an
    // empty slot all zero), which is what `save` writes: this format is ours, unlike
    // `TopK-TYPE`'s, which must take RedisBloom's pointers.
    let heap = load_heap(input, params.k(), true)?;
    WindowTopK::from_parts(shape, clock, totals, buckets, heap)
}
