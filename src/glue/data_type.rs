//! What every stored data type shares: the callback table's shape, the value pointer
//! convention (`Box<T>` handed to Redis, freed by `free`), the callbacks that only need a
//! value's size and a copy of it ([`StoredValue`]: `mem_usage`, `free_effort`, `copy`,
//! `free`), the module's totals kept as values enter the keyspace (RDB load, COPY) and are
//! freed (commands count what they store and change: `commands::metrics`), and the I/O
//! helpers the type files build their RDB, AOF and digest callbacks from.
//! Each data type has its own file (`bloom_type.rs`, `cuckoo_type.rs`) holding only what its
//! format needs.

use std::ffi::CStr;
use std::os::raw::{c_char, c_longlong, c_void};
use std::ptr;

use redis_module::raw;

use super::alloc::advise_huge_pages;
use super::guard::guarded;
use super::info::METRICS;
use crate::commands::metrics::Measured;
use crate::core::rdb::{RdbRead, RdbWrite};
use crate::core::Error;

/// What the shared callbacks need to know of a stored value, besides its footprint.
pub trait StoredValue: Sized + Measured {
    /// Bytes it holds as `MEMORY USAGE` reports them (RedisBloom's count, to the byte).
    fn memory_usage(&self) -> u64;
    /// Separately allocated arrays it holds (sub-filters): each costs a free.
    fn arrays(&self) -> usize;
    /// An independent copy for `COPY`, or an error instead of aborting the server.
    fn try_clone(&self) -> Result<Self, Error>;
}

/// A callback table with nothing set: each type fills in what it has (`..NO_CALLBACKS`).
pub const NO_CALLBACKS: raw::RedisModuleTypeMethods = raw::RedisModuleTypeMethods {
    version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
    rdb_load: None,
    rdb_save: None,
    aof_rewrite: None,
    mem_usage: None,
    digest: None,
    free: None,
    aux_load: None,
    aux_save: None,
    aux_save_triggers: 0,
    free_effort: None,
    unlink: None,
    copy: None,
    defrag: None,
    mem_usage2: None,
    free_effort2: None,
    unlink2: None,
    copy2: None,
    aux_save2: None,
};

/// The value behind a value pointer.
///
/// # Safety
/// `value` must be a live `Box<T>` pointer handed out by [`into_value`].
pub unsafe fn value_ref<'a, T>(value: *const c_void) -> &'a T {
    // SAFETY: guaranteed by the caller.
    unsafe { &*value.cast::<T>() }
}

/// Hands `value` to Redis as a value pointer (from RDB load or COPY, on the main thread),
/// adding it to the totals.
pub fn into_value<T: Measured>(value: T) -> *mut c_void {
    T::family(&METRICS).entered(value.footprint());
    Box::into_raw(Box::new(value)).cast()
}

/// The `free` callback of a type whose values are `T`: on the main thread or the lazy-free
/// one, which `Family::freed` allows. Null is no value: when a payload ends before its EOF
/// marker, Redis 6.0 wraps whatever `rdb_load` returned, a refusal's null included, to free
/// it (`rdbLoadObject` in its `src/rdb.c`; later servers check first).
pub unsafe extern "C" fn free<T: Measured>(value: *mut c_void) {
    if value.is_null() {
        return;
    }
    // SAFETY: Redis frees each value once, with the pointer it was given (`into_value`, or
    // the crate's `set_value` for values commands store).
    let value = unsafe { Box::from_raw(value.cast::<T>()) };
    let footprint = value.footprint();
    drop(value);
    T::family(&METRICS).freed(footprint);
}

/// The `mem_usage` callback of a type whose values are `T`.
pub unsafe extern "C" fn mem_usage<T: StoredValue>(value: *const c_void) -> usize {
    // SAFETY: Redis passes a live value of this type.
    usize::try_from(unsafe { value_ref::<T>(value) }.memory_usage()).unwrap_or(usize::MAX)
}

/// The `free_effort` callback: bigger values are freed by the lazy-free thread (UNLINK,
/// lazyfree-lazy-*). One unit of effort per array and per 64 KiB, so values above ~4 MiB pass
/// Redis's threshold of 64.
pub unsafe extern "C" fn free_effort<T: StoredValue>(
    _key: *mut raw::RedisModuleString,
    value: *const c_void,
) -> usize {
    // SAFETY: Redis passes a live value of this type.
    let value = unsafe { value_ref::<T>(value) };
    let chunks = usize::try_from(value.memory_usage() >> 16).unwrap_or(usize::MAX);
    value.arrays().saturating_add(chunks)
}

/// The `copy` callback (COPY): a null return makes COPY fail cleanly when the copy cannot be
/// made.
pub unsafe extern "C" fn copy<T: StoredValue>(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a live value of this type.
    let value = unsafe { value_ref::<T>(value) };
    guarded(ptr::null_mut(), || {
        value.try_clone().map_or(ptr::null_mut(), into_value)
    })
}

/// The server's RDB I/O handle as the core's field reader and writer. Read errors
/// (truncated payloads) show as `BadEncoding`: the module asks the server to report I/O
/// errors instead of aborting (`HANDLE_IO_ERRORS`).
pub struct Io(pub *mut raw::RedisModuleIO);

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

/// Emits one `<command> key <iter> <data>` line of an AOF rewrite (the LOADCHUNK of a family).
pub fn emit_chunk(
    aof: *mut raw::RedisModuleIO,
    command: &CStr,
    key: *mut raw::RedisModuleString,
    iter: i64,
    data: &[u8],
) {
    // SAFETY: "slb" takes a RedisModuleString*, a long long and a (pointer, length) buffer,
    // exactly the arguments passed; all of them outlive the call.
    unsafe {
        if let Some(emit) = raw::RedisModule_EmitAOF {
            emit(
                aof,
                command.as_ptr(),
                c"slb".as_ptr(),
                key,
                iter as c_longlong,
                data.as_ptr().cast::<c_char>(),
                data.len(),
            );
        }
    }
}

/// Adds numbers to a DEBUG DIGEST.
pub fn add_numbers(md: *mut raw::RedisModuleDigest, numbers: &[u64]) {
    for &n in numbers {
        // SAFETY: `md` is the digest Redis passed to `digest`.
        unsafe {
            if let Some(add) = raw::RedisModule_DigestAddLongLong {
                add(md, n as c_longlong);
            }
        }
    }
}

/// Adds bytes to a DEBUG DIGEST.
pub fn add_bytes(md: *mut raw::RedisModuleDigest, bytes: &[u8]) {
    // SAFETY: `md` is the digest Redis passed to the digest callback; the slice outlives the call.
    unsafe {
        if let Some(add) = raw::RedisModule_DigestAddStringBuffer {
            add(md, bytes.as_ptr().cast::<c_char>(), bytes.len());
        }
    }
}

/// Ends a value's DEBUG DIGEST.
pub fn end_digest(md: *mut raw::RedisModuleDigest) {
    // SAFETY: as in `add_bytes`.
    unsafe {
        if let Some(end) = raw::RedisModule_DigestEndSequence {
            end(md);
        }
    }
}
