//! What a value that forgets forgets by — the last `n` updates or the last `n` milliseconds —
//! and how its window is cut into periods, shared by the families whose values can forget
//! (Count-Min sketches, Top-K; the Bloom filters' windows are sized by their capacity).

use std::ops::Range;

use super::rdb::{RdbRead, RdbWrite};
use super::Error;

/// What a value forgets by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The last `n` updates (`WINDOW n`).
    Count(u64),
    /// The last `n` milliseconds (`TIMESPAN n`).
    Time(u64),
}

/// The longest window, in updates or milliseconds (2^40 ms is about 35 years).
pub const MAX_WINDOW: u64 = 1 << 40;
/// The most slots a window is cut into (`SLOTS`).
pub const MAX_SLOTS: u64 = 8;
/// Slots without `SLOTS`: forgetting within a quarter of the window after it.
pub const DEFAULT_SLOTS: u64 = 4;

impl Window {
    /// The window's length, in updates or milliseconds.
    pub fn length(self) -> u64 {
        match self {
            Window::Count(n) | Window::Time(n) => n,
        }
    }

    /// Whether its length is one a value may have: 1 to [`MAX_WINDOW`].
    pub fn is_valid(self) -> bool {
        (1..=MAX_WINDOW).contains(&self.length())
    }

    /// The period of time (or update count) `t` when the window is cut into `periods`:
    /// `⌊t · periods / length⌋`, exact in 128 bits, saturating at `u64::MAX` (times past 2^60
    /// ms, where the window stops sliding). Periods `periods` apart start exactly a window
    /// apart.
    pub fn period_of(self, t: u64, periods: u64) -> u64 {
        let period = u128::from(t) * u128::from(periods) / u128::from(self.length().max(1));
        u64::try_from(period).unwrap_or(u64::MAX)
    }
}

/// The place of period `period` in a ring of `len` places that holds one value per period
/// (period `p` at `p mod len`): a sketch's per-tick totals, a Top-K bucket's per-slot counts.
pub fn ring_place(len: usize, period: u64) -> usize {
    match usize::try_from(period) {
        // A young value's periods: no division. Without this branch a windowed TOPK.LIST
        // measured 10.5 µs a call instead of 8.9 — for time windows too, whose periods are
        // never young, so it is the compiled read path that differs, not the work done
        // (bench/README.md, "Sketches that forget").
        Ok(place) if place < len => place,
        _ => period.checked_rem(len as u64).unwrap_or(0) as usize,
    }
}

/// The places of periods `first ..= last` in such a ring, as at most two runs of places: oldest
/// first, or, when they cover the whole ring, the whole ring from place 0 (what sums and
/// clearing want). One division, none for a whole ring: walking it period by period took one
/// a place, and a write walks several rings.
pub fn ring_runs(len: usize, first: u64, last: u64) -> [Range<usize>; 2] {
    let Some(span) = last.checked_sub(first) else {
        return [0..0, 0..0];
    };
    if span.saturating_add(1) >= len as u64 {
        return [0..len, 0..0];
    }
    let (start, count) = (ring_place(len, first), span as usize + 1);
    match (start + count).checked_sub(len) {
        Some(wrapped) if wrapped > 0 => [start..len, 0..wrapped],
        _ => [start..start + count, 0..0],
    }
}

/// The values of periods `first ..= last` in `ring` ([`ring_runs`]).
pub fn in_ring<T>(ring: &[T], first: u64, last: u64) -> impl Iterator<Item = &T> {
    let [older, newer] = ring_runs(ring.len(), first, last);
    let run = |range: Range<usize>| ring.get(range).unwrap_or_default();
    run(older).iter().chain(run(newer))
}

/// Sets the values of periods `first ..= last` in `ring` to `value` ([`ring_runs`]).
pub fn fill_ring<T: Copy>(ring: &mut [T], first: u64, last: u64, value: T) {
    for range in ring_runs(ring.len(), first, last) {
        if let Some(run) = ring.get_mut(range) {
            run.fill(value);
        }
    }
}

/// A window's kind in saved values: count windows.
const KIND_COUNT: u64 = 0;
/// A window's kind in saved values: time windows.
const KIND_TIME: u64 = 1;

/// Saves `window` as two RDB fields: its kind (0 count, 1 time) and its length.
pub fn save(window: Window, out: &mut impl RdbWrite) {
    let (kind, length) = match window {
        Window::Count(n) => (KIND_COUNT, n),
        Window::Time(ms) => (KIND_TIME, ms),
    };
    out.unsigned(kind);
    out.unsigned(length);
}

/// Loads what [`save`] saved. `BadEncoding` for another kind or a length out of range.
pub fn load(input: &mut impl RdbRead) -> Result<Window, Error> {
    let kind = input.unsigned()?;
    let length = input.unsigned()?;
    let window = match kind {
        KIND_COUNT => Window::Count(length),
        KIND_TIME => Window::Time(length),
        _ => return Err(Error::BadEncoding),
    };
    if window.is_valid() {
        Ok(window)
    } else {
        Err(Error::BadEncoding)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs hold the places of the periods, each once; oldest first unless they are the
    /// whole ring.
    #[test]
    fn ring_runs_are_the_places_of_the_periods() {
        for len in 1..=9usize {
            for first in 0..30u64 {
                for last in first.saturating_sub(2)..first + 12 {
                    let places: Vec<usize> =
                        ring_runs(len, first, last).into_iter().flatten().collect();
                    let periods: Vec<usize> = (first..=last)
                        .take(len)
                        .map(|p| ring_place(len, p))
                        .collect();
                    if periods.len() == len {
                        assert_eq!(places, (0..len).collect::<Vec<_>>(), "{len} {first} {last}");
                    } else {
                        assert_eq!(places, periods, "{len} {first} {last}");
                    }
                }
            }
        }
        assert_eq!(ring_runs(0, 0, 5), [0..0, 0..0]);
        assert_eq!(ring_runs(4, u64::MAX - 1, u64::MAX), [2..4, 0..0]);
        let mut ring = [1, 2, 3, 4];
        fill_ring(&mut ring, 7, 8, 0);
        assert_eq!(ring, [0, 2, 3, 0]);
        assert_eq!(in_ring(&ring, 5, 6).copied().collect::<Vec<_>>(), [2, 3]);
    }
}
