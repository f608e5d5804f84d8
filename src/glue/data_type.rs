//! The two data types, with the same callbacks but their own RDB format:
//!
//! * `MBbloom--`, encoding version 4: RedisBloom's name and format, for classic filters, so
//!   RedisBloom's RDB files and DUMP payloads load here and ours load there;
//! * `bfblocked`, encoding version 1: fast-layout filters. RedisBloom has no such type, so it
//!   refuses them cleanly instead of misreading them.
//!
//! Each callback is a few lines delegating to the core. Values are `Box<Chain>`: created by
//! `RedisKeyWritable::set_value` (Box::into_raw) and by `rdb_load`/`copy`, released by `free`.

use std::os::raw::{c_char, c_int, c_longlong, c_void};
use std::ptr;

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::dispatch::guarded;
use crate::core::blocked::{Blocked, BLOCK_BYTES};
use crate::core::chain::Chain;
use crate::core::encoding::{self, FAST_RDB_ENCODING_VERSION, RDB_DEFAULT_GROWTH};
use crate::core::encoding::{RDB_ENCODING_VERSION, RDB_GROWTH_SINCE, RDB_OPTIONS_SINCE};
use crate::core::filter::{Link, Shape};
use crate::core::sizing::Layout;

pub static BLOOM_TYPE: RedisType = RedisType::new(
    "MBbloom--",
    RDB_ENCODING_VERSION,
    methods(rdb_load, rdb_save),
);

pub static FAST_TYPE: RedisType = RedisType::new(
    "bfblocked",
    FAST_RDB_ENCODING_VERSION,
    methods(fast_rdb_load, fast_rdb_save),
);

type LoadFn = unsafe extern "C" fn(*mut raw::RedisModuleIO, c_int) -> *mut c_void;
type SaveFn = unsafe extern "C" fn(*mut raw::RedisModuleIO, *mut c_void);

const fn methods(rdb_load: LoadFn, rdb_save: SaveFn) -> raw::RedisModuleTypeMethods {
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        mem_usage: Some(mem_usage),
        digest: Some(digest),
        free: Some(free),
        aux_load: None,
        aux_save: None,
        aux_save_triggers: 0,
        free_effort: Some(free_effort),
        unlink: None,
        copy: Some(copy),
        defrag: None,
        mem_usage2: None,
        free_effort2: None,
        unlink2: None,
        copy2: None,
        aux_save2: None,
    }
}

/// The chain behind a value pointer.
///
/// # Safety
/// `value` must be a live `Box<Chain>` pointer handed out by this module.
unsafe fn chain<'a>(value: *const c_void) -> &'a Chain {
    // SAFETY: guaranteed by the caller.
    unsafe { &*value.cast::<Chain>() }
}

fn into_value(chain: Chain) -> *mut c_void {
    Box::into_raw(Box::new(chain)).cast()
}

unsafe extern "C" fn free(value: *mut c_void) {
    // SAFETY: Redis frees each value once, with the pointer we gave it.
    drop(unsafe { Box::from_raw(value.cast::<Chain>()) });
}

unsafe extern "C" fn mem_usage(value: *const c_void) -> usize {
    // SAFETY: Redis passes a live value of this type.
    usize::try_from(unsafe { chain(value) }.memory_usage()).unwrap_or(usize::MAX)
}

/// Bigger values are freed by the lazy-free thread (UNLINK, lazyfree-lazy-*): one unit of
/// effort per 64 KiB, so filters above ~4 MiB pass Redis's threshold of 64.
unsafe extern "C" fn free_effort(_key: *mut raw::RedisModuleString, value: *const c_void) -> usize {
    // SAFETY: Redis passes a live value of this type.
    let chain = unsafe { chain(value) };
    chain.links().len() + usize::try_from(chain.memory_usage() >> 16).unwrap_or(usize::MAX)
}

unsafe extern "C" fn copy(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a live value of this type. A null return makes COPY fail cleanly.
    let chain = unsafe { chain(value) };
    guarded(ptr::null_mut(), || {
        chain.try_clone().map_or(ptr::null_mut(), into_value)
    })
}

/// Saves the chain fields both formats start with.
fn save_chain_fields(rdb: *mut raw::RedisModuleIO, chain: &Chain) {
    raw::save_unsigned(rdb, chain.items());
    raw::save_unsigned(rdb, chain.links().len() as u64);
    raw::save_unsigned(rdb, u64::from(chain.options()));
    raw::save_unsigned(rdb, u64::from(chain.growth()));
}

unsafe extern "C" fn rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a live value of this type.
    let chain = unsafe { chain(value) };
    save_chain_fields(rdb, chain);
    for link in chain.links() {
        let shape = link.shape();
        let (bpe, n2) = shape.stored_bpe_and_n2();
        raw::save_unsigned(rdb, shape.entries());
        raw::save_double(rdb, shape.error());
        raw::save_unsigned(rdb, u64::from(shape.hashes()));
        raw::save_double(rdb, bpe);
        raw::save_unsigned(rdb, shape.bytes() * 8);
        raw::save_unsigned(rdb, u64::from(n2));
        save_segments(rdb, link); // classic links are one segment: RedisBloom's one string
        raw::save_unsigned(rdb, link.items());
    }
}

unsafe extern "C" fn fast_rdb_save(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a live value of this type.
    let chain = unsafe { chain(value) };
    save_chain_fields(rdb, chain);
    for link in chain.links() {
        let shape = link.shape();
        raw::save_unsigned(rdb, shape.entries());
        raw::save_double(rdb, shape.error());
        raw::save_unsigned(rdb, u64::from(shape.hashes()));
        raw::save_unsigned(rdb, shape.bytes() / BLOCK_BYTES);
        raw::save_unsigned(rdb, link.items());
        save_segments(rdb, link);
    }
}

fn save_segments(rdb: *mut raw::RedisModuleIO, link: &Link) {
    for segment in link.segments() {
        raw::save_slice(rdb, segment);
    }
}

unsafe extern "C" fn rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    // A null return fails the load: RESTORE answers `ERR Bad data format`.
    guarded(ptr::null_mut(), || {
        load(rdb, encver).map_or(ptr::null_mut(), into_value)
    })
}

unsafe extern "C" fn fast_rdb_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> *mut c_void {
    guarded(ptr::null_mut(), || {
        fast_load(rdb, encver).map_or(ptr::null_mut(), into_value)
    })
}

/// Reads a classic value field by field, validating each link's layout before reading its
/// bits. Read errors (truncated payloads) show as `None` because the module handles I/O errors.
fn load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> Option<Chain> {
    if !(encoding::RDB_OLDEST_ENCODING_VERSION..=RDB_ENCODING_VERSION).contains(&encver) {
        return None;
    }
    let unsigned = || raw::load_unsigned(rdb).ok();
    let items = unsigned()?;
    let nfilters = unsigned()?;
    let options = if encver >= RDB_OPTIONS_SINCE {
        u32::try_from(unsigned()?).ok()?
    } else {
        0
    };
    let growth = if encver >= RDB_GROWTH_SINCE {
        u32::try_from(unsigned()?).ok()?
    } else {
        RDB_DEFAULT_GROWTH
    };
    let mut links = Vec::new();
    for _ in 0..nfilters {
        let entries = unsigned()?;
        let error = raw::load_double(rdb).ok()?;
        let hashes = u32::try_from(unsigned()?).ok()?;
        let bpe = raw::load_double(rdb).ok()?;
        let bits = unsigned()?;
        let n2 = u8::try_from(unsigned()?).ok()?;
        let layout = Layout {
            entries,
            error,
            bpe,
            hashes,
            bits,
            n2,
        };
        if !layout.is_consistent() {
            return None;
        }
        let data = load_bytes(rdb)?;
        let link_items = unsigned()?;
        links.try_reserve(1).ok()?;
        links.push(Link::from_saved(Shape::Classic(layout), vec![data], link_items).ok()?);
    }
    Chain::from_links(items, options, growth, links).ok()
}

/// Reads a fast-layout value: each link's segments are the strings Redis reads them into,
/// adopted without a copy, so loading holds one copy of the bits plus one string at most.
fn fast_load(rdb: *mut raw::RedisModuleIO, encver: c_int) -> Option<Chain> {
    if encver != FAST_RDB_ENCODING_VERSION {
        return None;
    }
    let unsigned = || raw::load_unsigned(rdb).ok();
    let items = unsigned()?;
    let nfilters = unsigned()?;
    let options = u32::try_from(unsigned()?).ok()?;
    let growth = u32::try_from(unsigned()?).ok()?;
    let mut links = Vec::new();
    for _ in 0..nfilters {
        let entries = unsigned()?;
        let error = raw::load_double(rdb).ok()?;
        let hashes = u32::try_from(unsigned()?).ok()?;
        let blocks = unsigned()?;
        let link_items = unsigned()?;
        let shape = Blocked {
            entries,
            error,
            hashes,
            blocks,
        };
        if !shape.is_plausible() {
            return None;
        }
        let mut segments = Vec::new();
        for _ in shape.segment_lengths() {
            segments.try_reserve(1).ok()?;
            segments.push(load_bytes(rdb)?);
        }
        links.try_reserve(1).ok()?;
        links.push(Link::from_saved(Shape::Blocked(shape), segments, link_items).ok()?);
    }
    Chain::from_links(items, options, growth, links).ok()
}

/// The next string of the value, as a Vec that takes over the buffer Redis read it into: a
/// big bit array is not copied, so loading needs no second copy of it in memory.
fn load_bytes(rdb: *mut raw::RedisModuleIO) -> Option<Vec<u8>> {
    let mut len = 0usize;
    // SAFETY: `rdb` is the I/O handle Redis passed to rdb_load.
    let buffer = unsafe { raw::RedisModule_LoadStringBuffer?(rdb, &mut len) }.cast::<u8>();
    if buffer.is_null() || raw::is_io_error(rdb) {
        return None;
    }
    if len == 0 {
        // SAFETY: Redis gave us this allocation to free.
        unsafe { raw::RedisModule_Free?(buffer.cast()) };
        return Some(Vec::new());
    }
    // SAFETY: Redis allocated `len` bytes at `buffer` with its allocator and hands them to us.
    // The global allocator (glue::alloc) allocates and frees with that same allocator, and a
    // byte array needs no alignment, so the Vec can own and later free them.
    Some(unsafe { Vec::from_raw_parts(buffer, len, len) })
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
    emit_loadchunk(aof, key, 1, &header);
    let mut iter = 1;
    while let Some((next, data)) = encoding::chunk_at(chain, iter) {
        emit_loadchunk(aof, key, next, data);
        iter = next;
    }
}

fn emit_loadchunk(
    aof: *mut raw::RedisModuleIO,
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
                c"BF.LOADCHUNK".as_ptr(),
                c"slb".as_ptr(),
                key,
                iter as c_longlong,
                data.as_ptr().cast::<c_char>(),
                data.len(),
            );
        }
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
            // SAFETY: `md` is the digest Redis passed; the slice outlives the call.
            unsafe {
                if let Some(add) = raw::RedisModule_DigestAddStringBuffer {
                    add(md, segment.as_ptr().cast::<c_char>(), segment.len());
                }
            }
        }
    }
    // SAFETY: as above.
    unsafe {
        if let Some(end) = raw::RedisModule_DigestEndSequence {
            end(md);
        }
    }
}

fn add_numbers(md: *mut raw::RedisModuleDigest, numbers: &[u64]) {
    for &n in numbers {
        // SAFETY: `md` is the digest Redis passed to `digest`.
        unsafe {
            if let Some(add) = raw::RedisModule_DigestAddLongLong {
                add(md, n as c_longlong);
            }
        }
    }
}
