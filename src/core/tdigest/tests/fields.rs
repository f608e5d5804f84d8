//! A module value's fields as a `DUMP` payload carries them (Redis's `rdbSaveLen` and
//! `RedisModule_SaveDouble` encodings), so that payloads captured from RedisBloom can be loaded
//! and saved back byte for byte: `02` and a length-encoded integer for `SaveSigned`/
//! `SaveUnsigned`, `04` and 8 little-endian bytes for `SaveDouble`.

use crate::core::rdb::{RdbRead, RdbWrite};
use crate::core::Error;

/// Encodes fields as Redis does.
#[derive(Debug, Default)]
pub struct DumpWriter(pub Vec<u8>);

impl RdbWrite for DumpWriter {
    fn unsigned(&mut self, n: u64) {
        self.0.push(0x02);
        if n < 1 << 6 {
            self.0.push(n as u8);
        } else if n < 1 << 14 {
            self.0.extend_from_slice(&[0x40 | (n >> 8) as u8, n as u8]);
        } else if n <= u64::from(u32::MAX) {
            self.0.push(0x80);
            self.0.extend_from_slice(&(n as u32).to_be_bytes());
        } else {
            self.0.push(0x81);
            self.0.extend_from_slice(&n.to_be_bytes());
        }
    }

    fn double(&mut self, x: f64) {
        self.0.push(0x04);
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn bytes(&mut self, _: &[u8]) {
        unreachable!("t-digests save no strings")
    }
}

/// Decodes fields as Redis does, failing cleanly where the input runs short or a field has
/// another type.
#[derive(Debug)]
pub struct DumpReader<'a>(pub &'a [u8]);

impl DumpReader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        let (head, rest) = self.0.split_at_checked(n).ok_or(Error::BadEncoding)?;
        self.0 = rest;
        Ok(head)
    }

    fn opcode(&mut self, expected: u8) -> Result<(), Error> {
        match self.take(1)? {
            [op] if *op == expected => Ok(()),
            _ => Err(Error::BadEncoding),
        }
    }
}

impl RdbRead for DumpReader<'_> {
    fn unsigned(&mut self) -> Result<u64, Error> {
        self.opcode(0x02)?;
        let first = self.take(1)?[0];
        Ok(match first >> 6 {
            0 => u64::from(first),
            1 => u64::from(first & 0x3f) << 8 | u64::from(self.take(1)?[0]),
            _ if first == 0x80 => u64::from(u32::from_be_bytes(self.take(4)?.try_into().unwrap())),
            _ if first == 0x81 => u64::from_be_bytes(self.take(8)?.try_into().unwrap()),
            _ => return Err(Error::BadEncoding),
        })
    }

    fn double(&mut self) -> Result<f64, Error> {
        self.opcode(0x04)?;
        Ok(f64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }

    fn bytes(&mut self) -> Result<Vec<u8>, Error> {
        Err(Error::BadEncoding)
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
