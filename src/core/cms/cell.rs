//! The width of a sketch's counters (`CELL_SIZE`, RedisBloom 8.12): 1, 2, 4 or 8 bytes, each
//! cell little-endian, with the range RedisBloom's `CMS_CELL_MAX` gives it (`src/cms.h`).

/// Bytes per counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellSize {
    /// Counters of 0 to 255.
    One,
    /// Counters of 0 to 65,535.
    Two,
    /// Counters of 0 to 4,294,967,295: RedisBloom's only size before 8.12.
    Four,
    /// Counters of 0 to 2^63 − 1.
    Eight,
}

impl CellSize {
    /// Without `CELL_SIZE`, and in every file written before RDB encoding 1.
    pub const DEFAULT: CellSize = CellSize::Four;

    /// The cell size of `bytes`, if it is one.
    pub fn new(bytes: i64) -> Option<CellSize> {
        match bytes {
            1 => Some(CellSize::One),
            2 => Some(CellSize::Two),
            4 => Some(CellSize::Four),
            8 => Some(CellSize::Eight),
            _ => None,
        }
    }

    /// Bytes per counter.
    pub fn bytes(self) -> u64 {
        match self {
            CellSize::One => 1,
            CellSize::Two => 2,
            CellSize::Four => 4,
            CellSize::Eight => 8,
        }
    }

    /// A counter's largest value: every value of the cell, but at most `i64::MAX`, which
    /// RedisBloom's signed arithmetic keeps its eight-byte counters to.
    pub fn max(self) -> u64 {
        match self {
            CellSize::Eight => i64::MAX as u64,
            narrower => (1 << (8 * narrower.bytes())) - 1,
        }
    }
}

/// The value of a cell of `N` bytes.
#[inline]
pub(super) fn load_cell<const N: usize>(bytes: &[u8; N]) -> u64 {
    let mut word = [0; 8];
    if let Some(low) = word.get_mut(..N) {
        low.copy_from_slice(bytes);
    }
    u64::from_le_bytes(word)
}

/// Writes `value`, which a cell of `N` bytes holds, into one.
#[inline]
pub(super) fn store_cell<const N: usize>(bytes: &mut [u8; N], value: u64) {
    if let Some(low) = value.to_le_bytes().get(..N) {
        bytes.copy_from_slice(low);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ranges_are_redisbloom_s() {
        let all = [1, 2, 4, 8].map(|n| CellSize::new(n).unwrap());
        assert_eq!(all.map(CellSize::bytes), [1, 2, 4, 8]);
        assert_eq!(
            all.map(CellSize::max),
            [255, 65_535, 4_294_967_295, 9_223_372_036_854_775_807]
        );
        for refused in [0, 3, 5, 6, 7, 9, 16, -1, -4] {
            assert_eq!(CellSize::new(refused), None);
        }
    }

    #[test]
    fn cells_are_little_endian() {
        let mut two = [0u8; 2];
        store_cell(&mut two, 0x1234);
        assert_eq!(two, [0x34, 0x12]);
        assert_eq!(load_cell(&two), 0x1234);
        let mut eight = [0u8; 8];
        store_cell(&mut eight, i64::MAX as u64);
        assert_eq!(load_cell(&eight), i64::MAX as u64);
    }
}
