//! t-digest-c's walks over the centroids, as `walk.rs` shortens them: the binary search stops
//! where td_cdf's scan does, on centroids in order or not; the integer sum of weights has the
//! bits of its double one; and the quantile walk, blocks skipped, stops where it did and with
//! the same sum.

use crate::core::tdigest::walk::{cdf_stop, skip_pairs, weight_sum};

/// The sum td_cdf's loop takes, one double at a time.
fn in_doubles(weights: &[i64]) -> f64 {
    weights.iter().fold(0.0, |sum, &w| sum + w as f64)
}

/// td_cdf's scan, pair by pair.
fn scanned(means: &[f64], x: f64) -> Option<usize> {
    (0..means.len().saturating_sub(1)).find(|&i| {
        let (mean, next_mean) = (means[i], means[i + 1]);
        mean == x || (mean <= x && x < next_mean)
    })
}

#[test]
fn the_search_stops_where_td_cdfs_scan_does() {
    let mut state = 11u64;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    for round in 0..20_000 {
        let len = next(12) as usize;
        // Few distinct values, so that equal means and probes equal to one are common.
        let mut means: Vec<f64> = (0..len).map(|_| next(8) as f64 - 3.0).collect();
        match round % 4 {
            0 | 1 => means.sort_by(f64::total_cmp),
            // Sorted but for one pair: a forged RDB's centroids.
            2 if len > 1 => {
                means.sort_by(f64::total_cmp);
                let at = next(len as u64 - 1) as usize;
                means.swap(at, at + 1);
            }
            _ => {}
        }
        if round % 97 == 0 && len > 0 {
            means[next(len as u64) as usize] = f64::NAN;
        }
        for x in [next(10) as f64 - 4.0, next(10) as f64 - 3.5, f64::NAN] {
            assert_eq!(cdf_stop(&means, x), scanned(&means, x), "{means:?} {x}");
        }
    }
}

#[test]
fn the_weight_sum_has_the_bits_of_td_cdfs() {
    let big = 1 << 52;
    let cases: [&[i64]; 8] = [
        &[],
        &[1, 2, 3, 1_000_000],
        &[big, big - 1],
        // Partial sums past 2^53, where doubles round: the integer sum must not be taken.
        &[big, big, big, 1, 1, 1],
        &[i64::MAX, 1, 3],
        &[5, -7, 3],
        &[0, 0, 0],
        &[(1 << 53) - 1, 1],
    ];
    for weights in cases {
        assert_eq!(
            weight_sum(weights).to_bits(),
            in_doubles(weights).to_bits(),
            "{weights:?}"
        );
    }
    let mut state = 7u64;
    for len in 0..200 {
        let weights: Vec<i64> = (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                (state >> (12 + len % 40)) as i64
            })
            .collect();
        assert_eq!(
            weight_sum(&weights).to_bits(),
            in_doubles(&weights).to_bits()
        );
    }
}

/// The walk of `td_internal_iterate_centroids_to_index`, one pair at a time: where it stops for
/// `index` from `node` with `so_far` summed, and the sum there.
fn walked(weights: &[i64], mut node: usize, mut so_far: f64, index: f64) -> (usize, u64) {
    while node + 1 < weights.len() {
        let dw = (weights[node] as f64 + weights[node + 1] as f64) / 2.0;
        if so_far + dw > index {
            break;
        }
        so_far += dw;
        node += 1;
    }
    (node, so_far.to_bits())
}

#[test]
fn the_quantile_walk_stops_where_it_did_with_blocks_skipped() {
    let mut g = crate::core::testing::Rng::new(3);
    let mut next = move |n: u64| g.below(n);
    let big = 1i64 << 52;
    for round in 0..20_000 {
        let len = next(60) as usize;
        let mut weights: Vec<i64> = (0..len).map(|_| next(50) as i64).collect();
        // Weights the integer sum must not take: negative, at 2^52 and past, sums past 2^53.
        match round % 7 {
            0 if len > 0 => weights[next(len as u64) as usize] = -(next(5) as i64) - 1,
            1 if len > 0 => weights[next(len as u64) as usize] = big - next(3) as i64,
            2 => weights.iter_mut().for_each(|w| *w += big / 8),
            3 if len > 0 => weights[next(len as u64) as usize] = i64::MAX - next(3) as i64,
            _ => {}
        }
        let node = next(len as u64 + 1) as usize;
        let total: i64 = weights
            .iter()
            .fold(0, |sum, &w| sum.saturating_add(w.max(0)));
        let so_far = match round % 5 {
            0 => 0.25, // not a sum of halves: no skip
            1 => (big as f64) * 4.0,
            _ => next(2 * total.clamp(1, 1 << 40) as u64) as f64 / 2.0,
        };
        let index = match round % 11 {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -1.0,
            _ => next(total.clamp(1, 1 << 40) as u64 + 10) as f64 + next(4) as f64 / 4.0,
        };
        let (skipped_to, sum) = skip_pairs(&weights, node, so_far, index);
        assert_eq!(
            walked(&weights, skipped_to, sum, index),
            walked(&weights, node, so_far, index),
            "{weights:?} from {node} with {so_far} to {index}"
        );
    }
}
