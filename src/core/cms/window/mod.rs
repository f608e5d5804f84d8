//! Count-Min sketches that forget: the counts of the last `n` updates (a count window) or of
//! the last `n` milliseconds (a time window), in memory fixed at creation. Data type
//! `cm-window`; RedisBloom has none.
//!
//! The design is the sliding Count-Min sketch of Gou et al. (*Sliding Sketches*, KDD 2020),
//! quantised to ticks so that it is a function of the replicated writes alone:
//!
//! * Every cell of a `width × depth` sketch holds `f = slots + 1` counters, cell-major (cell
//!   `row · width + column`, its `f` counters contiguous), hashed as the classic sketch hashes
//!   its rows, so a windowed sketch's cells line up with a classic one's.
//! * The window is cut into `slots` slots of [`TICKS_PER_SLOT`] ticks; `tick(t) = ⌊t · slots ·
//!   ticks / window⌋`, `t` being the write's time in milliseconds or, for count windows, the
//!   number of updates (item/increment pairs) applied before it.
//! * A virtual pointer sweeps all `M` cells once per slot: by tick `T` it has passed
//!   `P = ⌊T · M / ticks⌋` cells. Cell `x` has then been passed `n = ⌊P / M⌋ + [x < P mod M]`
//!   times — its *generation* — and its counter `n mod f` is current. Each pass clears the
//!   counter that becomes current, the oldest, so a cell's counters hold its generations
//!   `n − slots … n`.
//! * A write first moves the pointer to its tick (clearing what it passes: `M / ticks`
//!   counters a tick, the whole array once after an idle gap of more than `f` slots), then adds
//!   to each row's current counter. A read computes, for each of the item's cells, how many
//!   passes the pointer would have made by the reader's tick and sums only the counters still
//!   alive then: expiry is virtual, and reads never change the sketch.
//!
//! So an update at `t` is counted until at least `t + window` and at most `t + window ·
//! (1 + 1/slots)`: ticks `slots · ticks` apart start exactly `window` apart, and passes of a
//! cell are `ticks` ticks apart. With width `⌈2/ε⌉` and depth `⌈log2(1/δ)⌉`, the estimate is
//! never below the item's count in the last window and exceeds it by at most its count in one
//! slot before the window plus `ε · N` (N the updates of that span) with probability `1 − δ`.

mod merge;
pub mod rdb;
mod shape;
/// Its periods are its ticks.
impl Forgets for WindowSketch {
    fn clock(&self) -> &Clock {
        &self.clock
    }

    fn move_to_period(&mut self, period: u64) {
        self.advance(period);
    }
}

#[cfg(test)]
mod tests;

use super::sketch::{self, IncrementError};
use crate::core::divisor::Divisor;
use crate::core::relocate::{Mover, Relocate};
use crate::core::window::{fill_ring, in_ring, ring_place, Clock, Forgets};
pub use crate::core::window::{Window, DEFAULT_SLOTS, MAX_SLOTS, MAX_WINDOW};
use crate::core::{try_copy, try_filled, Error, Memory};
use shape::{Current, Sweep};
pub use shape::{Shape, TICKS_PER_SLOT};

/// A Count-Min sketch that forgets. Not `Clone`: copies are fallible ([`WindowSketch::try_clone`]).
#[derive(Debug)]
pub struct WindowSketch {
    shape: Shape,
    /// The newest tick a write or merge moved the pointer to, and the updates applied.
    clock: Clock,
    /// Increments per tick, tick `t` at `t mod totals_len`, for the ticks `tick − slots ·
    /// ticks_per_slot ..= tick`.
    totals: Vec<u64>,
    /// `width × depth × (slots + 1)` little-endian `u32` counters, cell-major.
    counters: Vec<u8>,
    /// Whether every counter is known to be zero: moving the pointer of a sketch nothing was
    /// added to clears nothing (not saved; a loaded sketch is cleared as any other).
    blank: bool,
    /// Where the pointer stands at the newest tick, and the place of that tick's total: what
    /// every write and read would otherwise divide for (not saved: a function of the tick, set
    /// by [`WindowSketch::set_tick`]).
    sweep: Sweep,
    newest_total: usize,
    /// The width, to take hashes modulo it (a function of it, not saved).
    columns: Divisor,
    /// The sum of `totals`, exact (the metrics read it around every write): kept by
    /// `increment`, summed again by [`WindowSketch::set_tick`], which every other change of
    /// `totals` ends with.
    kept: u128,
}

/// Equal when they hold the same state; whether a sketch knows it is blank is bookkeeping.
impl PartialEq for WindowSketch {
    fn eq(&self, other: &WindowSketch) -> bool {
        (self.shape, self.clock) == (other.shape, other.clock)
            && self.totals == other.totals
            && self.counters == other.counters
    }
}

impl Eq for WindowSketch {}

impl Relocate for WindowSketch {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.totals);
        mover.vector(&mut self.counters);
    }
}

impl WindowSketch {
    /// An empty sketch of `shape`, its clock at `now` (milliseconds; count windows start at
    /// 0). `OverLimit` or `OutOfMemory` when `memory` refuses its size, before allocating.
    pub fn new(shape: Shape, now: u64, memory: &Memory) -> Result<WindowSketch, Error> {
        memory.check(shape.memory_usage().ok_or(Error::OutOfMemory)?)?;
        let counters = memory.array(shape.counter_bytes().ok_or(Error::OutOfMemory)?)?;
        Ok(WindowSketch::with_clock(
            shape,
            Clock::started(shape.window, shape.ticks_per_window(), now),
            zeroed_totals(&shape)?,
            counters,
            true,
        ))
    }

    /// A sketch of these parts, its pointer placed at its clock's tick.
    fn with_clock(
        shape: Shape,
        clock: Clock,
        totals: Vec<u64>,
        counters: Vec<u8>,
        blank: bool,
    ) -> WindowSketch {
        let mut sketch = WindowSketch {
            shape,
            clock,
            totals,
            counters,
            blank,
            sweep: Sweep::default(),
            newest_total: 0,
            columns: Divisor::new(shape.width),
            kept: 0,
        };
        sketch.set_tick(clock.newest());
        sketch
    }

    /// Moves the clock to `tick`, the pointer with it (no counter is cleared here), once the
    /// totals are those of `tick`.
    fn set_tick(&mut self, tick: u64) {
        self.clock.move_to(tick);
        self.sweep = self.shape.sweep(tick);
        self.newest_total = ring_place(self.totals.len(), tick);
        self.kept = self.totals.iter().map(|&total| u128::from(total)).sum();
    }

    /// The sketch's shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The counters: little-endian `u32`, cell-major.
    pub fn counters(&self) -> &[u8] {
        &self.counters
    }

    /// What `MEMORY USAGE` counts.
    pub fn memory_usage(&self) -> u64 {
        self.shape.memory_usage().unwrap_or(u64::MAX)
    }

    /// An independent copy (`COPY`), or `OutOfMemory`.
    pub fn try_clone(&self) -> Result<WindowSketch, Error> {
        let totals = try_copy(&self.totals)?;
        Ok(WindowSketch {
            totals,
            counters: try_copy(&self.counters)?,
            ..*self
        })
    }

    /// Adds `amount` to the item's current counter in every row, at time `now` (milliseconds;
    /// `None`: at the newest tick held, as a replayed write) or, for count windows, at the
    /// next update; returns the item's estimate. Refused, with no counter changed, when a
    /// counter would pass `u32::MAX` (the clock still moves: it is the write's time, not its
    /// content).
    pub fn increment(
        &mut self,
        item: &[u8],
        amount: u64,
        now: Option<u64>,
    ) -> Result<u64, IncrementError> {
        self.advance(self.clock.write_period(now));
        let current = Current::of(&self.shape, &self.sweep);
        let f = self.shape.counters_per_cell() as usize;
        // Each row's counter, found and checked before any is written.
        let mut places = [0usize; MAX_DEPTH_ON_STACK];
        let mut rows = 0;
        let mut refused = false;
        {
            let counters = self.counters.as_chunks::<4>().0;
            cells_of(self.shape, self.columns, item, |row, cell| {
                let at = cell as usize * f + current.index(cell);
                let fits = counters.get(at).is_some_and(|c| {
                    u64::from(u32::from_le_bytes(*c)) + amount <= u64::from(u32::MAX)
                });
                refused |= !fits;
                if let Some(place) = places.get_mut(row) {
                    *place = at;
                }
                rows += 1;
            });
        }
        if refused {
            return Err(IncrementError::Overflow);
        }
        let mut estimate = u64::MAX;
        if rows <= MAX_DEPTH_ON_STACK {
            for &at in places.get(..rows).unwrap_or(&[]) {
                estimate = estimate.min(self.add_and_sum(at, f, amount));
            }
        } else {
            let (shape, columns) = (self.shape, self.columns);
            cells_of(shape, columns, item, |_, cell| {
                let at = cell as usize * f + current.index(cell);
                estimate = estimate.min(self.add_and_sum(at, f, amount));
            });
        }
        if let Some(total) = self.totals.get_mut(self.newest_total) {
            let before = *total;
            *total = total.saturating_add(amount);
            self.kept += u128::from(*total - before);
        }
        self.clock.count_update();
        self.blank &= amount == 0;
        Ok(estimate)
    }

    /// Adds `amount`, checked to fit, to counter `at`, and returns the sum of its cell's `f`
    /// counters: at the newest tick all of a cell's counters are in the window.
    fn add_and_sum(&mut self, at: usize, f: usize, amount: u64) -> u64 {
        let counters = self.counters.as_chunks_mut::<4>().0;
        if let Some(counter) = counters.get_mut(at) {
            let value = u64::from(u32::from_le_bytes(*counter)) + amount;
            *counter = u32::try_from(value).unwrap_or(u32::MAX).to_le_bytes();
        }
        let first = at - at % f;
        counters.get(first..first + f).map_or(0, |cell| {
            cell.iter().map(|c| u64::from(u32::from_le_bytes(*c))).sum()
        })
    }

    /// The item's estimate at time `now` (milliseconds; count windows read at their update
    /// count): the minimum over rows of the sum of its cell's counters still alive then.
    pub fn query(&self, item: &[u8], now: u64) -> u64 {
        self.query_at(item, self.clock.read_period(now))
    }

    /// The increments of the window at time `now`, at tick granularity (`CMS.INFO count`).
    pub fn window_count(&self, now: u64) -> u64 {
        let oldest = self.oldest_total_tick();
        let from = self
            .clock
            .read_period(now)
            .saturating_sub(self.shape.ticks_per_window())
            .max(oldest);
        // Every total kept, less those of the ticks expired by `now` (none at the newest tick).
        let expired: u128 = from.checked_sub(1).map_or(0, |last| {
            in_ring(&self.totals, oldest, last)
                .map(|&total| u128::from(total))
                .sum()
        });
        u64::try_from(self.kept.saturating_sub(expired)).unwrap_or(u64::MAX)
    }

    /// The tick the pointer last moved to.
    pub fn tick(&self) -> u64 {
        self.clock.newest()
    }

    fn query_at(&self, item: &[u8], tick: u64) -> u64 {
        let f = self.shape.counters_per_cell();
        let counters = self.counters.as_chunks::<4>().0;
        let counter = |at: u64| {
            usize::try_from(at)
                .ok()
                .and_then(|at| counters.get(at))
                .map_or(0, |c| u64::from(u32::from_le_bytes(*c)))
        };
        let mut estimate = u64::MAX;
        if tick == self.tick() {
            // Every counter of a cell is in the window at the newest tick.
            cells_of(self.shape, self.columns, item, |_, cell| {
                let sum = (cell * f..cell * f + f).map(counter).sum();
                estimate = estimate.min(sum);
            });
            return estimate;
        }
        let stored = &self.sweep;
        let read = self.shape.sweep(tick);
        cells_of(self.shape, self.columns, item, |_, cell| {
            let held = stored.generation(cell);
            let passes = read.generation(cell) - held;
            let live = f.saturating_sub(passes);
            let sum = (0..live)
                .map(|back| counter(cell * f + (held % f + f - back) % f))
                .sum();
            estimate = estimate.min(sum);
        });
        estimate
    }

    fn counter(&self, at: usize) -> Option<u32> {
        self.counters
            .as_chunks::<4>()
            .0
            .get(at)
            .map(|bytes| u32::from_le_bytes(*bytes))
    }

    fn set_counter(&mut self, at: usize, value: u32) {
        if let Some(bytes) = self.counters.as_chunks_mut::<4>().0.get_mut(at) {
            *bytes = value.to_le_bytes();
        }
    }

    /// Moves the pointer to `tick` (never back), clearing the counter each passed cell makes
    /// current, and the totals of the ticks it opens.
    fn advance(&mut self, tick: u64) {
        if tick <= self.tick() {
            return;
        }
        let from = self.sweep;
        fill_ring(&mut self.totals, self.clock.newest() + 1, tick, 0);
        self.set_tick(tick);
        let to = self.sweep;
        if self.blank {
            return;
        }
        let f = self.shape.counters_per_cell();
        let cells = self.shape.cells().unwrap_or(0);
        if to.passed - from.passed >= u128::from(f * cells) {
            self.counters.fill(0);
            self.blank = true;
            return;
        }
        // Fewer than `f` sweeps: cell by cell, the pass making generation `sweeps + 1` of cell
        // `into` clears its counter `(sweeps + 1) mod f`.
        let (mut sweeps, mut into) = (from.sweeps, from.into);
        let mut left = to.passed - from.passed;
        while left > 0 {
            let run = (cells - into).min(u64::try_from(left).unwrap_or(u64::MAX));
            let current = (sweeps + 1) % f;
            for cell in into..into + run {
                if let Ok(at) = usize::try_from(cell * f + current) {
                    self.set_counter(at, 0);
                }
            }
            left -= u128::from(run);
            into += run;
            if into == cells {
                into = 0;
                sweeps += 1;
            }
        }
    }

    /// The oldest tick whose total is kept.
    fn oldest_total_tick(&self) -> u64 {
        self.tick().saturating_sub(self.shape.ticks_per_window())
    }
}

/// Calls `f` with each row of a sketch of `shape` and the item's cell in it: the classic
/// sketch's cells.
fn cells_of(shape: Shape, columns: Divisor, item: &[u8], mut f: impl FnMut(usize, u64)) {
    let Shape { width, depth, .. } = shape;
    sketch::cells_of(width, depth, columns, item, |row, cell| {
        f(row as usize, cell)
    });
}

/// Rows whose places an increment keeps on the stack between its check and its writes; deeper
/// sketches hash the item again.
const MAX_DEPTH_ON_STACK: usize = 32;

fn zeroed_totals(shape: &Shape) -> Result<Vec<u64>, Error> {
    let len = usize::try_from(shape.totals_len()).map_err(|_| Error::OutOfMemory)?;
    try_filled(len, 0)
}
