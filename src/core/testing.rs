//! What the core's tests share: a memory bound with a limit, the generator the capture scripts seeded, FNV-1a for digests of
//! long runs, and `DUMP` payloads as Redis frames them (its RDB encoding of a value's fields,
//! with the CRC), so golden payloads captured from RedisBloom are read and written here byte for
//! byte.

use crate::core::dump::{crc64, payload, DumpWriter};
use crate::core::rdb::{FieldWriter, RdbRead};
use crate::core::{Error, Memory, EAGER};

/// [`EAGER`] with a limit of `limit` bytes, as `bf-memory-usage-limit` sets one: for tests of
/// what a limit refuses.
pub(crate) const fn eager_limited(limit: u64) -> Memory {
    Memory { limit, ..EAGER }
}

/// Marsaglia's xorshift64 (13, 7, 17), seeded as the capture scripts seeded it.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed
            .wrapping_add(1)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64 bits.
pub(crate) fn fnv(mut h: u64, data: &[u8]) -> u64 {
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// The fields of a `DUMP` payload, read as the server hands them to a module's `rdb_load`:
/// `02` + RDB length for an unsigned, `04` + 8 bytes for a double, `05` + length + bytes for
/// a string (no LZF: the payloads were captured with `rdbcompression no`).
pub(crate) struct DumpReader<'a>(&'a [u8]);

impl<'a> DumpReader<'a> {
    /// The fields of `payload`, after checking its header (`07`, `81`, the type id) and
    /// dropping its trailer (RDB version and CRC-64) unchecked, so that a payload with a byte
    /// flipped still reaches the loader ([`load_payload`] checks the CRC).
    pub(crate) fn new(payload: &'a [u8], type_id: u64) -> DumpReader<'a> {
        assert_eq!(payload[..2], [0x07, 0x81]);
        assert_eq!(payload[2..10], type_id.to_be_bytes());
        DumpReader(&payload[10..payload.len() - 10])
    }

    /// Fields without a payload around them, such as a prefix of [`payload_fields`].
    pub(crate) fn of_fields(fields: &'a [u8]) -> DumpReader<'a> {
        DumpReader(fields)
    }

    /// Whether every field was read: only the end-of-value opcode is left.
    pub(crate) fn is_done(&self) -> bool {
        self.0 == [0]
    }

    fn byte(&mut self) -> Result<u8, Error> {
        let (&b, rest) = self.0.split_first().ok_or(Error::BadEncoding)?;
        self.0 = rest;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let (head, rest) = self.0.split_at_checked(n).ok_or(Error::BadEncoding)?;
        self.0 = rest;
        Ok(head)
    }

    fn opcode(&mut self, expected: u8) -> Result<(), Error> {
        (self.byte()? == expected)
            .then_some(())
            .ok_or(Error::BadEncoding)
    }

    fn length(&mut self) -> Result<u64, Error> {
        let b = self.byte()?;
        Ok(match b >> 6 {
            0 => u64::from(b & 0x3f),
            1 => u64::from(b & 0x3f) << 8 | u64::from(self.byte()?),
            _ if b == 0x80 => u64::from(u32::from_be_bytes(self.take(4)?.try_into().unwrap())),
            _ if b == 0x81 => u64::from_be_bytes(self.take(8)?.try_into().unwrap()),
            _ => return Err(Error::BadEncoding),
        })
    }
}

impl RdbRead for DumpReader<'_> {
    fn unsigned(&mut self) -> Result<u64, Error> {
        self.opcode(2)?;
        self.length()
    }

    fn double(&mut self) -> Result<f64, Error> {
        self.opcode(4)?;
        Ok(f64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }

    fn bytes(&mut self) -> Result<Vec<u8>, Error> {
        self.opcode(5)?;
        let len = self.length()? as usize;
        Ok(self.take(len)?.to_vec())
    }
}

/// The value `load` reads from `payload`'s fields ([`DumpReader`]), which must be all of them,
/// after checking the payload's CRC-64.
pub(crate) fn load_payload<T>(
    payload: &[u8],
    type_id: u64,
    load: impl FnOnce(&mut DumpReader) -> Result<T, Error>,
) -> T {
    let (framed, crc) = payload.split_at(payload.len() - 8);
    assert_eq!(crc, crc64(framed).to_le_bytes(), "CRC-64");
    let mut fields = DumpReader::new(payload, type_id);
    let value = load(&mut fields).unwrap();
    assert!(fields.is_done());
    value
}

/// The plain bytes ([`FieldWriter`]) of the fields `save` writes.
pub(crate) fn fields_of(save: impl FnOnce(&mut FieldWriter)) -> Vec<u8> {
    let mut out = FieldWriter::default();
    save(&mut out);
    out.0
}

/// The whole `DUMP` payload Redis 7.0 builds from a value's fields (RDB version 10).
pub(crate) fn dump_payload(type_id: u64, save: impl Fn(&mut DumpWriter)) -> Vec<u8> {
    payload(type_id, 10, save).unwrap()
}

/// The fields of a `DUMP` payload, between its 10-byte header and its end-of-value opcode and
/// 10-byte trailer: what the capture scripts print (`payload[10:-11]`).
pub(crate) fn payload_fields(payload: &[u8]) -> &[u8] {
    &payload[10..payload.len() - 11]
}

/// The bytes of hex text; white space between digits is passed over, so long payloads may be
/// wrapped.
pub(crate) fn unhex(text: &str) -> Vec<u8> {
    let text: String = text.split_whitespace().collect();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// A decoder against the fields of a value it saved: every truncation is `BadEncoding`, and
/// every byte flipped (by 0x01, 0x80 or 0xff) either fails cleanly or loads a value, which
/// `check` then takes with the flipped fields (to save it again, run commands on it…).
pub(crate) fn truncations_fail_and_flips_load_or_fail<T: std::fmt::Debug>(
    fields: &[u8],
    load: impl Fn(&[u8]) -> Result<T, Error>,
    mut check: impl FnMut(T, &[u8]),
) {
    for len in 0..fields.len() {
        assert_eq!(
            load(&fields[..len]).err(),
            Some(Error::BadEncoding),
            "{len}"
        );
    }
    for at in 0..fields.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut corrupt = fields.to_vec();
            corrupt[at] ^= flip;
            if let Ok(value) = load(&corrupt) {
                check(value, &corrupt);
            }
        }
    }
}
