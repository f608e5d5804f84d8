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

use super::alloc::advise_huge_pages;
use super::data_type::{add_bytes, add_numbers, emit_chunk, end_digest, free, into_value};
use super::data_type::{load_bytes, value_ref, NO_CALLBACKS};
use super::guard::guarded;
use crate::core::bloom::blocked::{Blocked, BLOCK_BYTES};
use crate::core::bloom::chain::Chain;
use crate::core::bloom::encoding::{self, FAST_RDB_ENCODING_VERSION, RDB_DEFAULT_GROWTH};
use crate::core::bloom::encoding::{RDB_ENCODING_VERSION, RDB_GROWTH_SINCE, RDB_OPTIONS_SINCE};
use crate::core::bloom::filter::{Link, Shape};
use crate::core::bloom::sizing::Layout;

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

/// The callbacks of both types: only the RDB format differs.
const fn methods(rdb_load: LoadFn, rdb_save: SaveFn) -> raw::RedisModuleTypeMethods {
    raw::RedisModuleTypeMethods {
        rdb_load: Some(rdb_load),
        rdb_save: Some(rdb_save),
        aof_rewrite: Some(aof_rewrite),
        mem_usage: Some(mem_usage),
        digest: Some(digest),
        free: Some(free::<Chain>),
        free_effort: Some(free_effort),
        copy: Some(copy),
        ..NO_CALLBACKS
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
        advise_huge_pages(&data);
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
            let segment = load_bytes(rdb)?;
            advise_huge_pages(&segment);
            segments.push(segment);
        }
        links.try_reserve(1).ok()?;
        links.push(Link::from_saved(Shape::Blocked(shape), segments, link_items).ok()?);
    }
    Chain::from_links(items, options, growth, links).ok()
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
