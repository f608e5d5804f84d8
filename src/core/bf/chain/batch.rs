//! Adds and lookups of many items (BF.MADD, BF.MEXISTS, BF.INSERT): hashed a batch at a time
//! (`core::batch`), and the bytes they will touch read ahead before any of them is added or
//! checked. Each item still sees every earlier one, exactly as one-item calls would.

use super::Chain;
use crate::core::batch::in_batches;
use crate::core::hash::{HashKind, HashPair};
use crate::core::{Error, Memory};

/// How many items batch operations hash and read ahead at a time: enough for the reads to
/// overlap, few enough for the hashes to stay on the stack.
const BATCH: usize = 32;

/// Lookups read a sub-filter this large ahead at every probe, not only the first: a member
/// misses the caches at each of its k probes there, and reading them all ahead overlaps those
/// misses across the batch, where a non-member's extra reads cost little beside them. Smaller
/// sub-filters mostly stay in the caches, where the extra reads are only extra work.
/// - Measured with reads of the bytes, on a ~1 GiB filter (half members in batches of 100, huge
///   pages, a noisy 2-vCPU VM): the core alone took 258 ns an item at best over five runs
///   against 282 with first-probe reads. `BF.MEXISTS` ×100 in-command medians were 0.60–0.79×
///   RedisBloom's over four bench runs against 0.72–0.79× over three. On 12 MiB, reading every
///   probe was slower than the first alone, so the bound was 64 MiB.
/// - With the prefetch instruction (`batch::read_ahead`) every probe of the bench's 12 MiB
///   filter took `BF.MEXISTS` ×100 to 0.75 of the time of first-probe reads (bench/README.md,
///   "Reading ahead with the prefetch instruction"), hence 4 MiB: a few times the L2 of the
///   machines measured. Sizes between 1 and 12 MiB were not measured.
const DEEP_READ_AHEAD: u64 = 4 << 20;

impl Chain {
    /// Adds items in order, calling `each` with every outcome until it returns false.
    /// Items are hashed a batch at a time and the bytes they will touch are read ahead
    /// (`Chain::read_ahead`) before the batch is added; each add then sees every earlier
    /// one, exactly as separate [`Chain::add`] calls would.
    pub fn add_each<'a>(
        &mut self,
        items: impl IntoIterator<Item = &'a [u8]>,
        memory: &Memory,
        mut each: impl FnMut(Result<bool, Error>) -> bool,
    ) {
        hashed_batches(self.hash_kind(), items, |hashes| {
            self.read_ahead(hashes, true);
            hashes
                .iter()
                .all(|&hash| each(self.add_hashed(hash, memory)))
        });
    }

    /// [`Chain::contains`] of every item in order, handing each answer to `found`; items are
    /// hashed and read ahead a batch at a time, as in [`Chain::add_each`].
    pub fn contains_each<'a>(
        &self,
        items: impl IntoIterator<Item = &'a [u8]>,
        mut found: impl FnMut(bool),
    ) {
        hashed_batches(self.hash_kind(), items, |hashes| {
            self.read_ahead(hashes, false);
            hashes
                .iter()
                .for_each(|&hash| found(self.contains_hashed(hash)));
            true
        });
    }

    /// Reads the bytes a batch of items probes before any of them is checked: the reads do
    /// not depend on each other, so on filters larger than the caches their memory latencies
    /// overlap instead of adding up. The newest sub-filter is read at every probe when the
    /// items will be written there (`adding`), and for lookups every sub-filter of
    /// `DEEP_READ_AHEAD` bytes or more; any other at the first.
    fn read_ahead(&self, hashes: &[HashPair], adding: bool) {
        for (i, link) in self.links.iter().rev().enumerate() {
            let every_probe = if adding {
                i == 0
            } else {
                link.shape().bytes() >= DEEP_READ_AHEAD
            };
            link.read_ahead(hashes, every_probe);
        }
    }
}

/// The items' hashes under `kind`, handed to `each` a batch at a time ([`in_batches`]). The
/// kind is copied out of the chain first, so that `each` may borrow it mutably.
fn hashed_batches<'a>(
    kind: HashKind,
    items: impl IntoIterator<Item = &'a [u8]>,
    each: impl FnMut(&[HashPair]) -> bool,
) {
    in_batches::<_, BATCH>(items, |item| HashPair::of(item, kind), each);
}

#[cfg(test)]
mod tests {
    use super::super::tests::params;
    use super::*;
    use crate::core::bf::chain::{LayoutKind, Params};
    use crate::core::EAGER;

    #[test]
    fn batches_match_one_item_at_a_time() {
        // Duplicates inside a batch, growth in the middle of one, and a non-scaling filter
        // filling up: add_each must give what add gives, item after item.
        let items: Vec<Vec<u8>> = (0..500u32)
            .map(|i| format!("item:{}", (i * 7919) % 230).into_bytes())
            .collect();
        let layouts = [LayoutKind::Classic, LayoutKind::Fast];
        for (layout, nonscaling) in layouts.iter().flat_map(|&l| [(l, false), (l, true)]) {
            let p = Params {
                layout,
                ..params(40, 0.01, 2, nonscaling)
            };
            let mut one_by_one = Chain::new(p, &EAGER).unwrap();
            let expected: Vec<_> = items
                .iter()
                .map(|item| one_by_one.add(item, &EAGER))
                .collect();
            let mut batched = Chain::new(p, &EAGER).unwrap();
            let mut got = Vec::new();
            batched.add_each(items.iter().map(Vec::as_slice), &EAGER, |outcome| {
                got.push(outcome);
                true
            });
            assert_eq!(got, expected, "{layout:?}, nonscaling {nonscaling}");
            assert_eq!(batched, one_by_one);
            let probes: Vec<Vec<u8>> = (0..300u32)
                .map(|i| format!("item:{i}").into_bytes())
                .collect();
            let mut found = Vec::new();
            batched.contains_each(probes.iter().map(Vec::as_slice), |f| found.push(f));
            let expected: Vec<bool> = probes.iter().map(|p| batched.contains(p)).collect();
            assert_eq!(found, expected);
        }
    }

    #[test]
    fn add_each_stops_when_told() {
        let mut chain = Chain::new(params(3, 0.01, 2, true), &EAGER).unwrap();
        let items: Vec<Vec<u8>> = (0..100u32).map(|i| i.to_le_bytes().to_vec()).collect();
        assert!(chain.may_fill(100) && !chain.may_fill(3));
        let mut outcomes = Vec::new();
        chain.add_each(items.iter().map(Vec::as_slice), &EAGER, |outcome| {
            outcomes.push(outcome);
            outcome != Err(Error::Full)
        });
        assert_eq!(outcomes.last(), Some(&Err(Error::Full)));
        assert_eq!(outcomes.iter().filter(|o| **o == Ok(true)).count(), 3);
    }
}
