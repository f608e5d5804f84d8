//! A valkey-bloom object as its `BF.LOAD` payload, what valkey-bloom's AOF rewrite writes
//! (`encode_object`): the version byte 1, then the object as bincode 1.x encodes it by default
//! — little-endian, fixed-width integers, `u64` lengths: expansion (`u32`), error rate and
//! tightening ratio (`f64`), whether the seed is random (one byte, 0 or 1), the count of
//! sub-filters (`u64`), and each sub-filter's blob (`u64` length and bytes), items and
//! capacity (`i64`).

use super::filter::SubFilter;
use super::object::ValkeyBloom;
use crate::core::le::LeReader;
use crate::core::{try_vec, Error, Memory};

/// The payload's version byte (valkey-bloom's `BLOOM_OBJECT_VERSION`).
const VERSION: u8 = 1;

/// Why a payload was refused, as valkey-bloom words each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// Another version byte (`ERR bloom object decoding failed. Unsupported version`).
    Version,
    /// Anything else malformed (`ERR bloom object decoding failed`).
    Malformed,
    /// A rate outside (0, 1) (`ERR (0 < error rate range < 1)`).
    RateRange,
    /// Over the memory limit or the machine's memory.
    Memory(Error),
}

/// The payload of `object`, or `OutOfMemory`.
pub fn encode(object: &ValkeyBloom) -> Result<Vec<u8>, Error> {
    let filters = object.filters();
    let size: usize = filters.iter().map(|f| f.blob().len() + 24).sum::<usize>() + 30;
    let mut out = try_vec(size)?;
    out.push(VERSION);
    out.extend_from_slice(&object.expansion().to_le_bytes());
    out.extend_from_slice(&object.fp_rate().to_le_bytes());
    out.extend_from_slice(&object.tightening().to_le_bytes());
    out.push(u8::from(object.seed_random()));
    out.extend_from_slice(&(filters.len() as u64).to_le_bytes());
    for filter in filters {
        out.extend_from_slice(&(filter.blob().len() as u64).to_le_bytes());
        out.extend_from_slice(filter.blob());
        out.extend_from_slice(&filter.items.to_le_bytes());
        out.extend_from_slice(&filter.capacity.to_le_bytes());
    }
    Ok(out)
}

/// The object in `payload`, its size checked against `memory` before each blob is copied.
pub fn decode(payload: &[u8], memory: &Memory) -> Result<ValkeyBloom, DecodeError> {
    let (&version, rest) = payload.split_first().ok_or(DecodeError::Malformed)?;
    if version != VERSION {
        return Err(DecodeError::Version);
    }
    let mut input = LeReader(rest);
    let malformed = |_| DecodeError::Malformed;
    let expansion = input.u32().map_err(malformed)?;
    let fp_rate = input.f64().map_err(malformed)?;
    let tightening = input.f64().map_err(malformed)?;
    let seed_random = match input.u8().map_err(malformed)? {
        0 => false,
        1 => true,
        _ => return Err(DecodeError::Malformed),
    };
    let count = input.u64().map_err(malformed)?;
    let mut filters = Vec::new();
    let mut bytes = 0u64;
    for _ in 0..count {
        let len = input.u64().map_err(malformed)?;
        let blob = input
            .slice(usize::try_from(len).map_err(|_| DecodeError::Malformed)?)
            .map_err(malformed)?;
        bytes = bytes.saturating_add(len);
        memory.check(bytes).map_err(DecodeError::Memory)?;
        let blob = crate::core::try_copy(blob).map_err(DecodeError::Memory)?;
        let items = input.u64().map_err(malformed)? as i64;
        let capacity = input.u64().map_err(malformed)? as i64;
        filters
            .try_reserve(1)
            .map_err(|_| DecodeError::Memory(Error::OutOfMemory))?;
        filters.push(SubFilter::from_saved(blob, capacity, items).map_err(malformed)?);
    }
    // bincode's default options, which valkey-bloom decodes with, allow trailing bytes.
    let in_unit = |x: f64| x > 0.0 && x < 1.0;
    if !in_unit(fp_rate) || !in_unit(tightening) {
        return Err(DecodeError::RateRange);
    }
    ValkeyBloom::from_saved((expansion, fp_rate, tightening, seed_random), filters)
        .map_err(malformed)
}
