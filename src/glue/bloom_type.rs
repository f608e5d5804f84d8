//! The two Bloom-filter data types, with the same callbacks but their own RDB format:
//!
//! * `MBbloom--`, encoding version 4: RedisBloom's name and format, for classic filters, so
//!   RedisBloom's RDB files and DUMP payloads load here and ours load there;
//! * `bfblocked`, encoding version 1: fast-layout filters. RedisBloom has no such type, so it
//!   refuses them cleanly instead of misreading them.
//!
//! Each callback is a few lines delegating to the core; values are `Box<Chain>` (see
//! `data_type.rs`).

use std::os::raw::{c_int, c_void};
use std::ptr;

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::data_type::NO_CALLBACKS;
use super::data_type::{add_bytes, add_numbers, emit_chunk, end_digest, into_value};
use super::data_type::{copy, free, free_effort, mem_usage, value_ref, Io, StoredValue};
use super::guard::guarded;
use crate::core::bloom::chain::Chain;
use crate::core::bloom::{encoding, rdb};
use crate::core::Error;

pub static BLOOM_TYPE: RedisType =
    RedisType::new("MBbloom--", rdb::ENCODING_VERSION, methods(rdb_load));

pub static FAST_TYPE: RedisType = RedisType::new(
    "bfblocked",
    rdb::FAST_ENCODING_VERSION,
    methods(fast_rdb_load),
);

type LoadFn = unsafe extern "C" fn(*mut raw::RedisModuleIO, c_int) -> *mut c_void;

/// The callbacks of both types: only loading differs (saving writes the format of the
/// chain's layout, which decides its type).
const fn methods(rdb_load: LoadFn) -> raw::RedisModuleTypeMethods {
    raw::RedisModuleTypeMethods {
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        mem_usage: Some(mem_usage::<Chain>),
        digest: Some(digest),
        free: Some(free::<Chain>),
        free_effort: Some(free_effort::<Chain>),
        copy: Some(copy::<Chain>),
        ..NO_CALLBACKS
    }
}

impl StoredValue for Chain {
    fn memory_usage(&self) -> u64 {
        Chain::memory_usage(self)
    }

    fn arrays(&self) -> usize {
        self.links().len()
    }

    fn try_clone(&self) -> Result<Chain, Error> {
        Chain::try_clone(self)
    }
}

/// The chain behind a value pointer.
///
/// # Safety
/// `value` must be a live value of one of these types.
unsafe fn chain<'a>(value: *const c_void) -> &'a Chain {
    // SAFETY: guaranteed by the caller; values of these types are `Box<Chain>`.
    unsafe { value_ref::<Chain>(value) }
}

unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a live value of this type.
    rdb::save(unsafe { chain(value) }, &mut Io(rdb));
}

unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    // A null return fails the load: RESTORE answers `ERR Bad data format`.
    guarded(ptr::null_mut(), || {
        rdb::load_classic(&mut Io(rdb), encver).map_or(ptr::null_mut(), into_value)
    })
}

unsafe extern "C" fn fast_rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    guarded(ptr::null_mut(), || {
        rdb::load_fast(&mut Io(rdb), encver).map_or(ptr::null_mut(), into_value)
    })
}

/// Rewrites the value as the BF.LOADCHUNK sequence BF.SCANDUMP would give (used when the AOF
/// has no RDB preamble).
unsafe extern "C" fn aof_rewrite(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a live value of this type.
    let chain = unsafe { chain(value) };
    let header = encoding::encode_header(chain);
    emit_chunk(aof, c"BF.LOADCHUNK", key, 1, &header);
    let mut iter = 1;
    while let Some((next, data)) = encoding::chunk_at(chain, iter) {
        emit_chunk(aof, c"BF.LOADCHUNK", key, next, data);
        iter = next;
    }
}

/// DEBUG DIGEST / DIGEST-VALUE: every field and every bit, so any difference shows.
unsafe extern "C" fn digest(md: *mut raw::RedisModuleDigest, value: *mut c_void) {
    // SAFETY: Redis passes a live value of this type.
    let chain = unsafe { chain(value) };
    add_numbers(
        md,
        &[
            u64::from(chain.options()),
            u64::from(chain.growth()),
            chain.items(),
        ],
    );
    for link in chain.links() {
        let shape = link.shape();
        add_numbers(
            md,
            &[
                shape.entries(),
                shape.error().to_bits(),
                u64::from(shape.hashes()),
                shape.bytes(),
                link.items(),
            ],
        );
        for segment in link.segments() {
            add_bytes(md, segment);
        }
    }
    end_digest(md);
}
