//! Whole-filter tests, beside each file's own:
//!
//! * `golden` — runs captured from RedisBloom itself, replayed command for command;
//! * `rdb` — saved values, good and inconsistent, and the legacy encodings;
//! * `model` — a naive model run side by side with the real filter over random operation
//!   sequences, a multiset model, and round trips through SCANDUMP and RDB;
//! * `hostile` — LOADCHUNK of random chunks at random cursors.

mod golden;
mod hostile;
mod model;
mod rdb;

use super::encoding::{scandump, Dump};
use super::{CuckooFilter, Params};
use crate::core::EAGER;

/// Every `(cursor, bytes)` reply of a SCANDUMP walk from cursor 0 until `[0, nil]`.
fn scandump_walk(f: &CuckooFilter) -> Vec<(i64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut cursor = 0;
    loop {
        match scandump(f, cursor) {
            Dump::Header(h) => {
                out.push((1, h.to_vec()));
                cursor = 1;
            }
            Dump::Chunk { next, data } => {
                out.push((next, data.to_vec()));
                cursor = next;
            }
            Dump::End => return out,
        }
    }
}

pub(super) fn params(
    capacity: u64,
    bucket_size: u16,
    max_iterations: u16,
    expansion: u16,
) -> Params {
    Params {
        capacity,
        bucket_size,
        max_iterations,
        expansion,
    }
}

/// A new filter built with [`params`] of these, its bytes from [`EAGER`].
pub(super) fn filter(
    capacity: u64,
    bucket_size: u16,
    max_iterations: u16,
    expansion: u16,
) -> CuckooFilter {
    CuckooFilter::new(
        params(capacity, bucket_size, max_iterations, expansion),
        &EAGER,
    )
    .unwrap()
}

/// Every sub-filter's bytes, oldest first.
pub(super) fn bytes(f: &CuckooFilter) -> Vec<Vec<u8>> {
    f.sub_filters().map(|(_, data)| data.to_vec()).collect()
}

/// Zeroed bytes up to [`BOUND`], none beyond: duplicates of one item fill two buckets per
/// sub-filter, so a run of them with expansion 4 would otherwise grow a filter to gigabytes,
/// and a hostile header must be refused before it asks for more.
pub(super) fn bounded(len: usize) -> Option<Vec<u8>> {
    (len <= BOUND).then(|| vec![0; len])
}

const BOUND: usize = 1 << 20;

/// Active defragmentation moves the sub-filters' vector and each one's bytes and marks, and
/// changes nothing.
#[test]
fn relocation_moves_every_block_and_keeps_the_filter() {
    use super::ItemHash;
    use crate::core::relocate::tests::relocates_unchanged;
    let mut f = CuckooFilter::new(params(64, 2, 20, 1), &EAGER).unwrap();
    for i in 0..500u32 {
        f.insert(&ItemHash::of(&i.to_le_bytes()), &EAGER).unwrap();
    }
    let subs = usize::from(f.num_filters());
    assert!(subs > 2);
    let original = f.try_clone(&EAGER).unwrap();
    assert_eq!(relocates_unchanged(f, &original), 1 + 2 * subs);
}
