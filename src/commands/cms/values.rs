//! The Count-Min sketches at keys: what each adds to the family's `INFO` totals, and the
//! lookups that find one with RedisBloom's key errors.

use super::errors;
/// A Count-Min sketch: RedisBloom's, or one that forgets (`window.rs`).
pub(super) use crate::commands::classic_or_window::ClassicOrWindow as Sketch;
use crate::commands::errors::Failure;
use crate::commands::keys::{ReadKey, WriteKey};
use crate::commands::metrics::{Footprint, Measured, Totals};
use crate::commands::tracked::Tracked;
use crate::core::cms::{CountMinSketch, WindowSketch};

pub(super) static TOTALS: Totals = Totals::new();

/// The counts of a sketch's footprint, by position.
pub(super) const COUNTERS: usize = 0;
pub(super) const INCREMENTS: usize = 1;

impl Measured for CountMinSketch {
    fn footprint(&self) -> Footprint {
        Footprint::new(
            self.memory_usage(),
            [
                (COUNTERS, self.width().wrapping_mul(self.depth())),
                (INCREMENTS, self.count()),
            ],
        )
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// A sketch opened for writing.
pub(super) type Writing<'k> = Sketch<Tracked<'k, CountMinSketch>, Tracked<'k, WindowSketch>>;

/// A sketch opened for reading.
pub(super) type Reading<'k> = Sketch<&'k CountMinSketch, &'k WindowSketch>;

/// The sketch at a key opened for writing, or RedisBloom's `CMS: key does not exist` /
/// `WRONGTYPE`.
// Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
#[inline(always)]
pub(super) fn existing_write<'k>(key: &'k mut WriteKey) -> Result<Writing<'k>, Failure> {
    Writing::to_write(key, errors::NOT_FOUND)
}

/// A sketch that forgets counts as one of its shape; its increments are its window's.
impl Measured for WindowSketch {
    fn footprint(&self) -> Footprint {
        let shape = self.shape();
        Footprint::new(
            self.memory_usage(),
            [
                (COUNTERS, shape.width.wrapping_mul(shape.depth)),
                (INCREMENTS, self.window_count(0)),
            ],
        )
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// The sketch at a key opened for reading (as [`existing_write`]).
pub(super) fn existing_read<'k>(key: &'k ReadKey) -> Result<Reading<'k>, Failure> {
    Reading::to_read(key, errors::NOT_FOUND)
}
