//! `CMS.MERGE` of sketches that forget: only time windows of one shape, all aligned to the
//! merge's time (or the newest tick any of them holds), summed counter by counter with
//! RedisBloom's weights and overflow rule (`CMS_Merge`, `src/cms.c`).

use super::{zeroed_totals, Sweep, Window, WindowSketch};
use crate::core::cms::sketch::{MergeError, MergeSource, Weighted};
use crate::core::window::ring_place;

impl WindowSketch {
    /// Checks a merge of `sources` into this sketch at time `now` without changing anything:
    /// only time windows of one shape merge, and every weighted sum must fit its counter.
    pub fn check_merge(
        &self,
        sources: &[Weighted<WindowSketch>],
        now: u64,
    ) -> Result<(), MergeError> {
        self.merged(sources, now).map(|_| ())
    }

    /// Replaces every counter by the weighted sum of the sources' counters, all aligned to
    /// `now` or the newest tick any of them holds (RedisBloom's `CMS.MERGE`, applied to the
    /// counts still alive then). On an error nothing has changed.
    pub fn merge(
        &mut self,
        sources: &[Weighted<WindowSketch>],
        now: u64,
    ) -> Result<(), MergeError> {
        let (tick, totals) = self.merged(sources, now)?;
        let f = self.shape.counters_per_cell();
        let cells = self.shape.cells().unwrap_or(0);
        let read = self.shape.sweep(tick);
        let mut nonzero = false;
        for cell in 0..cells {
            for index in 0..f {
                // Checked in `merged`; each counter is read before it is written.
                let value = self.merged_counter(sources, cell, index, &read)?;
                nonzero |= value != 0;
                if let Ok(at) = usize::try_from(cell * f + index) {
                    self.set_counter(at, value);
                }
            }
        }
        self.totals = totals;
        self.set_tick(tick);
        self.blank = !nonzero;
        Ok(())
    }

    /// The merge's tick and totals, every counter checked.
    fn merged(
        &self,
        sources: &[Weighted<WindowSketch>],
        now: u64,
    ) -> Result<(u64, Vec<u64>), MergeError> {
        let Window::Time(_) = self.shape.window else {
            return Err(MergeError::CountWindow);
        };
        let mut tick = self.clock.read_period(now);
        for weighted in sources {
            if let MergeSource::Other(sketch) = weighted.source {
                if (sketch.shape.width, sketch.shape.depth) != (self.shape.width, self.shape.depth)
                {
                    return Err(MergeError::DimensionsDiffer);
                }
                if sketch.shape != self.shape {
                    return Err(MergeError::WindowsDiffer);
                }
                tick = tick.max(sketch.tick());
            }
        }
        let read = self.shape.sweep(tick);
        let f = self.shape.counters_per_cell();
        for cell in 0..self.shape.cells().unwrap_or(0) {
            for index in 0..f {
                self.merged_counter(sources, cell, index, &read)?;
            }
        }
        let len = self.totals.len();
        let mut totals = zeroed_totals(&self.shape).map_err(|_| MergeError::Overflow)?;
        let oldest = tick.saturating_sub(self.shape.ticks_per_window());
        for at in oldest..=tick {
            let mut sum = 0i128;
            for weighted in sources {
                let sketch = weighted.source.or(self);
                if at <= sketch.tick() && at >= sketch.oldest_total_tick() {
                    let total = sketch.totals.get(ring_place(len, at)).copied().unwrap_or(0);
                    sum += i128::from(total) * i128::from(weighted.weight);
                }
            }
            let sum = u64::try_from(sum).map_err(|_| MergeError::Overflow)?;
            if let Some(slot) = totals.get_mut(ring_place(len, at)) {
                *slot = sum;
            }
        }
        Ok((tick, totals))
    }

    /// The weighted sum of counter `index` of `cell` over the sources, each read as it stands
    /// at the merge's pointer `read` (0 where that counter's generation has expired by then).
    fn merged_counter(
        &self,
        sources: &[Weighted<WindowSketch>],
        cell: u64,
        index: u64,
        read: &Sweep,
    ) -> Result<u32, MergeError> {
        let f = self.shape.counters_per_cell();
        let newest = read.generation(cell);
        let mut sum = 0i64;
        for weighted in sources {
            let sketch = weighted.source.or(self);
            let held = sketch.sweep.generation(cell);
            // The generation counter `index` holds: the newest at most `held` in its class
            // (none below 0: such a counter was never written).
            let alive = held
                .checked_sub((held % f + f - index) % f)
                .is_some_and(|generation| generation + self.shape.slots >= newest);
            let counter = match usize::try_from(cell * f + index) {
                Ok(at) if alive => sketch.counter(at).map_or(0, i64::from),
                _ => 0,
            };
            sum = counter
                .checked_mul(weighted.weight)
                .and_then(|product| sum.checked_add(product))
                .ok_or(MergeError::Overflow)?;
        }
        u32::try_from(sum).map_err(|_| MergeError::Overflow)
    }
}
