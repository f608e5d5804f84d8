//! A valkey-bloom object as RDB fields, data type `bloomfltr`, encoding version 1, field for
//! field as valkey-bloom 1.0 saves it (`bloom_rdb_save`): the count of sub-filters, expansion,
//! error rate (double), tightening ratio (double), whether the seed is random (0 or 1); then
//! each sub-filter's blob (a string) and capacity, and after the last one only, its items
//! (the earlier ones are full: their items are their capacity).

use super::filter::SubFilter;
use super::object::ValkeyBloom;
use crate::core::rdb::{known_version, RdbRead, RdbWrite};
use crate::core::{Error, Memory};

/// The encoding version of `bloomfltr` (valkey-bloom 1.0's; 0 was a pre-release layout).
pub const ENCODING_VERSION: i32 = 1;

/// Saves an object.
pub fn save(object: &ValkeyBloom, out: &mut impl RdbWrite) {
    let filters = object.filters();
    out.unsigned(filters.len() as u64);
    out.unsigned(u64::from(object.expansion()));
    out.double(object.fp_rate());
    out.double(object.tightening());
    out.unsigned(u64::from(object.seed_random()));
    for filter in filters {
        out.bytes(filter.blob());
        out.unsigned(filter.capacity as u64);
    }
    if let Some(last) = filters.last() {
        out.unsigned(last.items as u64);
    }
}

/// Loads a `bloomfltr` value of encoding `encver`: `BadEncoding` for another version, a
/// missing field or an inconsistent object. The blobs are read as the server hands them over
/// (each as long as the file says), and their sum checked against `memory` as they come.
pub fn load(input: &mut impl RdbRead, encver: i32, memory: &Memory) -> Result<ValkeyBloom, Error> {
    known_version(encver, ENCODING_VERSION..=ENCODING_VERSION)?;
    let count = input.unsigned()?;
    let expansion = u32::try_from(input.unsigned()?).map_err(|_| Error::BadEncoding)?;
    let fp_rate = input.double()?;
    let tightening = input.double()?;
    let seed_random = match input.unsigned()? {
        0 => false,
        1 => true,
        _ => return Err(Error::BadEncoding),
    };
    if count == 0 {
        return Err(Error::BadEncoding);
    }
    let mut filters = Vec::new();
    let mut bytes = 0u64;
    for n in 0..count {
        let blob = input.bytes()?;
        bytes = bytes.saturating_add(blob.len() as u64);
        memory.check(bytes)?;
        let capacity = i64::try_from(input.unsigned()?).map_err(|_| Error::BadEncoding)?;
        let items = if n + 1 == count {
            i64::try_from(input.unsigned()?).map_err(|_| Error::BadEncoding)?
        } else {
            capacity
        };
        filters.try_reserve(1).map_err(|_| Error::OutOfMemory)?;
        filters.push(SubFilter::from_saved(blob, capacity, items)?);
    }
    ValkeyBloom::from_saved((expansion, fp_rate, tightening, seed_random), filters)
}
