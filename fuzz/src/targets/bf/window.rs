//! `bf_window`: the decoders of filters that forget (`core::bf::window::encoding`). An input that
//! opens as a `DUMP` payload (first byte 7, `RDB_TYPE_MODULE_2`) of the `bf-window` type goes
//! through the RDB loader; any other input is read as a SCANDUMP stream (`stream`): header,
//! then `(iterator, chunk)` pairs for LOADCHUNK.
//!
//! Besides "no panic": a loaded value saves the very fields it was read from, its size is what
//! its shape says, SCANDUMP's header and chunks rebuild it, a copy equals it; a decoded header
//! encodes back to itself and got exactly its bits' bytes, checked against the bound first
//! (nothing for a refused one); each accepted chunk lands where its iterator says and a refused
//! one changes nothing; and whatever decoded finds an item right after adding it.

use crate::dump::{self, Recording};
use crate::memory::{bounded, take_granted, LIMIT};
use crate::stream;
use redis_bf::core::bf::window::encoding::{
    chunk_at, decode_header, encode_header, load, load_chunk, save,
};
use redis_bf::core::bf::window::filter::memory_usage;
use redis_bf::core::bf::window::WindowFilter;
use redis_bf::core::rdb::FieldWriter;

/// A `DUMP` payload of `bf-window`, or a SCANDUMP stream of a window filter.
pub fn bf_window(data: &[u8]) {
    match dump::open(data) {
        Some((module, reader)) if &module.name == b"bf-window" => rdb(module.encver, reader),
        Some(_) => {}
        None => scandump(data),
    }
}

fn rdb(encver: i32, reader: dump::DumpReader) {
    let mut input = Recording::new(reader);
    take_granted();
    let Ok(mut filter) = load(&mut input, encver, &bounded()) else {
        return;
    };
    assert_eq!(take_granted(), 0, "the bits are adopted, not allocated");
    let mut saved = FieldWriter::default();
    save(&filter, &mut saved);
    assert_eq!(saved.0, input.fields.0, "saves other fields than it read");
    assert_eq!(Some(filter.memory_usage()), memory_usage(filter.shape()));
    assert!(filter.memory_usage() <= LIMIT);
    let mut rebuilt = decode_header(&encode_header(&filter), &bounded()).unwrap();
    let mut iter = 1;
    while let Some((next, chunk)) = chunk_at(&filter, iter) {
        load_chunk(&mut rebuilt, next, chunk).unwrap();
        iter = next;
    }
    assert_eq!(rebuilt, filter, "SCANDUMP does not rebuild it");
    assert_eq!(filter.try_clone().as_ref(), Ok(&filter));
    used(&mut filter);
}

fn scandump(data: &[u8]) {
    let Some(stream) = stream::parse(data) else {
        return;
    };
    take_granted();
    let decoded = decode_header(stream.header, &bounded());
    let granted = take_granted();
    let mut filter = match decoded {
        Ok(filter) => filter,
        Err(_) => {
            assert_eq!(granted, 0, "a refused header was given memory");
            return;
        }
    };
    assert_eq!(encode_header(&filter), stream.header);
    assert_eq!(Some(granted), filter.shape().bit_bytes());
    assert!(filter.memory_usage() <= LIMIT);
    let mut expected = filter.bits().to_vec();
    assert!(expected.iter().all(|&b| b == 0));
    for &(iter, chunk) in &stream.chunks {
        if load_chunk(&mut filter, iter, chunk).is_ok() {
            let start = (iter - chunk.len() as i64 - 1) as usize;
            expected
                .get_mut(start..start + chunk.len())
                .expect("a chunk was accepted outside the filter")
                .copy_from_slice(chunk);
        }
    }
    assert_eq!(filter.bits(), expected.as_slice(), "chunks wrote elsewhere");
    assert_eq!(encode_header(&filter), stream.header);
    used(&mut filter);
}

/// Reads and a write at the filter's newest time (and later): an item added is found.
fn used(filter: &mut WindowFilter) {
    let now = filter.newest_ms();
    filter.contains(b"probe", now);
    filter.card(now.saturating_add(1_000));
    filter.info(now);
    filter.insert(b"added", now);
    assert!(filter.contains(b"added", now), "no false negatives");
    assert!(filter.newest_ms() >= now, "time went backwards");
}
