//! A Top-K as RDB fields (see `core::rdb`), data type `TopK-TYPE`, encoding version 0, field
//! for field as RedisBloom's `TopKRdbSave`/`TopKRdbLoad` (`src/rm_topk.c`):
//!
//! 1. `k`, `width`, `depth` as unsigned integers, `decay` as a double;
//! 2. the buckets, one string of `8 × width × depth` bytes;
//! 3. the heap, one string of `24 × k` bytes (RedisBloom's `HeapBucket` array, process
//!    addresses included: they are written as 0 here and ignored on load);
//! 4. per heap slot, its item followed by one NUL (only the NUL for an empty slot).
//!
//! RedisBloom writes an item up to its first NUL (`strlen + 1` bytes); here the whole item is
//! written, so an item holding a NUL survives a reload. RedisBloom 8 loads such a string
//! whole (its `itemlen` is the string's length less one) and 2.8.2 does too (it keeps the
//! heap's `itemlen`), so both read these payloads; only the payload bytes of such items
//! differ from RedisBloom's.
//!
//! Load checks every field before trusting it — k, width and depth in [1, `u32::MAX`], the
//! decay in (0, 1], both strings exactly as long as the header says, every item string
//! ending with its NUL — and asks [`Memory`] before the first string is read. RedisBloom 2.8.2
//! asserted (aborting the server) or read out of bounds on such input.

use super::heap::Heap;
use super::params::Params;
use super::sketch::{memory_usage, TopK};
use crate::core::rdb::{RdbRead, RdbWrite};
use crate::core::{Error, Memory};

/// The only encoding version of `TopK-TYPE` (RedisBloom's `TOPK_ENC_VER`).
pub const ENCODING_VERSION: i32 = 0;

/// Saves a Top-K.
pub fn save(topk: &TopK, out: &mut impl RdbWrite) {
    let params = topk.params();
    out.unsigned(u64::from(params.k()));
    out.unsigned(u64::from(params.width()));
    out.unsigned(u64::from(params.depth()));
    out.double(params.decay());
    out.bytes(topk.saved_buckets());
    out.bytes(topk.heap().saved_slots());
    for item in topk.heap().saved_items() {
        out.bytes(item);
    }
}

/// Loads a `TopK-TYPE` value of encoding version `encver`. `BadEncoding` for another
/// version, a missing field or an inconsistent one; `OverLimit`/`OutOfMemory` when `memory`
/// refuses the size the header announces.
pub fn load(input: &mut impl RdbRead, encver: i32, memory: &Memory) -> Result<TopK, Error> {
    if encver != ENCODING_VERSION {
        return Err(Error::BadEncoding);
    }
    let mut dimension = || -> Result<i64, Error> {
        i64::try_from(input.unsigned()?).map_err(|_| Error::BadEncoding)
    };
    let (k, width, depth) = (dimension()?, dimension()?, dimension()?);
    let params = Params::new(k, width, depth, input.double()?).map_err(|_| Error::BadEncoding)?;
    memory.check(memory_usage(&params).ok_or(Error::BadEncoding)?)?;
    let buckets = input.bytes()?;
    let slots = input.bytes()?;
    let mut items = Vec::new();
    items
        .try_reserve_exact(params.k() as usize)
        .map_err(|_| Error::OutOfMemory)?;
    for _ in 0..params.k() {
        items.push(Some(input.bytes()?));
    }
    TopK::from_parts(params, buckets, Heap::from_saved(slots, items)?)
}
