//! A value as a `DUMP` payload, the bytes `RESTORE` takes: what Redis writes for a module
//! value (`rdbSaveObject` and `moduleTypeEncodeId` in its `src/rdb.c` and `src/module.c`,
//! `createDumpPayload` in `src/cluster.c`):
//!
//! * `RDB_TYPE_MODULE_2` (7), then the module type id as an 8-byte RDB length (`81`): nine
//!   6-bit name characters, then 10 bits of encoding version;
//! * per field an opcode and its value — `02` an unsigned integer as an RDB length, `04` a
//!   double as 8 little-endian bytes, `05` a string as an RDB length and its bytes — then the
//!   module end-of-value opcode `00`;
//! * the RDB version as 2 little-endian bytes, then the CRC-64 of everything before it, 8
//!   little-endian bytes.
//!
//! Strings are written uncompressed, which every server reads (it compresses only what it
//! writes itself). A family's RDB format writes its fields through [`RdbWrite`], so the same
//! code saves a value into an RDB file and into a payload.

use super::rdb::RdbWrite;
use super::Error;
use crate::core::try_vec;

/// `RDB_TYPE_MODULE_2`: a module value whose fields carry opcodes.
const TYPE_MODULE_2: u8 = 7;
/// The RDB length prefix of an 8-byte big-endian length.
const LENGTH_64: u8 = 0x81;
/// The RDB length prefix of a 4-byte big-endian length.
const LENGTH_32: u8 = 0x80;
const OP_EOF: u8 = 0;
const OP_UNSIGNED: u8 = 2;
const OP_DOUBLE: u8 = 4;
const OP_STRING: u8 = 5;
/// The characters of a module type name, in the order their 6-bit codes count them
/// (`ModuleTypeNameCharSet`).
const NAME_CHARACTERS: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The 64-bit id under which a payload names a module type: its 9-character `name` and
/// `encver` (0 to 1023). `None` for a name Redis would refuse to register.
pub fn type_id(name: &str, encver: i32) -> Option<u64> {
    let name = name.as_bytes();
    if name.len() != 9 || !(0..1024).contains(&encver) {
        return None;
    }
    let mut id = 0u64;
    for c in name {
        let code = NAME_CHARACTERS.iter().position(|x| x == c)?;
        id = id << 6 | code as u64;
    }
    Some(id << 10 | encver as u64)
}

/// Where a value's fields go: first counted, then written (see [`payload`]).
#[derive(Debug, Default)]
pub struct DumpWriter {
    /// The bytes, once the size is known and reserved; `None` while counting.
    bytes: Option<Vec<u8>>,
    /// Bytes the fields take.
    len: u64,
}

impl DumpWriter {
    fn put(&mut self, data: &[u8]) {
        self.len += data.len() as u64;
        if let Some(bytes) = &mut self.bytes {
            bytes.extend_from_slice(data);
        }
    }

    /// `n` as an RDB length: 6 bits, 14 bits, or 4 or 8 bytes after a prefix.
    fn length(&mut self, n: u64) {
        match n {
            0..0x40 => self.put(&[n as u8]),
            0x40..0x4000 => self.put(&(n as u16 | 0x4000).to_be_bytes()),
            0x4000..0x1_0000_0000 => {
                self.put(&[LENGTH_32]);
                self.put(&(n as u32).to_be_bytes());
            }
            _ => {
                self.put(&[LENGTH_64]);
                self.put(&n.to_be_bytes());
            }
        }
    }
}

impl RdbWrite for DumpWriter {
    fn unsigned(&mut self, n: u64) {
        self.put(&[OP_UNSIGNED]);
        self.length(n);
    }

    fn double(&mut self, x: f64) {
        self.put(&[OP_DOUBLE]);
        self.put(&x.to_le_bytes());
    }

    fn bytes(&mut self, bytes: &[u8]) {
        self.put(&[OP_STRING]);
        self.length(bytes.len() as u64);
        self.put(bytes);
    }
}

/// The `DUMP` payload of a value of module type `type_id` whose fields `save` writes, framed
/// with `rdb_version`. `save` runs twice: once to size the payload, which is then reserved
/// whole (`OutOfMemory` if it cannot be), once to write it.
pub fn payload(
    type_id: u64,
    rdb_version: u16,
    save: impl Fn(&mut DumpWriter),
) -> Result<Vec<u8>, Error> {
    let mut sizing = DumpWriter::default();
    save(&mut sizing);
    // Type byte, id prefix and id, the fields, EOF, version and CRC.
    let total =
        usize::try_from(sizing.len + 1 + 1 + 8 + 1 + 2 + 8).map_err(|_| Error::OutOfMemory)?;
    let mut bytes = try_vec(total)?;
    bytes.push(TYPE_MODULE_2);
    bytes.push(LENGTH_64);
    bytes.extend_from_slice(&type_id.to_be_bytes());
    let mut out = DumpWriter {
        bytes: Some(bytes),
        len: 0,
    };
    save(&mut out);
    let mut bytes = out.bytes.unwrap_or_default();
    bytes.push(OP_EOF);
    bytes.extend_from_slice(&rdb_version.to_le_bytes());
    let crc = crc64(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    Ok(bytes)
}

/// CRC-64/Jones as Redis computes it (`src/crc64.c`: reflected, polynomial
/// 0xad93d23594c935a9, initial value 0), a bit at a time: payloads are built rarely (an AOF
/// rewrite), and this needs no table.
pub fn crc64(data: &[u8]) -> u64 {
    const REFLECTED_POLYNOMIAL: u64 = 0x95ac_9329_ac4b_c9b5;
    let mut crc = 0u64;
    for &b in data {
        crc ^= u64::from(b);
        for _ in 0..8 {
            let low_bit = crc & 1;
            crc = (crc >> 1) ^ (REFLECTED_POLYNOMIAL * low_bit);
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc64_check_value() {
        // Redis's own crc64 test vector (`crc64Test` in its `src/crc64.c`).
        assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
    }

    #[test]
    fn type_ids_of_redisbloom_types() {
        // As the DUMP payloads of RedisBloom 2.8.2 on Redis 7.0.15 carry them.
        assert_eq!(type_id("CMSk-TYPE", 0), Some(0x08c4_a4f9_360f_1000));
        assert_eq!(type_id("TopK-TYPE", 0), Some(0x4e8a_4af9_360f_1000));
        assert_eq!(
            type_id("MBbloomCF", 4),
            Some(type_id("MBbloomCF", 0).unwrap() | 4)
        );
        assert_eq!(type_id("short", 0), None);
        assert_eq!(type_id("bad name!", 0), None);
        assert_eq!(type_id("CMSk-TYPE", 1024), None);
    }

    #[test]
    fn lengths_take_redis_s_four_forms_and_the_payload_is_sized_exactly() {
        let fields = |out: &mut DumpWriter| {
            for n in [0, 0x3f, 0x40, 0x3fff, 0x4000, u64::from(u32::MAX), 1 << 32] {
                out.unsigned(n);
            }
            out.double(0.5);
            out.bytes(b"ab");
        };
        let bytes = payload(0x0102_0304_0506_0708, 9, fields).unwrap();
        assert_eq!(bytes.capacity(), bytes.len());
        let body: &[u8] = &[
            2, 0x00, 2, 0x3f, 2, 0x40, 0x40, 2, 0x7f, 0xff, 2, 0x80, 0, 0, 0x40, 0, 2, 0x80, 0xff,
            0xff, 0xff, 0xff, 2, 0x81, 0, 0, 0, 1, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 5,
            2, b'a', b'b',
        ];
        assert_eq!(bytes[..10], [7, 0x81, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(&bytes[10..bytes.len() - 11], body);
        let (framed, crc) = bytes.split_at(bytes.len() - 8);
        assert_eq!(framed[framed.len() - 3..], [0, 9, 0]);
        assert_eq!(crc, crc64(framed).to_le_bytes());
    }
}
