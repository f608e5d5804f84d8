//! What the core's tests share: the generator the capture scripts seeded, FNV-1a for digests of
//! long runs, and `DUMP` payloads as Redis frames them (its RDB encoding of a value's fields,
//! with the CRC), so golden payloads captured from RedisBloom are read and written here byte for
//! byte.

use crate::core::rdb::{RdbRead, RdbWrite};
use crate::core::Error;

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
    /// dropping its trailer (RDB version and CRC-64, which [`dump_payload`] checks).
    pub(crate) fn new(payload: &'a [u8], type_id: u64) -> DumpReader<'a> {
        assert_eq!(payload[..2], [0x07, 0x81]);
        assert_eq!(payload[2..10], type_id.to_be_bytes());
        DumpReader(&payload[10..payload.len() - 10])
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

/// Fields written as Redis 7.0 writes a module value into a `DUMP` payload.
#[derive(Default)]
pub(crate) struct DumpWriter(Vec<u8>);

impl DumpWriter {
    fn length(&mut self, n: u64) {
        match n {
            0..0x40 => self.0.push(n as u8),
            0x40..0x4000 => self.0.extend_from_slice(&(n as u16 | 0x4000).to_be_bytes()),
            0x4000..0x1_0000_0000 => {
                self.0.push(0x80);
                self.0.extend_from_slice(&(n as u32).to_be_bytes());
            }
            _ => {
                self.0.push(0x81);
                self.0.extend_from_slice(&n.to_be_bytes());
            }
        }
    }
}

impl RdbWrite for DumpWriter {
    fn unsigned(&mut self, n: u64) {
        self.0.push(2);
        self.length(n);
    }

    fn double(&mut self, x: f64) {
        self.0.push(4);
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.0.push(5);
        self.length(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }
}

/// CRC-64/Jones as Redis computes it (reflected, polynomial 0xad93d23594c935a9).
fn crc64(data: &[u8]) -> u64 {
    let mut crc = 0u64;
    for &b in data {
        crc ^= u64::from(b);
        for _ in 0..8 {
            crc = (crc >> 1)
                ^ if crc & 1 == 1 {
                    0x95ac_9329_ac4b_c9b5
                } else {
                    0
                };
        }
    }
    crc
}

/// The whole `DUMP` payload Redis 7.0 builds from a value's fields: type byte, type id,
/// fields, end-of-value opcode, RDB version 10, CRC-64.
pub(crate) fn dump_payload(type_id: u64, save: impl FnOnce(&mut DumpWriter)) -> Vec<u8> {
    let mut out = DumpWriter::default();
    out.0.push(0x07);
    out.0.push(0x81);
    out.0.extend_from_slice(&type_id.to_be_bytes());
    save(&mut out);
    out.0.extend_from_slice(&[0x00, 0x0a, 0x00]);
    let crc = crc64(&out.0);
    out.0.extend_from_slice(&crc.to_le_bytes());
    out.0
}

pub(crate) fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn crc64_check_value() {
    // Redis's own crc64 test vector.
    assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
}
