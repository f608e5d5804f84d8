//! What one stored filter adds to the module's totals (its `INFO` section): every field is
//! read from fields the filter keeps, in O(sub-filters), so taking it around each write costs
//! next to nothing.

/// One filter's share of the totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Footprint {
    /// Bytes as `MEMORY USAGE` counts them.
    pub bytes: u64,
    /// Sub-filters.
    pub filters: u64,
    /// Items: `BF.CARD`; for a Cuckoo filter, items inserted minus items deleted.
    pub items: u64,
    /// Items the sub-filters are sized for: `BF.INFO Capacity`; for a Cuckoo filter, its
    /// slots (buckets × bucket size, over every sub-filter).
    pub capacity: u64,
    /// Deletes since the last compaction (Cuckoo filters; Bloom filters have none).
    pub deletes: u64,
}
