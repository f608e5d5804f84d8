//! What a value that forgets forgets by — the last `n` updates or the last `n` milliseconds —
//! how its window is cut into periods, where the value stands in time ([`Clock`]) and the rings
//! it keeps a value per period in, with their RDB fields, shared by the families whose values
//! can forget (Count-Min sketches, Top-K; the Bloom filters' windows are sized by their
//! capacity).

use std::ops::Range;

use super::rdb::{RdbRead, RdbWrite};
use super::{try_vec, Error};

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

/// Where a value that forgets stands in time, its window cut into `periods` periods (a
/// Count-Min sketch's ticks, a Top-K's slots): the newest period a write moved it to, and the
/// updates applied, which are a count window's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    window: Window,
    periods: u64,
    newest: u64,
    /// Updates applied (count windows: their clock; 0 for time windows).
    updates: u64,
    /// The first time (or update count) of the period after `newest` (a function of it, not
    /// saved): a write before it needs no division to know its period.
    next_at: u64,
}

impl Clock {
    /// The clock of a value made at `now` (milliseconds; count windows start at 0).
    pub fn started(window: Window, periods: u64, now: u64) -> Clock {
        let newest = match window {
            Window::Count(_) => 0,
            Window::Time(_) => window.period_of(now, periods),
        };
        Clock::at(window, periods, newest, 0)
    }

    /// A clock at period `newest` that has applied `updates`.
    fn at(window: Window, periods: u64, newest: u64, updates: u64) -> Clock {
        let mut clock = Clock {
            window,
            periods,
            newest,
            updates,
            next_at: 0,
        };
        clock.move_to(newest);
        clock
    }

    /// The newest period a write moved it to.
    pub fn newest(&self) -> u64 {
        self.newest
    }

    /// Updates applied (count windows), or 0.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Whether a write at `now` (milliseconds) would move a time window's clock past its newest
    /// period: such a write must reach replicas with its time.
    pub fn opens_period(&self, now: u64) -> bool {
        // `next_at` is where the period after the newest begins: no division per write.
        matches!(self.window, Window::Time(_)) && now >= self.next_at
    }

    /// The period of `now` (milliseconds) on a time window, where a replica moves the clock
    /// before a write its primary made then; `None` on a count window, whose time is its
    /// updates.
    pub fn time_period(&self, now: u64) -> Option<u64> {
        match self.window {
            Window::Count(_) => None,
            Window::Time(_) => Some(self.window.period_of(now, self.periods)),
        }
    }

    /// The period a write at `now` is made in (milliseconds; `None`: at the newest period, as
    /// a replayed write), or, for count windows, at the next update: never before the newest,
    /// and divided out only when the write has reached the next period.
    pub fn write_period(&self, now: Option<u64>) -> u64 {
        let t = match (self.window, now) {
            (Window::Count(_), _) => self.updates,
            (Window::Time(_), Some(now)) => now,
            (Window::Time(_), None) => return self.newest,
        };
        if t < self.next_at {
            self.newest
        } else {
            self.window.period_of(t, self.periods).max(self.newest)
        }
    }

    /// The period a read at `now` sees: never before the newest.
    pub fn read_period(&self, now: u64) -> u64 {
        self.write_period(Some(now))
    }

    /// Moves the clock to `period`; the value moves what it holds with it.
    pub fn move_to(&mut self, period: u64) {
        self.newest = period;
        // The first time of the next period: `⌈(period + 1) · length / periods⌉`, saturating.
        let at = (u128::from(period) + 1) * u128::from(self.window.length());
        self.next_at = u64::try_from(at.div_ceil(u128::from(self.periods))).unwrap_or(u64::MAX);
    }

    /// Counts one update, a count window's time.
    pub fn count_update(&mut self) {
        if let Window::Count(_) = self.window {
            self.updates += 1;
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

/// Saves `clock` as two RDB fields: its newest period and its updates.
pub fn save_clock(clock: &Clock, out: &mut impl RdbWrite) {
    out.unsigned(clock.newest);
    out.unsigned(clock.updates);
}

/// Loads what [`save_clock`] saved, the clock of `window` cut into `periods`. `BadEncoding` for
/// updates on a time window, whose time they are not.
pub fn load_clock(input: &mut impl RdbRead, window: Window, periods: u64) -> Result<Clock, Error> {
    let newest = input.unsigned()?;
    let updates = input.unsigned()?;
    if matches!(window, Window::Time(_)) && updates != 0 {
        return Err(Error::BadEncoding);
    }
    Ok(Clock::at(window, periods, newest, updates))
}

/// Saves a ring of per-period totals as one RDB string of little-endian `u64`.
pub fn save_totals(totals: &[u64], out: &mut impl RdbWrite) {
    let bytes: Vec<u8> = totals.iter().flat_map(|t| t.to_le_bytes()).collect();
    out.bytes(&bytes);
}

/// Loads what [`save_totals`] saved, a ring of `len` totals. `BadEncoding` for a string of
/// another length.
pub fn load_totals(input: &mut impl RdbRead, len: usize) -> Result<Vec<u64>, Error> {
    let saved = input.bytes()?;
    if saved.len() as u64 != 8 * len as u64 {
        return Err(Error::BadEncoding);
    }
    let mut totals = try_vec(len)?;
    totals.extend(
        saved
            .as_chunks::<8>()
            .0
            .iter()
            .map(|t| u64::from_le_bytes(*t)),
    );
    Ok(totals)
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
