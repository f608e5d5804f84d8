//! A sketch's dimensions as `CMS.INITBYDIM` and `CMS.INITBYPROB` compute and check them
//! (RedisBloom's `parseCreateArgs` and `CMS_DimFromProb`, `src/rm_cms.c` and `src/cms.c`),
//! and its cell size.

use super::cell::CellSize;

/// What RedisBloom 8.12's `CMSMemUsage` (`src/rm_cms.c`) counts besides the counters: its
/// `CMSketch` struct (width, depth, the array pointer, total and cell size, padded).
pub(super) const SKETCH_STRUCT_BYTES: u64 = 40;

/// Why a sketch cannot be made from `CMS.INITBYDIM`/`CMS.INITBYPROB` arguments, in the order
/// RedisBloom checks them (`parseCreateArgs` in `src/rm_cms.c`); each has its own error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitError {
    /// A width below 1 (`CMS: invalid width`).
    Width,
    /// A depth below 1 (`CMS: invalid depth`).
    Depth,
    /// An error rate outside (0, 1) (`CMS: invalid overestimation value`).
    Overestimation,
    /// A probability outside (0, 1) (`CMS: invalid prob value`).
    Probability,
    /// Dimensions that are below 1 once computed, or whose product passes `i64::MAX`
    /// (`CMS: invalid init arguments`).
    Arguments,
}

/// A sketch's width and depth, checked as RedisBloom checks them: both at least 1 and their
/// product at most `i64::MAX`, and its cell size. Whether that many counters fit in memory is
/// [`CountMinSketch::new`](super::CountMinSketch::new)'s question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dimensions {
    pub(super) width: u64,
    pub(super) depth: u64,
    pub(super) cell_size: CellSize,
}

impl Dimensions {
    /// The dimensions `CMS.INITBYDIM key width depth` asks for.
    pub fn new(width: i64, depth: i64) -> Result<Dimensions, InitError> {
        if width < 1 {
            return Err(InitError::Width);
        }
        if depth < 1 {
            return Err(InitError::Depth);
        }
        Dimensions::checked(width, depth)
    }

    /// The dimensions `CMS.INITBYPROB key error probability` asks for: width `⌈2 / error⌉`
    /// in `f64`, depth `⌈log10(probability) / log10(0.5)⌉` in **`f32`**, as RedisBloom's
    /// `CMS_DimFromProb` computes them with `log10f` (so 0.249999999 gives depth 2, where
    /// `f64` would give 3). Both results pass through `size_t` into a `long long`, which the
    /// saturating casts below reproduce: a width of 2^63 or more, or an infinite depth, is
    /// [`InitError::Arguments`], as is a probability that rounds to 1 in `f32` (depth 0).
    pub fn for_error(error: f64, probability: f64) -> Result<Dimensions, InitError> {
        // Negated comparisons so that NaN fails them too.
        if !(error > 0.0 && error < 1.0) {
            return Err(InitError::Overestimation);
        }
        if !(probability > 0.0 && probability < 1.0) {
            return Err(InitError::Probability);
        }
        let width = (2.0 / error).ceil() as u64 as i64;
        let depth_f32 = (probability as f32).log10() / 0.5f32.log10();
        let depth = f64::from(depth_f32).ceil() as u64 as i64;
        if width < 1 || depth < 1 {
            return Err(InitError::Arguments);
        }
        Dimensions::checked(width, depth)
    }

    fn checked(width: i64, depth: i64) -> Result<Dimensions, InitError> {
        if width > i64::MAX / depth {
            return Err(InitError::Arguments);
        }
        Ok(Dimensions {
            width: width.unsigned_abs(),
            depth: depth.unsigned_abs(),
            cell_size: CellSize::DEFAULT,
        })
    }

    /// The same dimensions with counters of `cell_size` (`CELL_SIZE`).
    pub fn with_cell_size(self, cell_size: CellSize) -> Dimensions {
        Dimensions { cell_size, ..self }
    }

    /// Bytes per counter.
    pub fn cell_size(&self) -> CellSize {
        self.cell_size
    }

    /// Counters per row.
    pub fn width(&self) -> u64 {
        self.width
    }

    /// Rows.
    pub fn depth(&self) -> u64 {
        self.depth
    }

    /// What `MEMORY USAGE` would count for a saved sketch of these dimensions, or `None`
    /// past `u64`: load asks [`Memory`] with it before the dimensions are trusted.
    pub(super) fn saved_memory_usage(width: u64, depth: u64, cell_size: CellSize) -> Option<u64> {
        Dimensions::saved(width, depth, cell_size).memory_usage()
    }

    /// A saved sketch's dimensions, unchecked: `CountMinSketch::from_saved` checks them.
    pub(super) fn saved(width: u64, depth: u64, cell_size: CellSize) -> Dimensions {
        Dimensions {
            width,
            depth,
            cell_size,
        }
    }

    /// Bytes of the counters, or `None` past `u64`.
    pub(super) fn counter_bytes(&self) -> Option<u64> {
        self.width
            .checked_mul(self.depth)?
            .checked_mul(self.cell_size.bytes())
    }

    /// What `MEMORY USAGE` counts for a sketch of these dimensions, or `None` past `u64`.
    pub(super) fn memory_usage(&self) -> Option<u64> {
        self.counter_bytes()?.checked_add(SKETCH_STRUCT_BYTES)
    }
}
