//! Reading a digest: RedisBloom's answers (`src/rm_tdigest.c` for the commands, t-digest-c's
//! `td_quantiles`, `td_quantile`, `td_cdf` and `td_trimmed_mean` for the formulas), each with
//! its interpolation, its edge cases and its arithmetic order.
//!
//! Every RedisBloom read that looks at centroids compresses the digest in place first. Here a
//! read takes `&self` and looks at [`TDigest::merged_view`] instead: the digest itself when its
//! buffer is empty, else a compressed copy — the same centroids RedisBloom reads, since the
//! compression is deterministic. Whether RedisBloom *would* have compressed (to replay that on
//! a primary) is [`TDigest::has_buffer`], or, for the two reads that compress only for some
//! arguments, [`TDigest::ranks_compress`] and [`TDigest::by_ranks_compress`].

use std::ops::Deref;

use super::digest::{c_long_long, node_arrays, TDigest};
use super::walk::{cdf_stop, skip_pairs, weight_sum};
use crate::core::short_list::ShortList;
use crate::core::Error;

/// A digest as a read or a save sees it: compressed. Dereferences to the digest.
#[derive(Debug)]
pub struct Merged<'a>(View<'a>);

#[derive(Debug)]
enum View<'a> {
    /// The digest had no buffer.
    Itself(&'a TDigest),
    /// A compressed copy, never added to.
    Copy(TDigest),
}

impl Deref for Merged<'_> {
    type Target = TDigest;

    fn deref(&self) -> &TDigest {
        match &self.0 {
            View::Itself(digest) => digest,
            View::Copy(digest) => digest,
        }
    }
}

/// Which end ranks count from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// From the smallest: `RANK`, `BYRANK`.
    Ascending,
    /// From the largest: `REVRANK`, `BYREVRANK`.
    Descending,
}

/// t-digest-c's `weighted_average`, with C's `<`/`>` macros (NaN-sensitive, unlike
/// `f64::min`/`f64::max`).
fn weighted_average(x1: f64, w1: f64, x2: f64, w2: f64) -> f64 {
    let ((x1, w1), (x2, w2)) = if x1 <= x2 {
        ((x1, w1), (x2, w2))
    } else {
        ((x2, w2), (x1, w1))
    };
    let x = (x1 * w1 + x2 * w2) / (w1 + w2);
    let below = if x < x2 { x } else { x2 };
    if x1 > below {
        x1
    } else {
        below
    }
}

/// C's `x < low || x > high`, under which NaN is inside.
#[allow(clippy::manual_range_contains)]
fn outside(x: f64, low: f64, high: f64) -> bool {
    x < low || x > high
}

/// RANK's rounding (`_halfRoundDown`): halves go towards zero.
fn round_half_down(x: f64) -> f64 {
    let whole = x.trunc();
    let fraction = if x.is_infinite() { 0.0 } else { x - whole };
    if fraction.abs() <= 0.5 {
        whole
    } else if whole >= 0.0 {
        whole + 1.0
    } else {
        whole - 1.0
    }
}

/// Where a run of quantiles has got to among the centroids (t-digest-c shares it across the
/// quantiles of one `td_quantiles` call).
struct Cursor {
    weight_so_far: f64,
    node: usize,
}

/// The ranks of `TDIGEST.RANK` or `TDIGEST.REVRANK`, one per value, made as they are read so
/// that the command replies as it goes: −2 when empty, −1 or the size outside `[min, max]`,
/// else the CDF scaled by the size the digest had before compressing, rounded as RedisBloom
/// does and cast as C casts.
#[derive(Debug)]
pub struct Ranks<'a> {
    /// The digest compressed when a value lies within its range (only those look at the
    /// centroids); else the digest as it is.
    view: &'a TDigest,
    values: std::slice::Iter<'a, f64>,
    size: f64,
    order: Order,
}

impl Ranks<'_> {
    fn rank(&self, v: f64) -> i64 {
        let (size, descending) = (self.size, self.order == Order::Descending);
        let rank = if size == 0.0 {
            -2.0
        } else if v < self.view.min {
            if descending {
                size
            } else {
                -1.0
            }
        } else if v > self.view.max {
            if descending {
                -1.0
            } else {
                size
            }
        } else {
            let scaled = self.view.cdf(v) * size;
            if descending {
                (size - scaled.round()).round()
            } else {
                round_half_down(scaled)
            }
        };
        c_long_long(rank)
    }
}

impl Iterator for Ranks<'_> {
    type Item = i64;

    fn next(&mut self) -> Option<i64> {
        let &v = self.values.next()?;
        Some(self.rank(v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }
}

impl ExactSizeIterator for Ranks<'_> {}

impl TDigest {
    /// The digest compressed, without changing it: itself when it has no buffer, else a
    /// compressed copy (`OutOfMemory` when the copy cannot be had).
    pub fn merged_view(&self) -> Result<Merged<'_>, Error> {
        if !self.has_buffer() {
            return Ok(Merged(View::Itself(self)));
        }
        let (mut means, mut weights) = node_arrays(self.means.len())?;
        means.extend_from_slice(&self.means);
        weights.extend_from_slice(&self.weights);
        let mut copy = TDigest {
            means,
            weights,
            ..*self
        };
        copy.compress();
        Ok(Merged(View::Copy(copy)))
    }

    fn mean_at(&self, i: usize) -> f64 {
        self.means.get(i).copied().unwrap_or(f64::NAN)
    }

    fn weight_at(&self, i: usize) -> f64 {
        self.weights.get(i).map_or(f64::NAN, |&w| w as f64)
    }

    /// `TDIGEST.MIN`: the smallest value added, NaN when empty.
    pub fn min(&self) -> f64 {
        if self.size() > 0 {
            self.min
        } else {
            f64::NAN
        }
    }

    /// `TDIGEST.MAX`: the largest value added, NaN when empty.
    pub fn max(&self) -> f64 {
        if self.size() > 0 {
            self.max
        } else {
            f64::NAN
        }
    }

    /// `TDIGEST.QUANTILE`: each maximal run of non-decreasing quantiles is one `td_quantiles`
    /// call, whose interpolation cursor carries from one quantile to the next.
    pub fn quantiles(&self, quantiles: &[f64]) -> Result<ShortList<f64>, Error> {
        let view = self.merged_view()?;
        let mut out = ShortList::with_room(quantiles.len())?;
        let mut run_start = 0;
        for (i, &q) in quantiles.iter().enumerate() {
            let next = quantiles.get(i + 1);
            if next.is_some_and(|&next| q <= next) {
                continue;
            }
            if let Some(run) = quantiles.get(run_start..=i) {
                view.quantile_run(run, &mut out);
            }
            run_start = i + 1;
        }
        Ok(out)
    }

    /// t-digest-c's `td_quantiles` over one run, on a compressed digest.
    fn quantile_run(&self, run: &[f64], out: &mut ShortList<f64>) {
        let n = self.merged;
        let mut cursor = Cursor {
            weight_so_far: self.weight_at(0) / 2.0,
            node: 0,
        };
        out.extend(run.iter().map(|&q| match n {
            0 => f64::NAN,
            1 if outside(q, 0.0, 1.0) => f64::NAN,
            1 => self.mean_at(0),
            _ => self.to_index(q * self.merged_weight as f64, &mut cursor),
        }));
    }

    /// t-digest-c's `td_quantile` (BYRANK's path: a NaN outside [0, 1], and `min` below the
    /// first unit of weight), on a compressed digest.
    fn quantile(&self, q: f64) -> f64 {
        if outside(q, 0.0, 1.0) || self.merged == 0 {
            return f64::NAN;
        }
        if self.merged == 1 {
            return self.mean_at(0);
        }
        let index = q * self.merged_weight as f64;
        if index < 1.0 {
            return self.min;
        }
        let mut cursor = Cursor {
            weight_so_far: self.weight_at(0) / 2.0,
            node: 0,
        };
        self.to_index(index, &mut cursor)
    }

    /// t-digest-c's `td_internal_iterate_centroids_to_index`, at least two centroids.
    fn to_index(&self, index: f64, cursor: &mut Cursor) -> f64 {
        let n = self.merged;
        let total = self.merged_weight as f64;
        let left_weight = self.weight_at(0);
        if left_weight > 1.0 && index < left_weight / 2.0 {
            return self.min
                + (index - 1.0) / (left_weight / 2.0 - 1.0) * (self.mean_at(0) - self.min);
        }
        if index > self.merged_weight.wrapping_sub(1) as f64 {
            return self.max;
        }
        let right_weight = self.weight_at(n - 1);
        let right_mean = self.mean_at(n - 1);
        if right_weight > 1.0 && total - index <= right_weight / 2.0 {
            return self.max
                - (total - index - 1.0) / (right_weight / 2.0 - 1.0) * (self.max - right_mean);
        }
        // The walk reads only the weights, from a slice (a quantile of a big digest walks
        // tens of thousands of nodes), whole blocks of them at a time where it can; the means
        // only where it stops.
        let merged_weights = self.weights.get(..n).unwrap_or_default();
        (cursor.node, cursor.weight_so_far) =
            skip_pairs(merged_weights, cursor.node, cursor.weight_so_far, index);
        let mut weight = self.weight_at(cursor.node);
        let following = merged_weights.get(cursor.node + 1..).unwrap_or(&[]);
        for &next in following {
            let next_weight = next as f64;
            let dw = (weight + next_weight) / 2.0;
            let so_far = cursor.weight_so_far;
            if so_far + dw > index {
                let i = cursor.node;
                let (mean, next_mean) = (self.mean_at(i), self.mean_at(i + 1));
                let mut left_unit = 0.0;
                if weight == 1.0 {
                    if index - so_far < 0.5 {
                        return mean;
                    }
                    left_unit = 0.5;
                }
                let mut right_unit = 0.0;
                if next_weight == 1.0 {
                    if so_far + dw - index <= 0.5 {
                        return next_mean;
                    }
                    right_unit = 0.5;
                }
                let z1 = index - so_far - left_unit;
                let z2 = so_far + dw - index - right_unit;
                return weighted_average(mean, z2, next_mean, z1);
            }
            cursor.weight_so_far += dw;
            cursor.node += 1;
            weight = next_weight;
        }
        let z1 = index - total - right_weight / 2.0;
        let z2 = right_weight / 2.0 - z1;
        weighted_average(right_mean, z1, self.max, z2)
    }

    /// `TDIGEST.CDF` of each value.
    pub fn cdfs(&self, values: &[f64]) -> Result<ShortList<f64>, Error> {
        let view = self.merged_view()?;
        let mut out = ShortList::with_room(values.len())?;
        out.extend(values.iter().map(|&x| view.cdf(x)));
        Ok(out)
    }

    /// t-digest-c's `td_cdf`, on a compressed digest.
    fn cdf(&self, x: f64) -> f64 {
        let n = self.merged;
        if n == 0 {
            return f64::NAN;
        }
        if x < self.min {
            return 0.0;
        }
        if x > self.max {
            return 1.0;
        }
        if n == 1 {
            let width = self.max - self.min;
            return if x - self.min <= width {
                0.5
            } else {
                (x - self.min) / width
            };
        }
        let total = self.merged_weight as f64;
        let (left_mean, left_weight) = (self.mean_at(0), self.weight_at(0));
        if x < left_mean {
            let width = left_mean - self.min;
            return if width > 0.0 {
                if x == self.min {
                    0.5 / total
                } else {
                    (1.0 + (x - self.min) / width * (left_weight / 2.0 - 1.0)) / total
                }
            } else {
                0.0
            };
        }
        let (right_mean, right_weight) = (self.mean_at(n - 1), self.weight_at(n - 1));
        if x > right_mean {
            let width = self.max - right_mean;
            return if width > 0.0 {
                if x == self.max {
                    1.0 - 0.5 / total
                } else {
                    1.0 - (1.0 + (self.max - x) / width * (right_weight / 2.0 - 1.0)) / total
                }
            } else {
                1.0
            };
        }
        let means = self.means.get(..n).unwrap_or_default();
        let weights = self.weights.get(..n).unwrap_or_default();
        let Some(i) = cdf_stop(means, x) else {
            return 1.0 - 0.5 / total;
        };
        let so_far = weight_sum(weights.get(..i).unwrap_or_default());
        let (mean, next_mean) = (self.mean_at(i), self.mean_at(i + 1));
        let (weight, next_weight) = (self.weight_at(i), self.weight_at(i + 1));
        if mean == x {
            let equal = weights
                .iter()
                .zip(means)
                .skip(i)
                .take_while(|&(_, &m)| m == x);
            let dw = equal.fold(0.0, |dw, (&w, _)| dw + w as f64);
            return (so_far + dw / 2.0) / total;
        }
        if next_mean - mean > 0.0 {
            return self.interpolated_cdf(x, so_far, (mean, weight), (next_mean, next_weight));
        }
        (so_far + (weight + next_weight) / 2.0) / total
    }

    /// The CDF at `x` between two centroids of different means, `so_far` the weight before
    /// the left one: singletons are not spread.
    fn interpolated_cdf(&self, x: f64, so_far: f64, left: (f64, f64), right: (f64, f64)) -> f64 {
        let ((mean, weight), (next_mean, next_weight)) = (left, right);
        let total = self.merged_weight as f64;
        let (mut left_excluded, mut right_excluded) = (0.0, 0.0);
        if weight == 1.0 {
            if next_weight == 1.0 {
                return (so_far + 1.0) / total;
            }
            left_excluded = 0.5;
        } else if next_weight == 1.0 {
            right_excluded = 0.5;
        }
        let dw = (weight + next_weight) / 2.0;
        let dw_inner = dw - left_excluded - right_excluded;
        let base = so_far + weight / 2.0 + left_excluded;
        (base + dw_inner * (x - mean) / (next_mean - mean)) / total
    }

    /// `TDIGEST.TRIMMED_MEAN` between the cuts `low` and `high` (t-digest-c's
    /// `td_trimmed_mean`; the command checks `0 ≤ low < high ≤ 1` first).
    pub fn trimmed_mean(&self, low: f64, high: f64) -> Result<f64, Error> {
        let view = self.merged_view()?;
        let n = view.merged;
        if n == 0 || outside(low, 0.0, 1.0) || outside(high, 0.0, 1.0) {
            return Ok(f64::NAN);
        }
        if n == 1 {
            return Ok(view.mean_at(0));
        }
        let total = view.merged_weight as f64;
        let (left, right) = ((total * low).floor(), (total * high).ceil());
        let (mut done, mut sum, mut count) = (0.0, 0.0, 0.0);
        for (&mean, &weight) in view.means.iter().zip(&view.weights).take(n) {
            let weight = weight as f64;
            let before = left - done;
            let skipped = if 0.0 > before { 0.0 } else { before };
            let mut counted = weight - if skipped < weight { skipped } else { weight };
            let room = right - done;
            let room = if 0.0 > room { 0.0 } else { room };
            counted = if room < counted { room } else { counted };
            done += weight;
            sum += mean * counted;
            count += counted;
            if done >= right {
                break;
            }
        }
        Ok(sum / count)
    }

    /// Whether RedisBloom's `RANK`/`REVRANK` of `values` compresses the digest: when one of
    /// them lies within `[min, max]` of a non-empty digest.
    pub fn ranks_compress(&self, values: &[f64]) -> bool {
        self.size() != 0 && values.iter().any(|&v| !outside(v, self.min, self.max))
    }

    /// `TDIGEST.RANK` (ascending) or `TDIGEST.REVRANK` (descending) of each value, as
    /// [`Ranks`] yields them to `read` (`OutOfMemory` when a compressed copy is needed and
    /// cannot be had, before `read` runs).
    pub fn ranks<R>(
        &self,
        values: &[f64],
        order: Order,
        read: impl FnOnce(Ranks<'_>) -> R,
    ) -> Result<R, Error> {
        let in_range = self.ranks_compress(values);
        self.ranks_over(self.size() as f64, values, order, in_range, read)
    }

    /// [`ranks`](TDigest::ranks) as RedisBloom's primary runs it: the digest is compressed in
    /// place when RedisBloom's would be ([`ranks_compress`](TDigest::ranks_compress)), and
    /// the answers scale by the size from before.
    pub fn ranks_compressing<R>(
        &mut self,
        values: &[f64],
        order: Order,
        read: impl FnOnce(Ranks<'_>) -> R,
    ) -> Result<R, Error> {
        let size = self.size() as f64;
        let in_range = self.ranks_compress(values);
        if in_range {
            self.compress();
        }
        self.ranks_over(size, values, order, in_range, read)
    }

    /// The ranks are handed to `read` rather than returned, so that they borrow the view here
    /// and are never moved. The centroids are looked at only when a value is `in_range`
    /// ([`ranks_compress`](TDigest::ranks_compress), which a compression does not change).
    fn ranks_over<R>(
        &self,
        size: f64,
        values: &[f64],
        order: Order,
        in_range: bool,
        read: impl FnOnce(Ranks<'_>) -> R,
    ) -> Result<R, Error> {
        let merged;
        let view = if in_range {
            merged = self.merged_view()?;
            &*merged
        } else {
            self
        };
        Ok(read(Ranks {
            view,
            values: values.iter(),
            size,
            order,
        }))
    }

    /// Whether RedisBloom's `BYRANK`/`BYREVRANK` of `ranks` compresses the digest: when one of
    /// them lies strictly between 0 and the size.
    pub fn by_ranks_compress(&self, ranks: &[i64]) -> bool {
        let size = self.size() as f64;
        size != 0.0 && ranks.iter().any(|&r| r != 0 && (r as f64) < size)
    }

    /// `TDIGEST.BYRANK` (ascending) or `TDIGEST.BYREVRANK` (descending) of each rank: NaN when
    /// empty, `min`/`max` for rank 0, ±inf from the size on, else `td_quantile` of the rank over
    /// the size the digest had before compressing.
    pub fn by_ranks(&self, ranks: &[i64], order: Order) -> Result<ShortList<f64>, Error> {
        self.by_ranks_at(self.size() as f64, ranks, order)
    }

    /// [`by_ranks`](TDigest::by_ranks) as RedisBloom's primary runs it: the digest is
    /// compressed in place when RedisBloom's would be
    /// ([`by_ranks_compress`](TDigest::by_ranks_compress)), and the ranks are taken over the
    /// size from before.
    pub fn by_ranks_compressing(
        &mut self,
        ranks: &[i64],
        order: Order,
    ) -> Result<ShortList<f64>, Error> {
        let size = self.size() as f64;
        if self.by_ranks_compress(ranks) {
            self.compress();
        }
        self.by_ranks_at(size, ranks, order)
    }

    fn by_ranks_at(&self, size: f64, ranks: &[i64], order: Order) -> Result<ShortList<f64>, Error> {
        let mut view = None;
        let mut out = ShortList::with_room(ranks.len())?;
        for &r in ranks {
            let rank = r as f64;
            let descending = order == Order::Descending;
            let value = if size == 0.0 {
                f64::NAN
            } else if rank == 0.0 {
                if descending {
                    self.max
                } else {
                    self.min
                }
            } else if rank >= size {
                if descending {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            } else {
                if view.is_none() {
                    view = Some(self.merged_view()?);
                }
                let from_start = if descending { size - rank - 1.0 } else { rank };
                view.as_ref()
                    .map_or(f64::NAN, |view| view.quantile(from_start / size))
            };
            out.push(value);
        }
        Ok(out)
    }
}
