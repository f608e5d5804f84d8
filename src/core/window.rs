//! What a value that forgets forgets by — the last `n` updates or the last `n` milliseconds —
//! and how its window is cut into periods, for every family whose values can forget (Bloom
//! filters, Count-Min sketches, Top-K); where a sketch stands in time ([`Clock`]) and the
//! rings it keeps a value per period in, with their RDB fields, for the sketches (a Bloom
//! filter that forgets moves by generations of additions, `core/bf/window/`).

use std::ops::Range;

use super::rdb::{RdbRead, RdbWrite};
use super::{try_vec, Error};

/// What a value forgets by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The last `n` updates (`WINDOW n`; a Bloom filter's `WINDOW` keeps its capacity's
    /// last additions).
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
        u64::try_from(self.exact_period_of(t, periods)).unwrap_or(u64::MAX)
    }

    /// The first time (or update count) of the period `t` falls in when the window is cut
    /// into `periods`, exact.
    pub fn period_start(self, t: u64, periods: u64) -> u64 {
        let first = self.first_time_of(self.exact_period_of(t, periods), periods);
        // The first time is at most `t`, so it always fits.
        u64::try_from(first).unwrap_or(t)
    }

    /// The last time (or update count) of the period `t` falls in, exact, saturating at
    /// `u64::MAX`.
    pub fn period_end(self, t: u64, periods: u64) -> u64 {
        let next = self.first_time_of(self.exact_period_of(t, periods) + 1, periods);
        u64::try_from(next - 1).unwrap_or(u64::MAX)
    }

    /// Whether times `a` and `b` fall in one period, exact: two times past the last period
    /// `period_of` can name are told apart here.
    pub fn same_period(self, a: u64, b: u64, periods: u64) -> bool {
        self.exact_period_of(a, periods) == self.exact_period_of(b, periods)
    }

    /// `⌊t · periods / length⌋` in 128 bits, where it cannot overflow.
    fn exact_period_of(self, t: u64, periods: u64) -> u128 {
        u128::from(t) * u128::from(periods) / u128::from(self.length().max(1))
    }

    /// The first time (or update count) of period `period`: the smallest `t` with
    /// `⌊t · periods / length⌋ = period`, `⌈period · length / periods⌉`.
    fn first_time_of(self, period: u128, periods: u64) -> u128 {
        // Saturating: only absurd window lengths and period counts come near 2^128.
        (period.saturating_mul(u128::from(self.length()))).div_ceil(u128::from(periods.max(1)))
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

/// A value that forgets: it keeps a [`Clock`], and moves to a later period by clearing what
/// expired (its family's own work). The clock's moves that every such value makes — whether a
/// write opens a period, and a replica's move to its primary's time — are the trait's, so no
/// family spells them out.
pub trait Forgets {
    /// Where the value stands in time.
    fn clock(&self) -> &Clock;

    /// Moves the value to the later period `period`, clearing what expired.
    fn move_to_period(&mut self, period: u64);

    /// Whether a write at `now` (milliseconds) would open a period of a time window: such a
    /// write must reach replicas with its time.
    fn opens_period(&self, now: u64) -> bool {
        self.clock().opens_period(now)
    }

    /// Moves a time window's clock to `now` (milliseconds), clearing what expired: what a
    /// replica does before a write its primary made in a new period. Never moves it back.
    fn advance_to(&mut self, now: u64) {
        if let Some(period) = self.clock().time_period(now) {
            self.move_to_period(period);
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
    /// What the value forgets by.
    pub fn window(&self) -> Window {
        self.window
    }

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
        // The first time of the next period, saturating.
        let at = self
            .window
            .first_time_of(u128::from(period) + 1, self.periods);
        self.next_at = u64::try_from(at).unwrap_or(u64::MAX);
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

    /// The first time (or update count) of period `p`, found by bisection over
    /// [`Window::period_of`] rather than by the clock's own formula; `u64::MAX` where no time
    /// reaches it, as the clock saturates.
    fn bisected_first_time(window: Window, periods: u64, p: u64) -> u64 {
        let (mut low, mut high) = (0, u64::MAX);
        while low < high {
            let mid = low + (high - low) / 2;
            if window.period_of(mid, periods) >= p {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        low
    }

    /// A clock of `window` cut into `periods`, moved to period `newest`.
    fn clock_at(window: Window, periods: u64, newest: u64) -> Clock {
        let mut clock = Clock::started(window, periods, 0);
        clock.move_to(newest);
        clock
    }

    /// Periods of uneven lengths (7 over 3), even ones, one period, several periods to a
    /// millisecond (1 over 8), and the longest window, whose products pass 2^64.
    const SHAPES: [(u64, u64); 7] = [
        (7, 3),
        (1000, 4),
        (10, 8),
        (1, 1),
        (1, 8),
        (MAX_WINDOW, 8),
        (MAX_WINDOW, 3),
    ];

    #[test]
    fn a_time_window_s_next_period_begins_at_the_first_time_of_a_later_period() {
        for (length, periods) in SHAPES {
            let window = Window::Time(length);
            for newest in [0, 1, 2, 3, 7, 8, 9, 1 << 20, 1 << 24, 1 << 40, u64::MAX / 2] {
                let clock = clock_at(window, periods, newest);
                let shape = format!("{length}/{periods} at {newest}");
                let next = bisected_first_time(window, periods, newest + 1);
                assert_eq!(clock.next_at, next, "{shape}");
                // Earlier writes and reads stay at the newest period, up to the boundary.
                for t in [0, next / 2, next.saturating_sub(1)] {
                    assert!(!clock.opens_period(t), "{shape}: {t}");
                    assert_eq!(clock.write_period(Some(t)), newest, "{shape}: {t}");
                    assert_eq!(clock.read_period(t), newest, "{shape}: {t}");
                }
                assert!(clock.opens_period(next), "{shape}");
                let after = window.period_of(next, periods).max(newest);
                assert_eq!(clock.write_period(Some(next)), after, "{shape}");
                assert_eq!(clock.read_period(next), after, "{shape}");
                assert_eq!(clock.write_period(None), newest, "{shape}");
            }
        }
    }

    #[test]
    fn the_period_around_a_time_is_every_time_of_its_period() {
        for (length, periods) in SHAPES {
            let window = Window::Time(length);
            for t in [
                0,
                1,
                2,
                3,
                7,
                8,
                9,
                1 << 20,
                1 << 40,
                u64::MAX / 2,
                u64::MAX,
            ] {
                let shape = format!("{length}/{periods} at {t}");
                let period = window.period_of(t, periods);
                let (first, last) = (
                    window.period_start(t, periods),
                    window.period_end(t, periods),
                );
                assert!(first <= t && t <= last, "{shape}: {first}..={last}");
                assert!(window.same_period(first, t, periods), "{shape}");
                assert!(window.same_period(last, t, periods), "{shape}");
                if first > 0 {
                    assert!(!window.same_period(first - 1, t, periods), "{shape}");
                }
                if last < u64::MAX {
                    assert!(!window.same_period(last + 1, t, periods), "{shape}");
                }
                // Past u64::MAX periods (1 ms over 8 near the last millisecond) period_of
                // saturates, so its neighbours cannot be told apart by it.
                if period < u64::MAX {
                    assert_eq!(
                        first,
                        bisected_first_time(window, periods, period),
                        "{shape}"
                    );
                    assert_eq!(window.period_of(last, periods), period, "{shape}");
                    if last < u64::MAX {
                        assert!(window.period_of(last + 1, periods) > period, "{shape}");
                    }
                }
            }
        }
        // 7 ms over 3 periods: 0..=2, 3..=4, 5..=6.
        let window = Window::Time(7);
        let around: Vec<_> = (0..7)
            .map(|t| (window.period_start(t, 3), window.period_end(t, 3)))
            .collect();
        assert_eq!(
            around,
            [(0, 2), (0, 2), (0, 2), (3, 4), (3, 4), (5, 6), (5, 6)]
        );
    }

    #[test]
    fn the_next_period_begins_at_the_ceiling_of_its_share_of_the_window_saturating() {
        // 7 ms over 3 periods: they begin at 0, ⌈7/3⌉ = 3, ⌈14/3⌉ = 5, 7, ⌈28/3⌉ = 10.
        let clock = Clock::started(Window::Time(7), 3, 0);
        let written: Vec<u64> = (0..11).map(|t| clock.write_period(Some(t))).collect();
        assert_eq!(written, [0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 4]);
        let opened: Vec<bool> = (0..5).map(|t| clock.opens_period(t)).collect();
        assert_eq!(opened, [false, false, false, true, true]);
        // Started at 2600 ms, a second over 4: period 10, the next from 2750 ms.
        let clock = Clock::started(Window::Time(1000), 4, 2600);
        assert_eq!((clock.newest(), clock.next_at), (10, 2750));
        // (2^24 + 1) · 2^40 passes 2^64; over 3 periods the next begins below it, exactly.
        let clock = clock_at(Window::Time(MAX_WINDOW), 3, 1 << 24);
        assert_eq!(clock.next_at, 0x5555_55aa_aaaa_aaab);
        // Over one period it begins past every time: no write opens a period before the last
        // millisecond, and none is made before the newest.
        let clock = clock_at(Window::Time(MAX_WINDOW), 1, 1 << 24);
        assert_eq!(clock.next_at, u64::MAX);
        assert!(!clock.opens_period(u64::MAX - 1));
        assert_eq!(clock.write_period(Some(u64::MAX)), 1 << 24);
        assert_eq!(clock.time_period(u64::MAX), Some((1 << 24) - 1));
    }

    #[test]
    fn a_time_window_s_clock_counts_no_updates_and_its_periods_follow_time() {
        let mut clock = Clock::started(Window::Time(1000), 4, 0);
        clock.count_update();
        assert_eq!(clock.updates(), 0);
        assert_eq!(clock.time_period(2600), Some(10));
        assert_eq!(clock.time_period(u64::MAX), Some(u64::MAX / 250));
        // 2^62 ms over a millisecond cut in 8 is past 2^64 periods: the last one.
        let finely_cut = Clock::started(Window::Time(1), 8, 0);
        assert_eq!(finely_cut.time_period(1 << 62), Some(u64::MAX));
    }

    #[test]
    fn a_count_window_s_time_is_its_updates() {
        // Over 7 updates in 3 periods, the periods begin at updates 0, 3, 5, 7 and 10.
        let mut clock = Clock::started(Window::Count(7), 3, 123_456);
        assert_eq!((clock.newest(), clock.updates()), (0, 0));
        let mut written = Vec::new();
        for _ in 0..11 {
            // As a write does: its period, the clock moved there, the update counted.
            let period = clock.write_period(Some(999_999));
            assert_eq!(clock.write_period(None), period);
            assert_eq!(clock.read_period(0), period);
            assert_eq!(clock.time_period(999_999), None);
            assert!(!clock.opens_period(u64::MAX));
            written.push(period);
            clock.move_to(period);
            clock.count_update();
        }
        assert_eq!(written, [0, 0, 0, 1, 1, 2, 2, 3, 3, 3, 4]);
        assert_eq!((clock.newest(), clock.updates()), (4, 11));
        // A clock moved past the period of its updates stays there: never before the newest.
        clock.move_to(9);
        assert_eq!(clock.write_period(None), 9);
        clock.count_update();
        assert_eq!(clock.read_period(0), 9);
    }
}
