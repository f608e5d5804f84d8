//! The Cuckoo-filter data type `MBbloomCF`, encoding version 4: RedisBloom's name and format,
//! so RedisBloom's RDB files and DUMP payloads load here and ours load there (the format is
//! `core::cuckoo::rdb`). RedisBloom's type has no digest, copy or free-effort callbacks; this
//! one has all three, from the shared ones of `data_type.rs`. Values are `Box<CuckooFilter>`.

use std::os::raw::{c_int, c_void};
use std::ptr;

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::config;
use super::data_type::NO_CALLBACKS;
use super::data_type::{add_bytes, add_numbers, emit_chunk, end_digest, into_value};
use super::data_type::{copy, free, free_effort, mem_usage, value_ref, Io, StoredValue};
use super::guard::guarded;
use crate::core::cuckoo::{encoding, rdb, CuckooFilter};
use crate::core::Error;

pub static CUCKOO_TYPE: RedisType = RedisType::new(
    "MBbloomCF",
    rdb::ENCODING_VERSION,
    raw::RedisModuleTypeMethods {
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        mem_usage: Some(mem_usage::<CuckooFilter>),
        digest: Some(digest),
        free: Some(free::<CuckooFilter>),
        free_effort: Some(free_effort::<CuckooFilter>),
        copy: Some(copy::<CuckooFilter>),
        ..NO_CALLBACKS
    },
);

impl StoredValue for CuckooFilter {
    /// `40 + 16 × sub-filters + their bytes`: RedisBloom's `CFMemUsage`, to the byte.
    fn memory_usage(&self) -> u64 {
        CuckooFilter::memory_usage(self)
    }

    fn arrays(&self) -> usize {
        usize::from(self.num_filters())
    }

    fn try_clone(&self) -> Result<CuckooFilter, Error> {
        CuckooFilter::try_clone(self)
    }
}

/// The filter behind a value pointer.
///
/// # Safety
/// `value` must be a live value of this type.
unsafe fn filter<'a>(value: *const c_void) -> &'a CuckooFilter {
    // SAFETY: guaranteed by the caller; values of this type are `Box<CuckooFilter>`.
    unsafe { value_ref::<CuckooFilter>(value) }
}

unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a live value of this type.
    rdb::save(unsafe { filter(value) }, &mut Io(rdb));
}

unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    // Values saved before encoding version 4 take today's `cf-*` configs for what they lack,
    // as RedisBloom 8 does. A null return fails the load: RESTORE answers `ERR Bad data format`.
    let legacy = config::cuckoo_defaults().legacy();
    guarded(ptr::null_mut(), || {
        rdb::load(&mut Io(rdb), encver, legacy).map_or(ptr::null_mut(), into_value)
    })
}

/// Rewrites the value as the CF.LOADCHUNK sequence of a SCANDUMP walk (used when the AOF has
/// no RDB preamble). Unlike SCANDUMP, an empty filter is written too.
unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a live value of this type.
    let filter = unsafe { filter(value) };
    emit_chunk(
        aof,
        c"CF.LOADCHUNK",
        key,
        1,
        &encoding::encode_header(filter),
    );
    for (next, data) in encoding::chunks(filter) {
        emit_chunk(aof, c"CF.LOADCHUNK", key, next, data);
    }
}

/// DEBUG DIGEST / DIGEST-VALUE: every field and every fingerprint, so any difference shows.
unsafe extern "C" fn digest(md: *mut raw::RedisModuleDigest, value: *mut c_void) {
    // SAFETY: Redis passes a live value of this type.
    let filter = unsafe { filter(value) };
    add_numbers(md, &filter.saved_header().fields());
    for (num_buckets, data) in filter.sub_filters() {
        add_numbers(md, &[num_buckets]);
        add_bytes(md, data);
    }
    end_digest(md);
}
