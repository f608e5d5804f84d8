//! A window filter's serialized forms.
//!
//! * RDB and `DUMP`, encoding version 0 of the window data type: the state fields below, then
//!   the slices' bits (physical slice 0 first) as strings of at most 16 MiB, so that saving
//!   never needs a compression buffer the size of the whole array. Times are absolute
//!   milliseconds, as the primary passed them.
//! * SCANDUMP: iterator 0 yields a header — a magic prefix, then the same state fields, each
//!   8 little-endian bytes — and later iterators are `1 + byte offset` into the bits, in
//!   chunks of at most 16 MiB; LOADCHUNK replays each `(iter, data)` pair, as for classic
//!   filters (RedisBloom's `src/sb.c`).
//!
//! State fields, in order: kind (0 count, 1 time), timespan (ms, 0 for count), capacity,
//! error rate (double), k, l, time slots, generation size, slice bits, newest slice, opened
//! generations, additions to the current generation, newest time, additions ever, early
//! slides; then per physical slice the fresh count, and for time windows per physical slice
//! the time of its latest addition. Every field is checked before anything is sized from it,
//! and the whole filter's size against the memory limits before its bits are read or
//! allocated.

use super::filter::{memory_usage, WindowFilter};
use super::shape::Shape;
use crate::core::bf::encoding::walk;
use crate::core::le::LeReader;
use crate::core::rdb::{
    known_version, load_array, save_array, FieldWriter, RdbRead, RdbWrite, MAX_STRING,
};
use crate::core::window::Window;
use crate::core::{try_filled, Error, Memory};

/// The encoding version written and loaded.
pub const ENCODING_VERSION: i32 = 0;
/// The largest RDB string of bits and the largest SCANDUMP data chunk (RedisBloom's
/// `MAX_SCANDUMP_SIZE`).
pub const MAX_CHUNK: usize = MAX_STRING;

/// The first 12 bytes of a window filter's SCANDUMP header. RedisBloom's LOADCHUNK reads a
/// header as a packed `{u64 size; u32 nfilters; u32 options; u32 growth;}` followed by
/// `nfilters` links of 53 bytes (`src/sb.c`), and refuses it ("ERR received bad data") when
/// `nfilters` is 0 or the length is not exactly `20 + 53·nfilters`. These bytes put
/// `nfilters = 0` at offset 8, and a window header is always longer than 20 bytes, so it fails
/// both checks: RedisBloom 2.8.2 on Redis 7.0.15 answered "ERR received bad data" and created
/// no key for window headers, and for their first 20 bytes alone. redis-bf's classic decoder
/// (`bloom::encoding`) refuses `nfilters == 0` too. Neither can mistake a window filter's dump
/// for a classic filter.
const HEADER_MAGIC: [u8; 12] = *b"bfwindow\0\0\0\0";

const KIND_COUNT: u64 = 0;
const KIND_TIME: u64 = 1;

/// Saves `filter` as RDB fields.
pub fn save(filter: &WindowFilter, out: &mut impl RdbWrite) {
    save_state(filter, out);
    save_array(filter.bits(), out);
}

/// Loads a value of encoding version `encver`: its state checked, its size checked against
/// `memory`, then its bits read from the saved strings.
pub fn load(input: &mut impl RdbRead, encver: i32, memory: &Memory) -> Result<WindowFilter, Error> {
    known_version(encver, ENCODING_VERSION..=ENCODING_VERSION)?;
    let mut filter = load_state(input, memory)?;
    let bytes = filter.shape.bit_bytes().ok_or(Error::BadEncoding)?;
    filter.bits = load_array(input, bytes, memory)?;
    Ok(filter)
}

/// The SCANDUMP header of `filter` (what `BF.SCANDUMP key 0` returns).
pub fn encode_header(filter: &WindowFilter) -> Vec<u8> {
    let mut out = FieldWriter(HEADER_MAGIC.to_vec());
    save_state(filter, &mut out);
    out.0
}

/// Whether `data` is meant as a window filter's SCANDUMP header (begins with its magic): what
/// LOADCHUNK looks at to tell it from a classic filter's header before decoding either.
pub fn is_header(data: &[u8]) -> bool {
    data.starts_with(&HEADER_MAGIC)
}

/// A filter with zeroed bits (from `memory`) from a SCANDUMP header; chunks fill the bits in.
pub fn decode_header(data: &[u8], memory: &Memory) -> Result<WindowFilter, Error> {
    let fields = data
        .strip_prefix(HEADER_MAGIC.as_slice())
        .ok_or(Error::BadEncoding)?;
    let mut input = LeReader(fields);
    let mut filter = load_state(&mut input, memory)?;
    if !input.is_empty() {
        return Err(Error::BadEncoding);
    }
    filter.bits = memory.array(filter.shape.bit_bytes().ok_or(Error::BadEncoding)?)?;
    Ok(filter)
}

/// The data chunk at SCANDUMP iterator `iter` (≥ 1) and the iterator after it, or `None` past
/// the end.
pub fn chunk_at(filter: &WindowFilter, iter: i64) -> Option<(i64, &[u8])> {
    let offset = usize::try_from(iter.checked_sub(1)?).ok()?;
    let rest = filter
        .bits()
        .get(offset..)
        .filter(|rest| !rest.is_empty())?;
    let data = rest.get(..rest.len().min(MAX_CHUNK))?;
    Some((iter.checked_add(data.len() as i64)?, data))
}

/// Every data chunk of a walk from iterator 1, as [`chunk_at`] gives them (as a chain's
/// [`chunks`](crate::core::bf::encoding::chunks)).
pub fn chunks(filter: &WindowFilter) -> impl Iterator<Item = (i64, &[u8])> + '_ {
    walk(move |iter| chunk_at(filter, iter))
}

/// Writes a chunk that SCANDUMP returned as `(iter, data)`, with classic LOADCHUNK's errors.
pub fn load_chunk(filter: &mut WindowFilter, iter: i64, data: &[u8]) -> Result<(), Error> {
    let len = data.len() as u64;
    if iter <= 0 || (iter as u64) < len {
        return Err(Error::BadEncoding);
    }
    let offset = usize::try_from(iter as u64 - len)
        .ok()
        .and_then(|end| end.checked_sub(1))
        .ok_or(Error::NoLinkAtOffset)?;
    let rest = filter
        .bits_mut()
        .get_mut(offset..)
        .filter(|rest| !rest.is_empty())
        .ok_or(Error::NoLinkAtOffset)?;
    let target = rest.get_mut(..data.len()).ok_or(Error::ChunkTooBig)?;
    target.copy_from_slice(data);
    Ok(())
}

/// Writes every field but the bits.
fn save_state(filter: &WindowFilter, out: &mut impl RdbWrite) {
    let shape = filter.shape();
    out.unsigned(match shape.window {
        Window::Count(_) => KIND_COUNT,
        Window::Time(_) => KIND_TIME,
    });
    out.unsigned(shape.timespan_ms());
    out.unsigned(shape.capacity);
    out.double(shape.error_rate);
    for field in [shape.k, shape.l, shape.slots] {
        out.unsigned(u64::from(field));
    }
    out.unsigned(shape.generation);
    out.unsigned(shape.slice_bits);
    out.unsigned(u64::from(filter.newest));
    out.unsigned(u64::from(filter.opened));
    for field in [
        filter.current,
        filter.now_ms,
        filter.additions,
        filter.early_slides,
    ] {
        out.unsigned(field);
    }
    filter
        .fresh
        .iter()
        .chain(&filter.latest)
        .for_each(|&n| out.unsigned(n));
}

/// Reads and checks every field but the bits, and the filter's size against `memory`; the
/// filter returned has no bits yet (the caller adopts or allocates them).
fn load_state(input: &mut impl RdbRead, memory: &Memory) -> Result<WindowFilter, Error> {
    let kind = input.unsigned()?;
    let timespan = input.unsigned()?;
    let capacity = input.unsigned()?;
    let window = match kind {
        KIND_COUNT if timespan == 0 => Window::Count(capacity),
        KIND_TIME => Window::Time(timespan),
        _ => return Err(Error::BadEncoding),
    };
    let shape = Shape {
        window,
        capacity,
        error_rate: input.double()?,
        k: narrow(input.unsigned()?)?,
        l: narrow(input.unsigned()?)?,
        slots: narrow(input.unsigned()?)?,
        generation: input.unsigned()?,
        slice_bits: input.unsigned()?,
    };
    if !shape.is_valid() {
        return Err(Error::BadEncoding);
    }
    memory.check(memory_usage(&shape).ok_or(Error::BadEncoding)?)?;
    let slices = shape.slices();
    let newest = narrow(input.unsigned()?)?;
    let opened = narrow(input.unsigned()?)?;
    let current = input.unsigned()?;
    let now_ms = input.unsigned()?;
    let additions = input.unsigned()?;
    let early_slides = input.unsigned()?;
    let no_time = matches!(window, Window::Count(_)) && now_ms != 0;
    if newest >= slices
        || opened > slices
        || current > shape.generation
        || (opened == 0 && current != 0)
        || no_time
    {
        return Err(Error::BadEncoding);
    }
    let mut fresh = try_filled(slices as usize, 0)?;
    for count in fresh.iter_mut() {
        *count = input.unsigned()?;
        if *count > shape.generation {
            return Err(Error::BadEncoding);
        }
    }
    let times = if shape.slots == 0 { 0 } else { slices as usize };
    let mut latest = try_filled(times, 0)?;
    // A generation's latest time is at most the end of the newest write's time slot.
    let newest_slot_end = match window {
        Window::Time(_) => shape.window.period_end(now_ms, u64::from(shape.slots)),
        Window::Count(_) => now_ms,
    };
    for time in latest.iter_mut() {
        *time = input.unsigned()?;
        if *time > newest_slot_end {
            return Err(Error::BadEncoding);
        }
    }
    Ok(WindowFilter {
        shape,
        bits: Vec::new(),
        newest,
        opened,
        current,
        fresh,
        latest,
        now_ms,
        additions,
        early_slides,
    })
}

fn narrow(n: u64) -> Result<u32, Error> {
    u32::try_from(n).map_err(|_| Error::BadEncoding)
}
