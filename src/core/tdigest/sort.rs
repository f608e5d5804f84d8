//! The centroid sort of t-digest-c (`td_qsort` and `partition` in `src/tdigest.c`), reproduced
//! to the last swap, without its quadratic stall.
//!
//! RedisBloom sorts the means, moving the weights in lock-step, with a recursive quicksort: the
//! middle element (`(start + end) / 2`) is the pivot, swapped to the end; a Lomuto scan moves
//! every mean strictly smaller than the pivot to the front; the pivot is swapped in after them;
//! both sides are sorted the same way, and a range of two is compared directly. Equal means are
//! never told apart, so their final order — which weight ends up first, whether `-0.0` precedes
//! `0.0` — is whatever those swaps leave, and later merges depend on it: any other sort, even a
//! correct one, changes RedisBloom's centroids.
//!
//! The stall: when nothing in a range is smaller than its pivot (a run of equal means), the
//! scan moves nothing, yet costs the whole range, and peels a single element off. A million
//! equal values cost ~N²/2 comparisons. Here, once scans of a range and of the ranges it was
//! split from have peeled [`PEELS`] times (the sign of such a run), the rest of that range is
//! sorted with a minimum tree over the means: a
//! scan that would move nothing is recognised without scanning, and the peel is two swaps and
//! three tree updates, O(log N); scans that do move something run as in RedisBloom, and
//! refresh the tree over their range afterwards; each of them splits the distinct means of its
//! range in two, so duplicates no longer make the sort quadratic. Other ranges — distinct
//! means, where peels are rare — are scanned as in RedisBloom, and pay nothing for the tree.
//! A single peel is not enough of a sign: sorted runs laid end to end, what TDIGEST.MERGE
//! sorts, peel now and then, and keeping the tree current over them cost more than the scans
//! (MERGE of 10 digests: 486k instructions a call with the tree from the first peel).
//! Ranges of at most [`SMALL`] means, and every range when the tree's memory cannot be had,
//! are sorted with the plain scan: same swaps, same result.
//!
//! The ranges left to sort are disjoint, so their order does not matter: the larger side is
//! deferred and the smaller sorted first, which bounds the deferred ranges by log₂ N.

/// Ranges up to this many means are sorted with the plain scan.
const SMALL: usize = 32;
/// Peels of a large range, counted along the ranges it was split from, before it is sorted
/// with the tree: a run of equal means costs this many extra scans of itself.
const PEELS: u8 = 4;
/// Deferred ranges: each is at least twice the one sorted next, so 64 outlast any `usize`.
const STACK: usize = 64;

/// The means and weights being sorted; every index used is below `len`.
struct Nodes<'a> {
    means: &'a mut [f64],
    weights: &'a mut [i64],
}

impl Nodes<'_> {
    fn mean(&self, i: usize) -> f64 {
        self.means.get(i).copied().unwrap_or(f64::NAN)
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.means.swap(i, j);
        self.weights.swap(i, j);
    }

    /// t-digest-c's `partition` of `[start, end]` around the middle element: returns where the
    /// pivot lands.
    fn partition(&mut self, start: usize, end: usize) -> usize {
        let middle = (start + end) / 2;
        let pivot = self.mean(middle);
        self.swap(middle, end);
        let mut next = start;
        for j in start..end {
            if self.mean(j) < pivot {
                self.swap(next, j);
                next += 1;
            }
        }
        self.swap(next, end);
        next
    }
}

/// Minima of ranges of the means (NaN counted as +∞: it is never smaller than a pivot), as a
/// bottom-up segment tree: leaves at `n..2n`, node `k` the minimum of `2k` and `2k + 1`.
struct MinTree {
    nodes: Vec<f64>,
    n: usize,
}

fn key(mean: f64) -> f64 {
    if mean.is_nan() {
        f64::INFINITY
    } else {
        mean
    }
}

fn smaller(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

impl MinTree {
    /// The tree over `means`, or `None` when its memory cannot be had.
    fn new(means: &[f64]) -> Option<MinTree> {
        let n = means.len();
        let mut nodes = Vec::new();
        nodes.try_reserve_exact(n.checked_mul(2)?).ok()?;
        nodes.resize(n, f64::INFINITY);
        nodes.extend(means.iter().map(|&m| key(m)));
        let mut tree = MinTree { nodes, n };
        for k in (1..n).rev() {
            tree.recompute_node(k);
        }
        Some(tree)
    }

    fn at(&self, k: usize) -> f64 {
        self.nodes.get(k).copied().unwrap_or(f64::INFINITY)
    }

    fn recompute_node(&mut self, k: usize) {
        let m = smaller(self.at(2 * k), self.at(2 * k + 1));
        if let Some(slot) = self.nodes.get_mut(k) {
            *slot = m;
        }
    }

    /// Recomputes inner nodes `lo..=hi`, then their parents, up to the root. Children have
    /// larger indices than their parents, hence the descending order within each step.
    fn recompute(&mut self, mut lo: usize, mut hi: usize) {
        while hi >= 1 {
            for k in (lo.max(1)..=hi).rev() {
                self.recompute_node(k);
            }
            lo /= 2;
            hi /= 2;
        }
    }

    /// Takes the means at `start..=end` anew; returns the nodes touched.
    fn refresh(&mut self, means: &[f64], start: usize, end: usize) -> u64 {
        let leaves = self.nodes.get_mut(self.n + start..=self.n + end);
        let fresh = means.get(start..=end);
        if let (Some(leaves), Some(fresh)) = (leaves, fresh) {
            for (leaf, &m) in leaves.iter_mut().zip(fresh) {
                *leaf = key(m);
            }
        }
        self.recompute((self.n + start) / 2, (self.n + end) / 2);
        2 * (end - start + 1) as u64 + 2 * u64::from(usize::BITS)
    }

    /// The smallest mean at `start..=end`.
    fn min(&self, start: usize, end: usize) -> f64 {
        let (mut lo, mut hi) = (start + self.n, end + self.n + 1);
        let mut min = f64::INFINITY;
        while lo < hi {
            if lo & 1 == 1 {
                min = smaller(min, self.at(lo));
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                min = smaller(min, self.at(hi));
            }
            lo /= 2;
            hi /= 2;
        }
        min
    }
}

/// Sorts `means` ascending, moving `weights` with them, into exactly the order t-digest-c's
/// quicksort leaves (both slices must have the same length; extra elements of the longer one
/// stay put). Returns the work done — elements scanned plus tree nodes touched — so that tests
/// can bound it.
pub(super) fn sort(means: &mut [f64], weights: &mut [i64]) -> u64 {
    let len = means.len().min(weights.len());
    let (Some(means), Some(weights)) = (means.get_mut(..len), weights.get_mut(..len)) else {
        return 0;
    };
    let mut nodes = Nodes { means, weights };
    // Built the first time a range needs it, then kept current over the ranges that use it.
    let mut tree: Option<MinTree> = None;
    // Deferred ranges, each with the peels counted along the ranges it was split from.
    let mut deferred = [(0usize, 0usize, 0u8); STACK];
    let mut depth = 0;
    let (mut start, mut end) = (0, len.saturating_sub(1));
    let mut peels = 0;
    let mut work = 0;
    loop {
        if start < end && end - start == 1 {
            if nodes.mean(start) > nodes.mean(end) {
                nodes.swap(start, end);
            }
            work += 1;
        } else if start < end {
            let large = end - start >= SMALL;
            let with_tree = peels >= PEELS;
            let pivot_at = match tree.as_mut().filter(|_| with_tree && large) {
                Some(tree) => {
                    let middle = (start + end) / 2;
                    work += 2 * u64::from(usize::BITS);
                    if tree.min(start, end) < nodes.mean(middle) {
                        let at = nodes.partition(start, end);
                        work += tree.refresh(nodes.means, start, end);
                        at
                    } else {
                        // Nothing is smaller than the pivot: the scan would only swap the
                        // pivot to the end and then to the front.
                        nodes.swap(middle, end);
                        nodes.swap(start, end);
                        for at in [start, middle, end] {
                            work += tree.refresh(nodes.means, at, at);
                        }
                        start
                    }
                }
                None => {
                    work += (end - start + 1) as u64;
                    nodes.partition(start, end)
                }
            };
            // A scan of a large range that moved nothing peeled one element off, as a run of
            // equal means does at every level: after `PEELS` of them the range is sorted with
            // the tree, whose minima over the range are brought up to date first.
            if large && !with_tree && pivot_at == start {
                peels += 1;
                if peels == PEELS {
                    let have_tree = match tree.as_mut() {
                        Some(tree) => {
                            work += tree.refresh(nodes.means, start, end);
                            true
                        }
                        None => {
                            tree = MinTree::new(nodes.means);
                            work += 2 * len as u64;
                            tree.is_some()
                        }
                    };
                    if !have_tree {
                        peels = 0; // no memory for the tree: the plain scan, as RedisBloom
                    }
                }
            }
            // Both sides are sorted: the larger later, the smaller now.
            let left = (start, pivot_at.saturating_sub(1));
            let right = (pivot_at + 1, end);
            let (now, later) = if pivot_at == start {
                (right, None)
            } else if pivot_at - start < end - pivot_at {
                (left, Some(right))
            } else {
                (right, Some(left))
            };
            if let (Some(range), Some(slot)) = (later, deferred.get_mut(depth)) {
                *slot = (range.0, range.1, peels);
                depth += 1;
            }
            (start, end) = now;
            continue;
        }
        let Some(next) = depth.checked_sub(1) else {
            return work;
        };
        depth = next;
        (start, end, peels) = deferred.get(depth).copied().unwrap_or((1, 0, 0));
    }
}
