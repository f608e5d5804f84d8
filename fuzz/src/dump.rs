//! `DUMP` payloads of module values, read as Redis reads them for `RESTORE` (`rdb.c`,
//! `module.c`): the object type `RDB_TYPE_MODULE_2`, the module type id as an RDB length (nine
//! 6-bit name characters, then 10 bits of encoding version), then per field an opcode — 2 an
//! unsigned integer (an RDB length), 4 a double (8 bytes, little-endian), 5 a string (an RDB
//! string: plain, integer-encoded or LZF-compressed) — and the module EOF opcode 0. After it
//! Redis appends a 2-byte RDB version and a CRC64, which the reader leaves alone: the fuzzer
//! mutates what the module reads, and `RESTORE` has checked the rest before the module sees it.
//!
//! [`DumpReader`] implements the core's `RdbRead`, so every RDB loader of the module reads real
//! payloads — the seeds are RedisBloom's and redis-bf's `DUMP` outputs — and [`payload`]
//! writes them back through the module's own writer (`core::dump`), for tests.

use redis_bf::core::dump;
use redis_bf::core::rdb::{RdbRead, RdbWrite};
use redis_bf::core::Error;

/// `RDB_TYPE_MODULE_2`: a module value whose fields carry opcodes.
const TYPE_MODULE_2: u8 = 7;
const OP_EOF: u64 = 0;
const OP_UINT: u64 = 2;
const OP_DOUBLE: u64 = 4;
const OP_STRING: u64 = 5;
/// `RDB_ENC_INT8`, `RDB_ENC_INT16`, `RDB_ENC_INT32`, `RDB_ENC_LZF`.
const ENC_INT8: u64 = 0;
const ENC_INT16: u64 = 1;
const ENC_INT32: u64 = 2;
const ENC_LZF: u64 = 3;
/// The module type id's name characters (`ModuleTypeNameCharSet`).
const CHARSET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/// The RDB version Redis 7.0 writes after a value.
pub const RDB_VERSION: u16 = 10;

/// The longest string the reader decompresses. Redis allocates whatever an LZF header
/// declares; here it bounds each execution's memory and time (a fuzz input of a few KiB
/// describes nothing larger honestly).
pub const MAX_STRING: usize = 1 << 20;

/// A module type: its 9-character name and the encoding version of the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModuleType {
    pub name: [u8; 9],
    pub encver: i32,
}

impl ModuleType {
    /// The type an id names.
    pub fn from_id(id: u64) -> ModuleType {
        let mut name = [0u8; 9];
        for (i, c) in name.iter_mut().enumerate() {
            *c = CHARSET[((id >> (10 + 6 * (8 - i))) & 63) as usize];
        }
        ModuleType {
            name,
            encver: (id & 0x3ff) as i32,
        }
    }
}

/// The fields of a module value in a `DUMP` payload.
#[derive(Debug, Clone)]
pub struct DumpReader<'a> {
    rest: &'a [u8],
}

/// Opens a `DUMP` payload of a module value: its type, and a reader over its fields. `None`
/// when it is not a module value.
pub fn open(payload: &[u8]) -> Option<(ModuleType, DumpReader<'_>)> {
    let (&kind, rest) = payload.split_first()?;
    if kind != TYPE_MODULE_2 {
        return None;
    }
    let mut reader = DumpReader { rest };
    // rdbLoadLen(rdb, NULL): an encoded-value byte reads as its 6 low bits.
    let (id, _) = reader.length().ok()?;
    Some((ModuleType::from_id(id), reader))
}

impl<'a> DumpReader<'a> {
    /// The module EOF opcode that must follow the fields (Redis refuses the value without
    /// it), and what comes after it (the RDB version and CRC).
    pub fn finish(mut self) -> Result<&'a [u8], Error> {
        match self.length()? {
            (OP_EOF, false) => Ok(self.rest),
            _ => Err(Error::BadEncoding),
        }
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], Error> {
        if self.rest.len() < len {
            return Err(Error::BadEncoding);
        }
        let (head, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        self.take(N)?.try_into().map_err(|_| Error::BadEncoding)
    }

    /// `rdbLoadLenByRef`: a length, and whether it is an encoded-value marker instead.
    fn length(&mut self) -> Result<(u64, bool), Error> {
        let [first] = self.array::<1>()?;
        Ok(match first >> 6 {
            0 => (u64::from(first & 0x3f), false),
            1 => {
                let [second] = self.array::<1>()?;
                ((u64::from(first & 0x3f) << 8) | u64::from(second), false)
            }
            3 => (u64::from(first & 0x3f), true),
            _ if first == 0x80 => (u64::from(u32::from_be_bytes(self.array()?)), false),
            _ if first == 0x81 => (u64::from_be_bytes(self.array()?), false),
            _ => return Err(Error::BadEncoding),
        })
    }

    /// The opcode of the next field, which must be `expected`.
    fn opcode(&mut self, expected: u64) -> Result<(), Error> {
        // RedisModule_Load* read it with rdbLoadLen(rdb, NULL).
        if self.length()?.0 == expected {
            Ok(())
        } else {
            Err(Error::BadEncoding)
        }
    }

    /// `rdbGenericLoadStringObject(RDB_LOAD_PLAIN)`.
    fn string(&mut self) -> Result<Vec<u8>, Error> {
        let (len, encoded) = self.length()?;
        if !encoded {
            let len = usize::try_from(len).map_err(|_| Error::BadEncoding)?;
            return Ok(self.take(len)?.to_vec());
        }
        let number = match len {
            ENC_INT8 => i64::from(i8::from_le_bytes(self.array()?)),
            ENC_INT16 => i64::from(i16::from_le_bytes(self.array()?)),
            ENC_INT32 => i64::from(i32::from_le_bytes(self.array()?)),
            ENC_LZF => {
                let (compressed, _) = self.length()?;
                let (plain, _) = self.length()?;
                let compressed = usize::try_from(compressed).map_err(|_| Error::BadEncoding)?;
                let plain = usize::try_from(plain)
                    .ok()
                    .filter(|n| *n <= MAX_STRING)
                    .ok_or(Error::BadEncoding)?;
                let input = self.take(compressed)?;
                return crate::lzf::decompress(input, plain).ok_or(Error::BadEncoding);
            }
            _ => return Err(Error::BadEncoding),
        };
        Ok(number.to_string().into_bytes())
    }
}

impl RdbRead for DumpReader<'_> {
    fn unsigned(&mut self) -> Result<u64, Error> {
        self.opcode(OP_UINT)?;
        Ok(self.length()?.0)
    }

    fn double(&mut self) -> Result<f64, Error> {
        self.opcode(OP_DOUBLE)?;
        Ok(f64::from_le_bytes(self.array()?))
    }

    fn bytes(&mut self) -> Result<Vec<u8>, Error> {
        self.opcode(OP_STRING)?;
        self.string()
    }
}

/// The `DUMP` payload of a value of module type `module` whose fields `save` writes, as
/// `RESTORE` takes it (through the module's own writer, `core::dump`).
pub fn payload(module: ModuleType, save: impl Fn(&mut dump::DumpWriter)) -> Vec<u8> {
    let name = std::str::from_utf8(&module.name).expect("a type name is ASCII");
    let id = dump::type_id(name, module.encver).expect("a module type Redis registers");
    dump::payload(id, RDB_VERSION, save).expect("a test payload fits in memory")
}

/// Wraps a field reader and keeps a copy of every field read, in `FieldWriter`'s format, so
/// a target can compare what a value saves to with what it was loaded from.
#[derive(Debug)]
pub struct Recording<R> {
    pub inner: R,
    pub fields: redis_bf::core::rdb::FieldWriter,
    /// Bytes of all strings read.
    pub string_bytes: u64,
}

impl<R> Recording<R> {
    pub fn new(inner: R) -> Recording<R> {
        Recording {
            inner,
            fields: Default::default(),
            string_bytes: 0,
        }
    }
}

impl<R: RdbRead> RdbRead for Recording<R> {
    fn unsigned(&mut self) -> Result<u64, Error> {
        let n = self.inner.unsigned()?;
        self.fields.unsigned(n);
        Ok(n)
    }

    fn double(&mut self) -> Result<f64, Error> {
        let x = self.inner.double()?;
        self.fields.double(x);
        Ok(x)
    }

    fn bytes(&mut self) -> Result<Vec<u8>, Error> {
        let bytes = self.inner.bytes()?;
        self.fields.bytes(&bytes);
        self.string_bytes += bytes.len() as u64;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_ids_are_redis_s() {
        // The Cuckoo filter's id, as RedisBloom's DUMP payloads show it.
        let cf = ModuleType {
            name: *b"MBbloomCF",
            encver: 4,
        };
        assert_eq!(ModuleType::from_id(0x3016_e5a2_8982_1404), cf);
    }

    #[test]
    fn the_documented_cuckoo_payload_reads_field_for_field() {
        // CF.RESERVE d1 4 EXPANSION 0, CF.ADD d1 1, CF.ADD d1 2 on RedisBloom 2.8.2 (Redis 7.0).
        let payload = [
            0x07, 0x81, 0x30, 0x16, 0xe5, 0xa2, 0x89, 0x82, 0x14, 0x04, 0x02, 0x01, 0x02, 0x02,
            0x02, 0x02, 0x02, 0x00, 0x02, 0x02, 0x02, 0x14, 0x02, 0x00, 0x02, 0x02, 0x05, 0x04,
            0xdd, 0x00, 0x65, 0x00, 0x00,
        ];
        let (module, mut r) = open(&payload).unwrap();
        assert_eq!((&module.name, module.encver), (b"MBbloomCF", 4));
        let numbers: Vec<u64> = (0..8).map(|_| r.unsigned().unwrap()).collect();
        assert_eq!(numbers, [1, 2, 2, 0, 2, 20, 0, 2]);
        assert_eq!(r.bytes().unwrap(), [0xdd, 0, 0x65, 0]);
        assert_eq!(r.finish().unwrap(), b"");
    }

    #[test]
    fn written_payloads_read_back() {
        let module = ModuleType {
            name: *b"MBbloom--",
            encver: 4,
        };
        let payload = payload(module, |w| {
            for n in [0, 63, 64, 16383, 16384, u32::MAX as u64, u64::MAX] {
                w.unsigned(n);
            }
            w.double(0.01);
            w.bytes(&[7; 300]);
        });
        let (read_module, mut r) = open(&payload).unwrap();
        assert_eq!(read_module, module);
        for n in [0, 63, 64, 16383, 16384, u32::MAX as u64, u64::MAX] {
            assert_eq!(r.unsigned(), Ok(n));
        }
        assert_eq!(r.double(), Ok(0.01));
        assert_eq!(r.bytes(), Ok(vec![7; 300]));
        let trailer = r.finish().unwrap();
        assert_eq!(trailer.len(), 10);
        let body = &payload[..payload.len() - 8];
        assert_eq!(
            dump::crc64(body).to_le_bytes(),
            payload[payload.len() - 8..]
        );
    }

    #[test]
    fn integer_encoded_strings_read_as_their_digits() {
        let mut r = DumpReader {
            rest: &[
                5, 0xc0, 0xfe, 5, 0xc1, 0x39, 0x30, 5, 0xc2, 0xff, 0xff, 0xff, 0x7f,
            ],
        };
        assert_eq!(r.bytes().unwrap(), b"-2");
        assert_eq!(r.bytes().unwrap(), b"12345");
        assert_eq!(r.bytes().unwrap(), b"2147483647");
    }
}
