//! Shortcuts through t-digest-c's walks over the centroids, each giving exactly what the walk
//! gives: `td_cdf`'s scan ([`cdf_stop`]) and its sum of weights ([`weight_sum`]), and the walk
//! of `td_internal_iterate_centroids_to_index` ([`skip_pairs`]). The walks are most of a
//! quantile, CDF or rank; they add one double at a time, and the shortcuts take the exact
//! integers those additions give whenever no partial sum can round.

/// Every integer below 2^53 is exact in a double, and so is every multiple of 0.5 below 2^52:
/// a sum of halves is exact when twice it stays below this.
const EXACT: i64 = 1 << 53;

/// Where td_cdf's scan of the centroids stops for `x`: the first pair whose left mean equals
/// `x`, or whose means hold `x` from the left one up to the right one; `None` if none does.
///
/// The scan is most of a CDF or RANK. Compressed centroids are in order of their means, so the
/// pair is found by a binary search, once a pass over the means before it (which the compiler
/// runs several at a time) has checked that they are; otherwise they are scanned as td_cdf
/// scans them.
pub(super) fn cdf_stop(means: &[f64], x: f64) -> Option<usize> {
    let first_not_below = means.partition_point(|&mean| mean < x);
    let below = means.get(..first_not_below).unwrap_or_default();
    // Whether the means up to the one at `first_not_below` are in order, those before it below
    // `x`: then the search found what the scan would.
    let ordered = below
        .iter()
        .zip(means.iter().skip(1))
        .fold(true, |ordered, (left, right)| ordered & (left <= right));
    if ordered && below.last().is_none_or(|&last| last < x) {
        match means.get(first_not_below) {
            None => return None,
            // The last centroid starts no pair: the scan ends before it.
            Some(&mean) if mean == x => {
                return Some(first_not_below).filter(|&i| i + 1 < means.len())
            }
            Some(&mean) if mean > x && first_not_below > 0 => return Some(first_not_below - 1),
            _ => {}
        }
    }
    means.windows(2).position(|pair| match *pair {
        [mean, next_mean] => (x < next_mean && mean <= x) || mean == x,
        _ => false,
    })
}

/// `weights` summed as td_cdf sums them, one double at a time in order. When none is negative
/// and every partial sum stays below 2^53, each of those additions is exact, so the sum is
/// taken in integers, which the compiler adds several at a time.
pub(super) fn weight_sum(weights: &[i64]) -> f64 {
    // `bits` is at least every weight, and not negative, when no weight is negative: then
    // `bits × len` bounds every partial sum. Both in one pass.
    let (sum, bits) = weights.iter().fold((0i64, 0i64), |(sum, bits), &w| {
        (sum.wrapping_add(w), bits | w)
    });
    let bound = u64::try_from(bits)
        .ok()
        .and_then(|bits| bits.checked_mul(weights.len() as u64));
    if bound.is_some_and(|bound| bound < EXACT as u64) {
        return sum as f64;
    }
    weights.iter().fold(0.0, |sum, &w| sum + w as f64)
}

/// Weights of the pairs [`skip_pairs`] looks at together, and the steps of the walk they make.
const BLOCK: usize = 8;

/// Where the walk of `td_internal_iterate_centroids_to_index` from the pair (`node`,
/// `node + 1`), with `so_far` summed, goes before it can stop at `index`: whole blocks of
/// [`BLOCK`] steps none of which can stop are skipped, and the node and sum it reaches after
/// them returned (the walk goes on from there as before).
///
/// Each step adds `(w + next) / 2` to the sum and stops when the sum would pass `index`. The
/// sums only grow while no weight is negative, so a block cannot stop when its last sum does
/// not pass `index`; and while every weight is a whole number below 2^52 and twice the sum
/// stays below 2^53, each double addition of the walk is exact, so the block's sum in
/// integers has its bits. Otherwise the walk takes the block itself.
pub(super) fn skip_pairs(weights: &[i64], node: usize, so_far: f64, index: f64) -> (usize, f64) {
    // Twice a sum of halves is a whole number (checked by a round trip through an integer,
    // which a libm call would cost more than).
    let doubled = so_far * 2.0;
    if !(0.0..EXACT as f64).contains(&doubled) || doubled as i64 as f64 != doubled {
        return (node, so_far);
    }
    let (mut node, mut doubled) = (node, doubled as i64);
    // Compared with the doubled sum: doubling is exact, NaN stops no block (nor the walk).
    let limit = index * 2.0;
    while let Some(block) = weights
        .get(node..)
        .and_then(<[i64]>::first_chunk::<{ BLOCK + 1 }>)
    {
        let bits = block.iter().fold(0, |bits, &w| bits | w);
        if !(0..EXACT / 2).contains(&bits) {
            break;
        }
        // Each step adds its two weights: every inner weight twice, the ends once.
        let sum: i64 = block.iter().sum();
        let after = doubled + 2 * sum - block[0] - block[BLOCK];
        if after >= EXACT || after as f64 > limit {
            break;
        }
        (node, doubled) = (node + BLOCK, after);
    }
    (node, doubled as f64 / 2.0)
}
