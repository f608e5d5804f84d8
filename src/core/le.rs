//! Little-endian fields read from plain bytes, for every format the core reads that way: the
//! SCANDUMP headers of both families and the RDB field format of [`crate::core::rdb`].

use super::Error;

/// A cursor over bytes that fails with [`Error::BadEncoding`] instead of reading past the end.
#[derive(Debug, Clone)]
pub struct LeReader<'a>(pub &'a [u8]);

impl<'a> LeReader<'a> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let (head, rest) = self.0.split_first_chunk::<N>().ok_or(Error::BadEncoding)?;
        self.0 = rest;
        Ok(*head)
    }

    /// The next `len` bytes.
    pub fn slice(&mut self, len: usize) -> Result<&'a [u8], Error> {
        let (head, rest) = self.0.split_at_checked(len).ok_or(Error::BadEncoding)?;
        self.0 = rest;
        Ok(head)
    }

    /// Whether every byte was read.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8, Error> {
        Ok(u8::from_le_bytes(self.take()?))
    }

    /// Two bytes.
    pub fn u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(self.take()?))
    }

    /// Four bytes.
    pub fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.take()?))
    }

    /// Eight bytes.
    pub fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.take()?))
    }

    /// Eight bytes of an IEEE 754 double.
    pub fn f64(&mut self) -> Result<f64, Error> {
        Ok(f64::from_le_bytes(self.take()?))
    }
}
