//! What several targets check or build: a value loaded back from the fields it saved, chunks
//! put back together, and the items to probe a decoded value with.

use redis_bf::core::le::LeReader;
use redis_bf::core::{Error, Memory};

use crate::memory::{bounded, LIMIT};

/// `fields`, the RDB fields a value saved, loaded back by `load` at encoding `encver` within the
/// fuzzing bounds: every value must load from what it saves.
pub(super) fn loaded_back<'a, T>(
    fields: &'a [u8],
    encver: i32,
    load: impl FnOnce(&mut LeReader<'a>, i32, &Memory) -> Result<T, Error>,
) -> T {
    load(&mut LeReader(fields), encver, &bounded())
        .expect("a value does not load from what it saves")
}

/// The pieces one after another. Whole slices are copied, not byte by byte: under the
/// fuzzer's instrumentation a per-byte loop over a filter costs more than the decoding.
pub(super) fn concatenated<'a>(pieces: impl Iterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut flat = Vec::new();
    for piece in pieces {
        flat.extend_from_slice(piece);
    }
    flat
}

/// Whether every byte is zero, in one `memcmp` against zeroes rather than an instrumented
/// loop (no filter within the bound is longer than [`LIMIT`]).
pub(super) fn all_zero(bytes: &[u8]) -> bool {
    static ZEROES: [u8; LIMIT as usize] = [0; LIMIT as usize];
    ZEROES.get(..bytes.len()) == Some(bytes)
}

/// Items to look up and add: fixed ones (the seeds' filters hold `item:0`, `item:1`, …) and
/// some from the input.
pub(super) fn probe_items(data: &[u8]) -> Vec<Vec<u8>> {
    let mut items: Vec<Vec<u8>> = (0..4).map(|i| format!("item:{i}").into_bytes()).collect();
    items.push(Vec::new());
    items.push(data.iter().take(16).copied().collect());
    items.push(data.iter().rev().take(16).copied().collect());
    items
}
