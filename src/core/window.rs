//! What a value that forgets forgets by — the last `n` updates or the last `n` milliseconds —
//! and how its window is cut into periods, shared by the families whose values can forget
//! (Count-Min sketches, Top-K; the Bloom filters' windows are sized by their capacity).

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
