//! The scalable Bloom filter (Almeida et al.), as RedisBloom's `sb.c`: a chain of
//! sub-filters where each new one is `growth` times larger and twice as strict, so the
//! compound false-positive rate stays under the requested one.

use super::blocked::Blocked;
use super::filter::{Added, Link};
use super::shape::Shape;
use super::sizing::{options, Layout};
use crate::core::hash::{HashKind, HashPair};
use crate::core::relocate::{Mover, Relocate};
use crate::core::Memory;
use crate::core::{try_vec, Error};

mod batch;
mod merge;

pub use merge::MergeError;

/// Whether saved chain fields and its links (shape and item count each) describe a chain
/// [`Chain::from_links`] accepts: at least one link, each of the chain's layout, their items
/// adding up to `items`, and only known option bits. Decoders check it before they allocate.
pub fn is_consistent(
    items: u64,
    options: u32,
    links: impl IntoIterator<Item = (Shape, u64)>,
) -> bool {
    let fast = options & options::FAST != 0;
    let mut count = 0usize;
    let mut total = Some(0u64);
    for (shape, link_items) in links {
        if matches!(shape, Shape::Blocked(_)) != fast {
            return false;
        }
        count += 1;
        total = total.and_then(|sum| sum.checked_add(link_items));
    }
    count > 0 && options & !options::KNOWN == 0 && total == Some(items)
}

/// Each new sub-filter's error rate is the previous one's times this (`ERROR_TIGHTENING_RATIO`).
const TIGHTENING: f64 = 0.5;

/// RedisBloom's `sizeof(SBChain)` and `sizeof(SBLink)`: `MEMORY USAGE` and `BF.INFO Size` count
/// them, so the figures match RedisBloom's to the byte.
const CHAIN_OVERHEAD: u64 = 32;
const LINK_OVERHEAD: u64 = 64;

/// A scalable Bloom filter: the value stored under a key.
///
/// Invariants (checked by every constructor): at least one link; every link's shape is
/// valid and of the chain's layout; `items` is the sum of the links' items; `options` holds
/// only known bits.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    links: Vec<Link>,
    items: u64,
    options: u32,
    growth: u32,
}

/// How a new filter is to be built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Items the first sub-filter holds.
    pub capacity: u64,
    /// The false-positive rate the whole chain keeps to.
    pub error_rate: f64,
    /// How much larger each new sub-filter is (stored even when non-scaling, as RedisBloom).
    pub expansion: u32,
    /// Never grow: refuse items once full.
    pub nonscaling: bool,
    /// How sub-filters lay out their bits.
    pub layout: LayoutKind,
}

/// The two layouts a filter can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayoutKind {
    /// RedisBloom's, bit-exact: the default, and the only one RedisBloom can read.
    Classic,
    /// Cache-line-blocked with xxh3: one memory access per item per sub-filter.
    Fast,
}

impl Relocate for Chain {
    fn relocate(&mut self, mover: &mut impl Mover) {
        self.links.relocate(mover);
    }
}

impl Chain {
    /// A new, empty filter, its bits from `memory`.
    pub fn new(params: Params, memory: &Memory) -> Result<Chain, Error> {
        let mut opts = options::DEFAULT;
        let mut first_error = params.error_rate * TIGHTENING;
        if params.nonscaling {
            opts |= options::NO_SCALING;
            first_error = params.error_rate;
        }
        if params.layout == LayoutKind::Fast {
            opts |= options::FAST;
        }
        let shape = shape_for(opts, params.capacity, first_error)?;
        memory.check(memory_usage(1, shape.bytes()).ok_or(Error::OutOfMemory)?)?;
        let first = Link::new(shape, memory)?;
        Ok(Chain {
            links: vec![first],
            items: 0,
            options: opts,
            growth: params.expansion,
        })
    }

    /// Reassembles a saved filter, enforcing the invariants (RedisBloom's `SB_ValidateIntegrity`).
    pub fn from_links(
        items: u64,
        options: u32,
        growth: u32,
        links: Vec<Link>,
    ) -> Result<Chain, Error> {
        let saved = links.iter().map(|l| (l.shape(), l.items()));
        if !is_consistent(items, options, saved) {
            return Err(Error::BadEncoding);
        }
        Ok(Chain {
            links,
            items,
            options,
            growth,
        })
    }

    /// A deep copy (for COPY), its bits from `memory` and written only where this one's were
    /// (in time proportional to the data, not the reservation), or `OutOfMemory` instead of
    /// aborting the server. The copy has this filter's size, which was checked when it was
    /// made.
    pub fn try_clone(&self, memory: &Memory) -> Result<Chain, Error> {
        let mut links = try_vec(self.links.len())?;
        for link in &self.links {
            links.push(link.try_clone(memory)?);
        }
        Ok(Chain {
            links,
            items: self.items,
            options: self.options,
            growth: self.growth,
        })
    }

    /// Adds `item`; true when it was not there before (its bits were not all set).
    ///
    /// Like RedisBloom, every sub-filter is checked first, and only an item found nowhere
    /// is counted and written into the newest sub-filter, growing the chain (with bits from
    /// `memory`) when it is full.
    pub fn add(&mut self, item: &[u8], memory: &Memory) -> Result<bool, Error> {
        self.add_hashed(self.hash(item), memory)
    }

    /// [`Chain::add`] of a hashed item.
    ///
    /// RedisBloom checks the newest sub-filter and later sets the same bits in it, computing
    /// each position twice; here the newest sub-filter's positions are found once, checked,
    /// and — when no older sub-filter holds the item either — set ([`Link::add_unless`]). The
    /// outcome is the same: the same sub-filters are checked in the same order before
    /// anything is written.
    pub fn add_hashed(&mut self, hash: HashPair, memory: &Memory) -> Result<bool, Error> {
        let (newest, older) = self.links.split_last_mut().ok_or(Error::CannotGrow)?;
        let may_set = !newest.is_full();
        let elsewhere = || older.iter().rev().any(|link| link.contains(hash));
        let added = match newest.add_unless(hash, elsewhere, may_set) {
            Added::Present => return Ok(false),
            Added::Set(added) => added,
            Added::Absent if self.is_nonscaling() => return Err(Error::Full),
            Added::Absent => {
                self.grow(memory)?;
                let grown = self.links.last_mut().ok_or(Error::CannotGrow)?;
                grown.insert(hash)
            }
        };
        if added {
            self.items += 1;
        }
        Ok(added)
    }

    /// True when `item` may have been added (no false negatives).
    pub fn contains(&self, item: &[u8]) -> bool {
        self.contains_hashed(self.hash(item))
    }

    /// [`Chain::contains`] of a hashed item: newest sub-filter first, as it is the largest,
    /// so the likeliest to hold a member.
    pub fn contains_hashed(&self, hash: HashPair) -> bool {
        self.links.iter().rev().any(|link| link.contains(hash))
    }

    /// Whether adding `more` items could meet a full non-scaling filter (`Error::Full`).
    pub fn may_fill(&self, more: u64) -> bool {
        self.is_nonscaling()
            && self
                .links
                .last()
                .is_none_or(|newest| newest.items().saturating_add(more) > newest.shape().entries())
    }

    /// Items added (RedisBloom's `size`: `BF.CARD`).
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Items all sub-filters are sized for (`BF.INFO Capacity`).
    pub fn capacity(&self) -> u64 {
        self.links
            .iter()
            .fold(0u64, |sum, l| sum.saturating_add(l.shape().entries()))
    }

    /// Bytes this value holds, counted as RedisBloom counts them (`BF.INFO Size`, `MEMORY USAGE`).
    pub fn memory_usage(&self) -> u64 {
        let bytes = self.links.iter().map(|l| l.shape().bytes()).sum();
        memory_usage(self.links.len() as u64, bytes).unwrap_or(u64::MAX)
    }

    /// The stored option bits.
    pub fn options(&self) -> u32 {
        self.options
    }

    /// The expansion factor.
    pub fn growth(&self) -> u32 {
        self.growth
    }

    /// True for filters that never grow.
    pub fn is_nonscaling(&self) -> bool {
        self.options & options::NO_SCALING != 0
    }

    /// Its layout.
    pub fn layout(&self) -> LayoutKind {
        if self.options & options::FAST != 0 {
            LayoutKind::Fast
        } else {
            LayoutKind::Classic
        }
    }

    /// The hash family its items are hashed with.
    pub fn hash_kind(&self) -> HashKind {
        if self.options & options::FAST != 0 {
            HashKind::Xxh3
        } else if self.options & options::FORCE64 != 0 {
            HashKind::Murmur64
        } else {
            HashKind::Murmur32
        }
    }

    /// The sub-filters, oldest first.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The sub-filters, oldest first, for loading SCANDUMP chunks.
    pub fn links_mut(&mut self) -> &mut [Link] {
        &mut self.links
    }

    fn hash(&self, item: &[u8]) -> HashPair {
        HashPair::of(item, self.hash_kind())
    }

    /// Appends a sub-filter `growth` times larger and twice as strict: `CannotGrow` when none
    /// can be sized or allocated, `OverLimit` past the per-filter limit.
    fn grow(&mut self, memory: &Memory) -> Result<(), Error> {
        let last = self.links.last().ok_or(Error::CannotGrow)?.shape();
        let entries = last
            .entries()
            .checked_mul(u64::from(self.growth))
            .ok_or(Error::CannotGrow)?;
        let shape = shape_for(self.options, entries, last.error() * TIGHTENING)
            .map_err(|_| Error::CannotGrow)?;
        let grown = memory_usage(1, shape.bytes())
            .and_then(|link| link.checked_add(self.memory_usage()))
            .ok_or(Error::CannotGrow)?;
        match memory.check(grown) {
            Err(Error::OverLimit) => return Err(Error::OverLimit),
            Err(_) => return Err(Error::CannotGrow),
            Ok(()) => {}
        }
        let link = Link::new(shape, memory).map_err(|_| Error::CannotGrow)?;
        self.links.try_reserve(1).map_err(|_| Error::CannotGrow)?;
        self.links.push(link);
        Ok(())
    }
}

/// What `MEMORY USAGE` counts for a chain of `links` sub-filters holding `bytes` of bits (the
/// chain's bookkeeping counted as RedisBloom's structs); `None` on overflow.
pub fn memory_usage(links: u64, bytes: u64) -> Option<u64> {
    LINK_OVERHEAD
        .checked_mul(links)?
        .checked_add(CHAIN_OVERHEAD)?
        .checked_add(bytes)
}

/// The shape of a new sub-filter of a chain with `options`.
fn shape_for(options: u32, entries: u64, error: f64) -> Result<Shape, Error> {
    if options & options::FAST != 0 {
        Ok(Shape::Blocked(Blocked::new(entries, error)?))
    } else {
        Ok(Shape::Classic(Layout::new(entries, error, options)?))
    }
}

/// The encoding tests' fixture: a scaling filter (error 0.01, expansion 2) of `capacity`,
/// holding the items 0, 1, … `items` − 1 (big-endian bytes).
#[cfg(test)]
pub fn scaling_test_chain(capacity: u64, items: u32, layout: LayoutKind) -> Chain {
    let params = Params {
        capacity,
        error_rate: 0.01,
        expansion: 2,
        nonscaling: false,
        layout,
    };
    let mut chain = Chain::new(params, &crate::core::EAGER).unwrap();
    for i in 0..items {
        chain.add(&i.to_be_bytes(), &crate::core::EAGER).unwrap();
    }
    chain
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bf::{assert_false_positive_rate_near, false_positive_rate};
    use crate::core::testing::eager_limited;
    use crate::core::EAGER;

    /// A classic filter's parameters.
    pub(super) fn params(
        capacity: u64,
        error_rate: f64,
        expansion: u32,
        nonscaling: bool,
    ) -> Params {
        Params {
            capacity,
            error_rate,
            expansion,
            nonscaling,
            layout: LayoutKind::Classic,
        }
    }

    #[test]
    fn default_auto_created_filter() {
        let chain = Chain::new(params(100, 0.01, 2, false), &EAGER).unwrap();
        assert_eq!(chain.options(), 5);
        assert_eq!(chain.memory_usage(), 240);
        assert_eq!(chain.capacity(), 100);
    }

    #[test]
    fn nonscaling_filter_reports_full_after_capacity() {
        // BF.INSERT … CAPACITY 3 NONSCALING: 64 bits, k = 7, Size 104 (§3.3).
        let mut chain = Chain::new(params(3, 0.01, 2, true), &EAGER).unwrap();
        assert_eq!((chain.options(), chain.memory_usage()), (13, 104));
        let mut added = 0;
        let mut full = false;
        for i in 0..100 {
            match chain.add(format!("x{i}").as_bytes(), &EAGER) {
                Ok(true) => added += 1,
                Ok(false) => {}
                Err(e) => {
                    assert_eq!(e, Error::Full);
                    full = true;
                    break;
                }
            }
        }
        assert!(full);
        assert_eq!(added, 3);
        assert_eq!(chain.items(), 3);
    }

    #[test]
    fn scaling_grows_by_expansion_and_halves_error() {
        let mut chain = Chain::new(params(4, 0.01, 3, false), &EAGER).unwrap();
        for i in 0..200u32 {
            chain.add(&i.to_le_bytes(), &EAGER).unwrap();
        }
        let links = chain.links();
        assert!(links.len() >= 3);
        for pair in links.windows(2) {
            let (old, new) = (pair[0].shape(), pair[1].shape());
            assert_eq!(new.entries(), old.entries() * 3);
            assert_eq!(new.error(), old.error() * 0.5);
        }
        assert_eq!(chain.items(), links.iter().map(Link::items).sum::<u64>());
        for i in 0..200u32 {
            assert!(chain.contains(&i.to_le_bytes()), "no false negatives");
        }
    }

    #[test]
    fn false_positive_rate_of_a_full_filter_is_within_ten_percent() {
        for error_rate in [0.01, 0.001] {
            let capacity = 100_000u64;
            let mut chain = Chain::new(params(capacity, error_rate, 2, true), &EAGER).unwrap();
            for i in 0..capacity {
                chain.add(format!("member:{i}").as_bytes(), &EAGER).unwrap();
            }
            assert_false_positive_rate_near(error_rate, 1_000_000, |item| chain.contains(item));
        }
    }

    #[test]
    fn the_per_filter_limit_refuses_creation_and_growth() {
        let small = params(100, 0.01, 2, false);
        let fresh = Chain::new(small, &EAGER).unwrap().memory_usage();
        let tight = eager_limited(fresh - 1);
        assert_eq!(Chain::new(small, &tight), Err(Error::OverLimit));
        let exact = eager_limited(fresh);
        let mut chain = Chain::new(small, &exact).unwrap();
        let refused = (0..1000u32)
            .map(|i| chain.add(&i.to_le_bytes(), &exact))
            .find(Result::is_err);
        assert_eq!(refused, Some(Err(Error::OverLimit)));
        assert_eq!(chain.links().len(), 1, "nothing was allocated");
    }

    #[test]
    fn growth_zero_cannot_grow() {
        let mut chain = Chain::new(params(1, 0.01, 0, false), &EAGER).unwrap();
        chain.add(b"a", &EAGER).unwrap();
        assert_eq!(chain.add(b"b", &EAGER), Err(Error::CannotGrow));
    }

    #[test]
    fn from_links_enforces_invariants() {
        let chain = Chain::new(params(10, 0.01, 2, false), &EAGER).unwrap();
        let links = chain.links().to_vec();
        assert!(Chain::from_links(0, 5, 2, links.clone()).is_ok());
        assert_eq!(
            Chain::from_links(1, 5, 2, links.clone()),
            Err(Error::BadEncoding)
        );
        assert_eq!(
            Chain::from_links(0, 16 | 5, 2, links),
            Err(Error::BadEncoding)
        );
        assert_eq!(Chain::from_links(0, 5, 2, vec![]), Err(Error::BadEncoding));
    }

    #[test]
    fn fast_chains_scale_and_keep_the_compound_rate() {
        let fast = Params {
            layout: LayoutKind::Fast,
            ..params(1000, 0.01, 2, false)
        };
        let mut chain = Chain::new(fast, &EAGER).unwrap();
        assert_eq!(
            (chain.layout(), chain.hash_kind()),
            (LayoutKind::Fast, HashKind::Xxh3)
        );
        for i in 0..30_000u32 {
            chain.add(format!("member:{i}").as_bytes(), &EAGER).unwrap();
        }
        assert!(chain.links().len() >= 5, "{} links", chain.links().len());
        assert!(chain
            .links()
            .iter()
            .all(|l| matches!(l.shape(), Shape::Blocked(_))));
        assert!((0..30_000u32).all(|i| chain.contains(format!("member:{i}").as_bytes())));
        let rate = false_positive_rate(200_000, |item| chain.contains(item));
        assert!(rate <= 0.01, "false positive rate {rate}");
    }

    #[test]
    fn links_must_match_the_layout_bit() {
        let fast = Params {
            layout: LayoutKind::Fast,
            ..params(10, 0.01, 2, false)
        };
        let chain = Chain::new(fast, &EAGER).unwrap();
        let links = chain.links().to_vec();
        assert!(Chain::from_links(0, chain.options(), 2, links.clone()).is_ok());
        assert_eq!(
            Chain::from_links(0, options::DEFAULT, 2, links),
            Err(Error::BadEncoding)
        );
    }

    /// Active defragmentation moves every block of a chain and changes nothing: the links'
    /// vector, then each link's bytes and marks (a blocked link: its segments' vector, then
    /// each segment's).
    #[test]
    fn relocation_moves_every_block_and_keeps_the_chain() {
        use crate::core::relocate::tests::relocates_unchanged;
        let classic = scaling_test_chain(100, 1000, LayoutKind::Classic);
        let links = classic.links().len();
        assert!(links > 2);
        let copy = classic.try_clone(&EAGER).unwrap();
        assert_eq!(relocates_unchanged(classic, &copy), 1 + 2 * links);
        let blocked = scaling_test_chain(100, 1000, LayoutKind::Fast);
        let links = blocked.links().len();
        let copy = blocked.try_clone(&EAGER).unwrap();
        assert_eq!(relocates_unchanged(blocked, &copy), 1 + 3 * links);
    }
}
