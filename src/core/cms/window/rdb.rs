//! A Count-Min sketch that forgets as RDB fields (see `core::rdb`), data type `cm-window`,
//! encoding version 0: kind (0 count, 1 time), window (updates or milliseconds), slots, ticks
//! per slot, width, depth, hash scheme (0: the classic sketch's MurmurHash2 rows), the tick
//! the pointer stands at, updates applied (count windows), then the per-tick totals as one
//! string of `slots · ticks + 1` little-endian `u64`, then the counters (`width · depth ·
//! (slots + 1)` little-endian `u32`, cell-major) as strings of at most 16 MiB. The pointer is
//! recomputed from the tick. Every field is checked before anything is sized from it, and the
//! whole sketch's size against the memory limits before the counters are read.

use super::{Shape, WindowSketch};
use crate::core::rdb::{known_version, load_array, save_array, RdbRead, RdbWrite};
use crate::core::window;
use crate::core::{Error, Memory};

/// The encoding version written and loaded.
pub const ENCODING_VERSION: i32 = 0;

/// Rows hashed as the classic sketch's.
const HASH_MURMUR2_ROWS: u64 = 0;

/// Saves `sketch` as RDB fields.
pub fn save(sketch: &WindowSketch, out: &mut impl RdbWrite) {
    let shape = sketch.shape;
    window::save(shape.window, out);
    for field in [
        shape.slots,
        shape.ticks_per_slot,
        shape.width,
        shape.depth,
        HASH_MURMUR2_ROWS,
    ] {
        out.unsigned(field);
    }
    window::save_clock(&sketch.clock, out);
    window::save_totals(&sketch.totals, out);
    save_array(&sketch.counters, out);
}

/// Loads a value of encoding version `encver`. `BadEncoding` for an unknown version, a field
/// out of range or strings of the wrong length; `OverLimit`/`OutOfMemory` when `memory`
/// refuses the size the fields announce, before the counters are read.
pub fn load(input: &mut impl RdbRead, encver: i32, memory: &Memory) -> Result<WindowSketch, Error> {
    known_version(encver, ENCODING_VERSION..=ENCODING_VERSION)?;
    let window = window::load(input)?;
    let shape = Shape {
        slots: input.unsigned()?,
        ticks_per_slot: input.unsigned()?,
        width: input.unsigned()?,
        depth: input.unsigned()?,
        window,
    };
    if !shape.is_valid() || input.unsigned()? != HASH_MURMUR2_ROWS {
        return Err(Error::BadEncoding);
    }
    let clock = window::load_clock(input, window, shape.ticks_per_window())?;
    memory.check(shape.memory_usage().ok_or(Error::BadEncoding)?)?;
    let totals_len = usize::try_from(shape.totals_len()).map_err(|_| Error::OutOfMemory)?;
    let totals = window::load_totals(input, totals_len)?;
    let counters = load_array(
        input,
        shape.counter_bytes().ok_or(Error::BadEncoding)?,
        memory,
    )?;
    let blank = counters.iter().all(|&byte| byte == 0);
    Ok(WindowSketch::with_clock(
        shape, clock, totals, counters, blank,
    ))
}
