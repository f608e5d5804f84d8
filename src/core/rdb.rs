//! A value in an RDB file or `DUMP` payload, as the module API hands it over: a sequence of
//! fields — unsigned integers, doubles and byte strings — that the server frames, compresses
//! and checksums itself. Each family's format (`bloom::rdb`, and the Cuckoo filter's) is
//! written once against [`RdbRead`]/[`RdbWrite`]: the glue implements them over the server's
//! I/O, and [`LeReader`]/[`FieldWriter`] over plain bytes, so tests and fuzzers run the
//! very code that loads a server's RDB file.

use std::ops::RangeInclusive;

use super::le::LeReader;
use super::{Error, Memory};

/// The longest string a large array is saved in: saving never needs a compression buffer the
/// size of the whole array.
pub const MAX_STRING: usize = 16 * 1024 * 1024;

/// `BadEncoding` unless `encver` is one of `versions`: a value of a version this build does
/// not know is refused before any of its fields is read.
pub fn known_version(encver: i32, versions: RangeInclusive<i32>) -> Result<(), Error> {
    if versions.contains(&encver) {
        Ok(())
    } else {
        Err(Error::BadEncoding)
    }
}

/// Reads the next field of a value. A missing or unreadable field is `BadEncoding`.
pub trait RdbRead {
    /// The next unsigned integer (`RedisModule_LoadUnsigned`).
    fn unsigned(&mut self) -> Result<u64, Error>;
    /// The next double (`RedisModule_LoadDouble`).
    fn double(&mut self) -> Result<f64, Error>;
    /// The next byte string (`RedisModule_LoadStringBuffer`), owned: big bit arrays are
    /// adopted as they were read, never copied.
    fn bytes(&mut self) -> Result<Vec<u8>, Error>;
}

/// Writes the next field of a value.
pub trait RdbWrite {
    /// `RedisModule_SaveUnsigned`.
    fn unsigned(&mut self, n: u64);
    /// `RedisModule_SaveDouble`.
    fn double(&mut self, x: f64);
    /// `RedisModule_SaveStringBuffer`.
    fn bytes(&mut self, bytes: &[u8]);
}

/// Saves `array` as strings of at most [`MAX_STRING`] bytes, in order.
pub fn save_array(array: &[u8], out: &mut impl RdbWrite) {
    array
        .chunks(MAX_STRING)
        .for_each(|string| out.bytes(string));
}

/// Loads an array of `len` bytes that [`save_array`] saved (the value's size checked against
/// the memory limits by the caller). `BadEncoding` unless each string is as long as `save_array`
/// cuts it.
pub fn load_array(input: &mut impl RdbRead, len: u64, memory: &Memory) -> Result<Vec<u8>, Error> {
    let total = usize::try_from(len).map_err(|_| Error::OutOfMemory)?;
    let first = input.bytes()?;
    if first.len() != total.min(MAX_STRING) {
        return Err(Error::BadEncoding);
    }
    if first.len() == total {
        // One string: the array as the server's reader made it, advised as it saw fit.
        return Ok(first);
    }
    // Several strings go into one array of the whole size, told dense (the strings fill every
    // byte of it) before any is copied in: its pages then fault in as huge pages where the
    // server glue asks for them. (A single string was filled by the server before the glue
    // saw it: its pages can only be collapsed later, by khugepaged.)
    let mut array = memory.array(len)?;
    (memory.dense)(&array);
    // A string is read only once the one before it is freed: at most one beside the array.
    let mut first = Some(first);
    for part in array.chunks_mut(MAX_STRING) {
        let string = match first.take() {
            Some(string) => string,
            None => input.bytes()?,
        };
        if string.len() != part.len() {
            return Err(Error::BadEncoding);
        }
        part.copy_from_slice(&string);
    }
    Ok(array)
}

/// Fields from plain bytes: an unsigned integer or a double is 8 little-endian bytes, a byte
/// string a 4-byte little-endian length and its bytes. Any input reads as some fields, or
/// fails cleanly where it runs short.
impl RdbRead for LeReader<'_> {
    fn unsigned(&mut self) -> Result<u64, Error> {
        self.u64()
    }

    fn double(&mut self) -> Result<f64, Error> {
        self.f64()
    }

    fn bytes(&mut self) -> Result<Vec<u8>, Error> {
        let len = usize::try_from(self.u32()?).map_err(|_| Error::BadEncoding)?;
        Ok(self.slice(len)?.to_vec())
    }
}

/// Fields into plain bytes, in the format [`LeReader`] reads.
#[derive(Debug, Clone, Default)]
pub struct FieldWriter(pub Vec<u8>);

impl RdbWrite for FieldWriter {
    fn unsigned(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    fn double(&mut self, x: f64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn bytes(&mut self, bytes: &[u8]) {
        // Values longer than 4 GiB do not occur in tests and fuzzers, the only users.
        let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        self.0.extend_from_slice(&len.to_le_bytes());
        self.0.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_and_short_input_fails_cleanly() {
        let mut out = FieldWriter::default();
        out.unsigned(7);
        out.double(0.5);
        out.bytes(b"abc");
        let mut fields = LeReader(&out.0);
        assert_eq!(fields.unsigned(), Ok(7));
        assert_eq!(fields.double(), Ok(0.5));
        assert_eq!(fields.bytes(), Ok(b"abc".to_vec()));
        assert_eq!(fields.unsigned(), Err(Error::BadEncoding));
        for len in 0..out.0.len() {
            let mut fields = LeReader(&out.0[..len]);
            let read = fields
                .unsigned()
                .and_then(|_| fields.double())
                .and_then(|_| fields.bytes());
            assert_eq!(read, Err(Error::BadEncoding));
        }
    }
}
