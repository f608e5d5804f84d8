//! LOADCHUNK of random bytes at random cursors: refused without a change, or taken as
//! fingerprints that every operation then handles.

use super::params;
use crate::core::cf::encoding::{self, chunk_at, encode_header};
use crate::core::cf::{CuckooFilter, ItemHash};
use crate::core::testing::Rng;
use crate::core::EAGER;

#[test]
fn loading_hostile_chunks_never_panics_and_keeps_the_invariants() {
    let mut g = Rng::new(42);
    for _ in 0..200 {
        let p = params(
            g.below(200),
            1 + g.below(8) as u16,
            1 + g.below(20) as u16,
            1,
        );
        let mut f = CuckooFilter::new(p, &EAGER).unwrap();
        for i in 0..g.below(300) {
            f.insert(&ItemHash::of(&i.to_le_bytes()), &EAGER).unwrap();
        }
        let total: u64 = f.sub_filters().map(|(_, d)| d.len() as u64).sum();
        for _ in 0..50 {
            let len = g.below(2 * total + 2) as usize;
            let data: Vec<u8> = (0..len).map(|_| g.next() as u8).collect();
            let cursor = match g.below(4) {
                0 => g.next() as i64,
                1 => g.below(2 * total + 4) as i64 - 2,
                2 => [i64::MIN, i64::MAX, 0, -1, 1][g.below(5) as usize],
                _ => (len as i64).saturating_add(1 + g.below(total + 1) as i64),
            };
            let before = f.try_clone(&EAGER).unwrap();
            if encoding::load_chunk(&mut f, cursor, &data).is_err() {
                assert_eq!(f, before);
            }
            // Any bytes are fingerprints: everything still works.
            let h = ItemHash::of(&g.next().to_le_bytes());
            let _ = f.insert(&h, &EAGER);
            let _ = (f.count(&h), f.delete(&h), f.contains(&h));
            let _ = chunk_at(&f, cursor);
        }
        f.compact();
        assert_eq!(encode_header(&f).len(), encoding::HEADER_LEN);
    }
}
