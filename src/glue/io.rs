//! The server's I/O handles as the formats use them: an RDB file or DUMP payload as the core's
//! field reader and writer ([`Io`]), an AOF being rewritten ([`Aof`]), a DEBUG DIGEST being
//! computed ([`Digest`]). Each wraps the pointer the server passed to the callback, which
//! outlives it.

use std::ffi::CStr;
use std::os::raw::{c_char, c_longlong};

use redis_module::raw;

use super::huge_pages::advise_huge_pages;
use super::memory;
use crate::core::rdb::{RdbRead, RdbWrite};
use crate::core::sparse::Sparse;
use crate::core::{Error, Memory};

/// The server's RDB I/O handle as the core's field reader and writer. Read errors
/// (truncated payloads) show as `BadEncoding`: the module asks the server to report I/O
/// errors instead of aborting (`HANDLE_IO_ERRORS`).
pub struct Io(*mut raw::RedisModuleIO);

impl Io {
    /// The handle Redis passed to `rdb_load` or `rdb_save`.
    pub fn new(io: *mut raw::RedisModuleIO) -> Io {
        Io(io)
    }

    /// The bounds of a value being loaded (`memory::memory` of the load's context): a format
    /// checks what a payload announces against them before reading its arrays, so that
    /// RESTORE obeys the limits a command would.
    pub fn memory(&self) -> Memory {
        // SAFETY: `self.0` is the I/O handle Redis passed to rdb_load; the context it gives
        // lives as long as the handle.
        let ctx = unsafe {
            raw::RedisModule_GetContextFromIO.map_or(std::ptr::null_mut(), |get| get(self.0))
        };
        if ctx.is_null() {
            memory::machine_memory()
        } else {
            memory::memory(ctx)
        }
    }
}

impl RdbRead for Io {
    fn unsigned(&mut self) -> Result<u64, Error> {
        raw::load_unsigned(self.0).map_err(|_| Error::BadEncoding)
    }

    fn double(&mut self) -> Result<f64, Error> {
        raw::load_double(self.0).map_err(|_| Error::BadEncoding)
    }

    /// The next string, as a Vec that takes over the buffer Redis read it into: a big bit
    /// array is not copied, so loading needs no second copy of it in memory. A big one is
    /// advised huge pages (`bf-huge-pages`), as arrays made by commands are.
    fn bytes(&mut self) -> Result<Vec<u8>, Error> {
        let mut len = 0usize;
        // SAFETY: `self.0` is the I/O handle Redis passed to rdb_load.
        let buffer = unsafe {
            let load = raw::RedisModule_LoadStringBuffer.ok_or(Error::BadEncoding)?;
            load(self.0, &mut len).cast::<u8>()
        };
        if buffer.is_null() || raw::is_io_error(self.0) {
            return Err(Error::BadEncoding);
        }
        if len == 0 {
            // SAFETY: Redis gave us this allocation to free.
            unsafe {
                if let Some(free) = raw::RedisModule_Free {
                    free(buffer.cast());
                }
            }
            return Ok(Vec::new());
        }
        // SAFETY: Redis allocated `len` bytes at `buffer` with its allocator and hands them to
        // us. The global allocator (glue::alloc) frees byte arrays (alignment 1) with that same
        // allocator, so the Vec can own and later free them.
        let bytes = unsafe { Vec::from_raw_parts(buffer, len, len) };
        advise_huge_pages(&bytes);
        Ok(bytes)
    }
}

impl RdbWrite for Io {
    fn unsigned(&mut self, n: u64) {
        raw::save_unsigned(self.0, n);
    }

    fn double(&mut self, x: f64) {
        raw::save_double(self.0, x);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        raw::save_slice(self.0, bytes);
    }
}

/// The AOF being rewritten, at one key: where a format writes the commands that rebuild it.
pub struct Aof {
    io: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
}

impl Aof {
    /// The handle and key Redis passed to `aof_rewrite`.
    pub fn new(io: *mut raw::RedisModuleIO, key: *mut raw::RedisModuleString) -> Aof {
        Aof { io, key }
    }

    /// Emits the value as the LOADCHUNK sequence of a SCANDUMP walk: `<command> key 1
    /// <header>`, then `<command> key <next> <chunk>` for each `(next, chunk)` of `chunks`.
    pub fn loadchunks<'a>(
        &mut self,
        command: &CStr,
        header: &[u8],
        chunks: impl IntoIterator<Item = (i64, &'a [u8])>,
    ) {
        self.emit(command, 1, header);
        for (next, chunk) in chunks {
            self.emit(command, next, chunk);
        }
    }

    /// Emits `RESTORE key 0 <payload>`: the key, no expiry (the rewrite writes the key's
    /// expiry after it), the value as the `DUMP` payload `payload`.
    pub fn restore(&mut self, payload: &[u8]) {
        self.emit(c"RESTORE", 0, payload);
    }

    /// Emits `<command> key <data>` (valkey-bloom's `BF.LOAD key <payload>`).
    pub fn key_and(&mut self, command: &CStr, data: &[u8]) {
        // SAFETY: "sb" takes a RedisModuleString* and a (pointer, length) buffer, exactly the
        // arguments passed; `io` and `key` are what Redis passed to aof_rewrite, and all of
        // them outlive the call.
        unsafe {
            if let Some(emit) = raw::RedisModule_EmitAOF {
                emit(
                    self.io,
                    command.as_ptr(),
                    c"sb".as_ptr(),
                    self.key,
                    data.as_ptr().cast::<c_char>(),
                    data.len(),
                );
            }
        }
    }

    /// Fails the whole rewrite, with `why` in the server log: the server keeps its current
    /// AOF rather than write one without this key. The module API has no call for it; an
    /// unknown command name is what makes `RedisModule_EmitAOF` mark the rewrite failed
    /// (`RM_EmitAOF` in Redis's and Valkey's `src/module.c`), and the server logs that name.
    pub fn fail(&mut self, why: &CStr) {
        // SAFETY: `io` is what Redis passed to aof_rewrite; `why` is NUL-terminated and the
        // format "" takes no arguments (the server returns before reading it).
        unsafe {
            if let Some(emit) = raw::RedisModule_EmitAOF {
                emit(self.io, why.as_ptr(), c"".as_ptr());
            }
        }
    }

    fn emit(&mut self, command: &CStr, iter: i64, data: &[u8]) {
        // SAFETY: "slb" takes a RedisModuleString*, a long long and a (pointer, length)
        // buffer, exactly the arguments passed; `io` and `key` are what Redis passed to
        // aof_rewrite, and all of them outlive the call.
        unsafe {
            if let Some(emit) = raw::RedisModule_EmitAOF {
                emit(
                    self.io,
                    command.as_ptr(),
                    c"slb".as_ptr(),
                    self.key,
                    iter as c_longlong,
                    data.as_ptr().cast::<c_char>(),
                    data.len(),
                );
            }
        }
    }
}

/// A value's DEBUG DIGEST, being computed.
pub struct Digest(*mut raw::RedisModuleDigest);

impl Digest {
    /// The digest Redis passed to `digest`.
    pub fn new(digest: *mut raw::RedisModuleDigest) -> Digest {
        Digest(digest)
    }

    /// Adds numbers.
    pub fn numbers(&mut self, numbers: &[u64]) {
        for &n in numbers {
            // SAFETY: `self.0` is the digest Redis passed to the digest callback.
            unsafe {
                if let Some(add) = raw::RedisModule_DigestAddLongLong {
                    add(self.0, n as c_longlong);
                }
            }
        }
    }

    /// Adds bytes.
    pub fn bytes(&mut self, bytes: &[u8]) {
        // SAFETY: as in `numbers`; the slice outlives the call.
        unsafe {
            if let Some(add) = raw::RedisModule_DigestAddStringBuffer {
                add(self.0, bytes.as_ptr().cast::<c_char>(), bytes.len());
            }
        }
    }

    /// Adds an array as what it holds: its length, then each run of blocks with a set byte,
    /// as its offset and bytes. Blocks never written are not read, so the digest of a huge
    /// sparse value costs its data; two arrays with the same bytes give the same digest,
    /// whatever their history.
    pub fn sparse(&mut self, array: &Sparse) {
        self.numbers(&[array.len() as u64]);
        for (offset, run) in array.nonzero_runs() {
            self.numbers(&[offset as u64]);
            self.bytes(run);
        }
    }
}

/// A value's saved fields as its digest: a format's RDB save run into it adds every field.
impl RdbWrite for Digest {
    fn unsigned(&mut self, n: u64) {
        self.numbers(&[n]);
    }

    fn double(&mut self, x: f64) {
        self.numbers(&[x.to_bits()]);
    }

    fn bytes(&mut self, bytes: &[u8]) {
        Digest::bytes(self, bytes);
    }
}
