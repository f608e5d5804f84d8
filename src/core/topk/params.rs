//! What `TOPK.RESERVE` and `TOPK.INCRBY` accept, checked as RedisBloom 8 checks it
//! (`createTopK` and `TopK_Incrby_Cmd` in `src/rm_topk.c`), before anything is written.

use crate::core::divisor::Divisor;

/// Why `TOPK.RESERVE` arguments are refused, in the order RedisBloom checks them; each has
/// its own error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReserveError {
    /// k outside [1, `u32::MAX`] (`TopK: invalid k`). RedisBloom 2.8.2 cut k to 32 bits,
    /// and aborted on 2^32; 8.x refuses it, as here.
    K,
    /// A width outside [1, `u32::MAX`] (`TopK: invalid width`).
    Width,
    /// A depth outside [1, `u32::MAX`] (`TopK: invalid depth`).
    Depth,
    /// A decay outside (0, 1] or NaN (`TopK: invalid decay value. must be '<= 1' & '> 0'`).
    Decay,
}

/// The shape of a Top-K: how many items it keeps, its buckets and how fast a colliding
/// bucket decays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub(super) k: u32,
    pub(super) width: u32,
    pub(super) depth: u32,
    pub(super) decay: f64,
    /// The width, to take hashes modulo it (a function of it).
    pub(super) columns: Divisor,
}

/// `TOPK.RESERVE key k` without the optional arguments: width 8, depth 7, decay 0.9
/// (`TOPK_DEFAULT_*` in `src/rm_topk.c`).
pub const DEFAULT_WIDTH: i64 = 8;
/// See [`DEFAULT_WIDTH`].
pub const DEFAULT_DEPTH: i64 = 7;
/// See [`DEFAULT_WIDTH`].
pub const DEFAULT_DECAY: f64 = 0.9;

/// The largest increment `TOPK.INCRBY` accepts.
pub const MAX_INCREMENT: i64 = 100_000;

impl Params {
    /// `TOPK.RESERVE key k width depth decay`.
    pub fn new(k: i64, width: i64, depth: i64, decay: f64) -> Result<Params, ReserveError> {
        let k = in_u32(k).ok_or(ReserveError::K)?;
        let width = in_u32(width).ok_or(ReserveError::Width)?;
        let depth = in_u32(depth).ok_or(ReserveError::Depth)?;
        // Negated so that NaN fails too.
        if !(decay > 0.0 && decay <= 1.0) {
            return Err(ReserveError::Decay);
        }
        Ok(Params {
            k,
            width,
            depth,
            decay,
            columns: Divisor::new(u64::from(width)),
        })
    }

    /// `TOPK.RESERVE key k`, with the default width, depth and decay.
    pub fn with_defaults(k: i64) -> Result<Params, ReserveError> {
        Params::new(k, DEFAULT_WIDTH, DEFAULT_DEPTH, DEFAULT_DECAY)
    }

    /// Items kept.
    pub fn k(&self) -> u32 {
        self.k
    }

    /// Buckets per row.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Rows.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The decay base.
    pub fn decay(&self) -> f64 {
        self.decay
    }
}

/// A value in [1, `u32::MAX`].
fn in_u32(value: i64) -> Option<u32> {
    u32::try_from(value).ok().filter(|&v| v >= 1)
}

/// A `TOPK.INCRBY` increment: an integer in [0, 100000], or `None` (`TopK: increment must be
/// an integer greater or equal to 0 … and smaller or equal to 100,000`, after which
/// RedisBloom applies no further pair).
pub fn increment(value: i64) -> Option<u32> {
    if (0..=MAX_INCREMENT).contains(&value) {
        u32::try_from(value).ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_redisbloom_8() {
        assert!(Params::new(1, 1, 1, 1.0).is_ok());
        let max = i64::from(u32::MAX);
        assert!(Params::new(max, max, max, f64::MIN_POSITIVE).is_ok());
        assert_eq!(Params::new(0, 1, 1, 0.5), Err(ReserveError::K));
        assert_eq!(Params::new(max + 1, 1, 1, 0.5), Err(ReserveError::K));
        assert_eq!(Params::new(1, 0, 0, 0.5), Err(ReserveError::Width));
        assert_eq!(Params::new(1, 1, max + 1, 0.5), Err(ReserveError::Depth));
        for decay in [0.0, -0.1, 1.0000000000000002, f64::NAN, f64::INFINITY] {
            assert_eq!(Params::new(1, 1, 1, decay), Err(ReserveError::Decay));
        }
        let p = Params::with_defaults(10).unwrap();
        assert_eq!((p.k(), p.width(), p.depth(), p.decay()), (10, 8, 7, 0.9));
    }

    #[test]
    fn increments() {
        assert_eq!(increment(0), Some(0));
        assert_eq!(increment(100_000), Some(100_000));
        assert_eq!(increment(100_001), None);
        assert_eq!(increment(-1), None);
    }
}
