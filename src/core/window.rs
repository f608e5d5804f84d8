//! What a value that forgets forgets by — the last `n` updates or the last `n` milliseconds —
//! and how its window is cut into periods, shared by the families whose values can forget
//! (Count-Min sketches, Top-K; the Bloom filters' windows are sized by their capacity).

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
