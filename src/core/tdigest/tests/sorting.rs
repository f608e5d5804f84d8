//! The sort against a literal port of t-digest-c's `td_qsort`, and the equal-means stall gone.

use super::scenarios::{equal_values, replay};
use crate::core::tdigest::sort::sort;
use crate::core::tdigest::TDigest;
use crate::core::testing::{fnv, Rng, FNV_OFFSET};
use crate::core::EAGER;

/// `td_qsort` and `partition` of t-digest-c `9dcd73d`, line for line (its recursion on a stack).
fn literal_sort(means: &mut [f64], weights: &mut [i64]) {
    if means.is_empty() {
        return;
    }
    let mut ranges = vec![(0, means.len() - 1)];
    while let Some((start, end)) = ranges.pop() {
        if start >= end {
            continue;
        }
        if end - start == 1 {
            if means[start] > means[end] {
                means.swap(start, end);
                weights.swap(start, end);
            }
            continue;
        }
        let pivot_idx = (end + start) / 2;
        let pivot = means[pivot_idx];
        means.swap(pivot_idx, end);
        weights.swap(pivot_idx, end);
        let mut i = start;
        for j in start..end {
            if means[j] < pivot {
                means.swap(i, j);
                weights.swap(i, j);
                i += 1;
            }
        }
        means.swap(i, end);
        weights.swap(i, end);
        if i > start {
            ranges.push((start, i - 1));
        }
        ranges.push((i + 1, end));
    }
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Sorts `means` both ways (weights: the original positions) and compares every bit.
fn check(means: &[f64]) -> u64 {
    let mut expected = (means.to_vec(), (0..means.len() as i64).collect::<Vec<_>>());
    literal_sort(&mut expected.0, &mut expected.1);
    let mut got = (means.to_vec(), (0..means.len() as i64).collect::<Vec<_>>());
    let work = sort(&mut got.0, &mut got.1);
    assert!(same_bits(&got.0, &expected.0), "{means:?}");
    assert_eq!(got.1, expected.1, "{means:?}");
    work
}

#[test]
fn the_sort_leaves_every_element_where_redisbloom_does() {
    let mut g = Rng::new(7);
    let pools: [&[f64]; 4] = [
        &[0.0, -0.0],
        &[0.0, -0.0, 1.0, -1.0],
        &[3.0, 3.0, 3.0, 1.0, 2.0, f64::NAN],
        &[5.0],
    ];
    for round in 0..600 {
        let len = g.below(if round % 10 == 0 { 3000 } else { 200 }) as usize;
        let shape = g.below(8);
        let means: Vec<f64> = (0..len)
            .map(|i| match shape {
                0 => g.below(1 << 20) as f64,
                1 => i as f64,
                2 => (len - i) as f64,
                3 => (i.min(len - i)) as f64,
                4 => (i / 50) as f64,
                5 => ((len - i) / 37) as f64 * if g.below(2) == 0 { 1.0 } else { -1.0 },
                _ => {
                    let pool = pools[(shape as usize - 6 + round) % pools.len()];
                    pool[g.below(pool.len() as u64) as usize]
                }
            })
            .collect();
        check(&means);
    }
}

#[test]
fn equal_means_sort_in_n_log_n() {
    // Same bits as the literal sort where that one is still affordable...
    let small: Vec<f64> = (0..4000)
        .map(|i| if i % 3 == 0 { -0.0 } else { 0.0 })
        .collect();
    check(&small);
    // ...and a bounded number of steps where it would take ~N²/2 = 7.2e9: a full buffer at
    // COMPRESSION 20000.
    let n = 120_009u64;
    let mut means: Vec<f64> = (0..n)
        .map(|i| if i % 7 == 0 { -0.0 } else { 0.0 })
        .collect();
    let mut weights: Vec<i64> = (0..n as i64).collect();
    let work = sort(&mut means, &mut weights);
    assert!(work < 1000 * n, "{work} steps");
}

/// A million equal values at COMPRESSION 20000: RedisBloom sorts each full buffer of 120 009
/// equal means in ~7.2e9 comparisons (minutes in all); here every sort the digest runs — the
/// buffer-full ones and the one a quantile's view runs — is counted, in steps.
#[test]
fn a_million_equal_values_answer_without_stalling() {
    let mut digest = TDigest::new(20_000, &EAGER).unwrap();
    let mut steps = 0;
    let mut sorted_nodes = 0;
    let mut count_sort = |digest: &TDigest| {
        let (mut means, mut weights) = (digest.means.clone(), digest.weights.clone());
        sorted_nodes += means.len() as u64;
        steps += sort(&mut means, &mut weights);
    };
    for i in 0..1_000_000u32 {
        if digest.means.len() + 1 >= digest.cap {
            count_sort(&digest);
        }
        digest.add(if i % 5 == 0 { -0.0 } else { 0.0 }).unwrap();
    }
    count_sort(&digest);
    assert!(
        steps < 1000 * sorted_nodes,
        "{steps} steps for {sorted_nodes} nodes"
    );
    let q = digest.quantiles(&[0.0, 0.5, 1.0]).unwrap();
    assert!(q.iter().all(|&x| x == 0.0));
}

/// `capture.py`'s `equal` scenario: 60 000 zeros of both signs (and a few ones) at COMPRESSION
/// 20000, a merge with 5 000 more, reads and a DUMP — RedisBloom's transcript hash.
#[test]
fn equal_values_at_high_compression_match_redisbloom() {
    let mut commands = vec!["CREATE e COMPRESSION 20000".to_string()];
    for seed in 0..6 {
        commands.push(format!("ADD e {}", equal_values(seed, 10_000).join(" ")));
    }
    for c in [
        "QUANTILE e 0 0.1 0.5 0.9 1",
        "CDF e 0 1",
        "INFO e",
        "CREATE f COMPRESSION 20000",
    ] {
        commands.push(c.into());
    }
    commands.push(format!("ADD f {}", equal_values(9, 5000).join(" ")));
    for c in [
        "MERGE e 2 e f",
        "QUANTILE e 0 0.5 1",
        "RANK e 0 1",
        "INFO e",
        "DUMP e",
    ] {
        commands.push(c.into());
    }
    let transcript = replay(&commands);
    assert_eq!(
        fnv(FNV_OFFSET, transcript.as_bytes()),
        0xf147_7df6_8f56_a40a
    );
}
