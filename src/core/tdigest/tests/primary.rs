//! The reads a primary runs in place (compressing as RedisBloom's does), and copies.

use crate::core::tdigest::{Order, TDigest};
use crate::core::testing::Rng;
use crate::core::EAGER;

/// The in-place reads of a primary answer as the view does, compress exactly when RedisBloom
/// would, and a copy is the same digest with room for its capacity.
#[test]
fn in_place_reads_and_copies() {
    let mut g = Rng::new(11);
    let mut d = TDigest::new(30, &EAGER).unwrap();
    for _ in 0..500 {
        d.add(g.below(1000) as f64).unwrap();
        let values = [g.below(1200) as f64 - 100.0];
        let ranks = [g.below(600) as i64];
        let order = if g.below(2) == 0 {
            Order::Ascending
        } else {
            Order::Descending
        };
        let mut copy = d.try_clone().unwrap();
        assert_eq!(copy, d);
        assert!(copy.means.capacity() >= copy.cap && copy.weights.capacity() >= copy.cap);
        let expected = (
            d.ranks(&values, order, super::runs::all_ranks).unwrap(),
            d.ranks_compress(&values),
        );
        let ranked = copy
            .ranks_compressing(&values, order, super::runs::all_ranks)
            .unwrap();
        assert_eq!(ranked, expected.0);
        assert_eq!(copy.has_buffer(), d.has_buffer() && !expected.1);
        let mut copy = d.try_clone().unwrap();
        let by = d.by_ranks(&ranks, order).unwrap();
        let compresses = d.by_ranks_compress(&ranks);
        let got = copy.by_ranks_compressing(&ranks, order).unwrap();
        assert_eq!(
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            by.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(copy.has_buffer(), d.has_buffer() && !compresses);
        if g.below(7) == 0 {
            assert_eq!(d.compress_changes(), d.has_buffer());
            d.compress();
            assert!(!d.compress_changes());
            // Without a buffer an in-place read changes nothing (the command does not track it).
            let mut copy = d.try_clone().unwrap();
            copy.ranks_compressing(&values, order, super::runs::all_ranks)
                .unwrap();
            copy.by_ranks_compressing(&ranks, order).unwrap();
            assert_eq!(copy, d);
        }
    }
    let mut single = TDigest::new(5, &EAGER).unwrap();
    single.add(3.0).unwrap();
    assert!(single.has_buffer() && !single.compress_changes());
}
