//! One sub-filter ("link" of the chain): a bit array and the rule that places an item's bits.
//!
//! Two shapes exist. The classic one is RedisBloom's, bit for bit: k probes `(a + i·b) mod m`
//! over the whole array, bits numbered LSB-first within each byte (RedisBloom's
//! `buf[x >> 3] & (1 << (x % 8))`), so the raw bytes are the SCANDUMP and
//! RDB bytes. The blocked one is the fast layout (see `blocked`).
//!
//! The bytes are [`Sparse`]: each add marks the 64 KiB block it writes (a classic add when it
//! sets the first bit of a byte), so COPY, DEBUG DIGEST and SCANDUMP of a huge filter holding a
//! few items visit a few blocks.

use super::blocked::{Blocked, BLOCK_BYTES};
use super::estimate::{estimate_spread, estimated_items};
use super::probes::ProbeRule;
use super::shape::Shape;
use super::sizing::Layout;
use crate::core::batch;
use crate::core::bits::is_set;
use crate::core::hash::HashPair;
use crate::core::relocate::{Mover, Relocate};
use crate::core::sparse::Sparse;
use crate::core::{Error, Memory};

/// One sub-filter: its bits in their shape, and how many items were added to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    bits: Bits,
    /// Items added to this link (adds that set at least one new bit).
    items: u64,
}

/// A sub-filter's shape owning the bytes it addresses, so that the two always agree. The
/// classic shape keeps its array whole, as RedisBloom keeps and saves it; the blocked one in
/// 16 MiB parts ("segments") whose blocks never straddle two, so that each is one RDB string
/// that loads into place without a copy.
#[derive(Debug, Clone, PartialEq)]
enum Bits {
    Classic {
        layout: Layout,
        /// How probes are computed, prepared once.
        rule: ProbeRule,
        bytes: Sparse,
    },
    Blocked {
        blocked: Blocked,
        segments: Vec<Sparse>,
    },
}

/// Classic adds with at most this many probes keep the positions they checked to set them
/// ([`Link::add_unless`]); filters with more (only very strict ones) compute them again.
const SAVED_PROBES: usize = 32;

/// What [`Link::add_unless`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// Every bit was set already, here or (as `elsewhere` said) in an older sub-filter.
    Present,
    /// Absent, and not written (the caller said not to).
    Absent,
    /// Written; true when at least one bit was new.
    Set(bool),
}

impl Relocate for Link {
    fn relocate(&mut self, mover: &mut impl Mover) {
        match &mut self.bits {
            Bits::Classic { bytes, .. } => bytes.relocate(mover),
            Bits::Blocked { segments, .. } => segments.relocate(mover),
        }
    }
}

impl Link {
    /// A new, empty sub-filter, its bytes from `memory` (the caller has checked the filter's
    /// size against it).
    pub fn new(shape: Shape, memory: &Memory) -> Result<Link, Error> {
        let parts = shape
            .segment_lengths()
            .map(|len| Sparse::zeroed(len, memory))
            .collect::<Result<Vec<_>, _>>()?;
        Link::assemble(shape, parts, 0)
    }

    /// Rebuilds a saved sub-filter from its bytes, in the parts [`Link::segments`] gives, and
    /// its shape as [`StoredShape`] accepted it. The parts must have exactly the shape's sizes.
    ///
    /// [`StoredShape`]: super::shape::StoredShape
    pub fn from_saved(shape: Shape, parts: Vec<Vec<u8>>, items: u64) -> Result<Link, Error> {
        let parts = parts
            .into_iter()
            .map(Sparse::loaded)
            .collect::<Result<Vec<_>, _>>()?;
        Link::assemble(shape, parts, items)
    }

    /// A saved sub-filter whose bits arrive later (SCANDUMP header, then chunks), its shape as
    /// [`StoredShape`] accepted it.
    ///
    /// [`StoredShape`]: super::shape::StoredShape
    pub fn zeroed_from_saved(shape: Shape, items: u64, memory: &Memory) -> Result<Link, Error> {
        Ok(Link {
            items,
            ..Link::new(shape, memory)?
        })
    }

    fn assemble(shape: Shape, mut parts: Vec<Sparse>, items: u64) -> Result<Link, Error> {
        let lengths: Vec<u64> = shape.segment_lengths().collect();
        let sizes_match = parts.len() == lengths.len()
            && parts
                .iter()
                .zip(&lengths)
                .all(|(part, &len)| part.len() as u64 == len);
        if !sizes_match {
            return Err(Error::BadEncoding);
        }
        let bits = match shape {
            Shape::Classic(layout) => Bits::Classic {
                layout,
                rule: ProbeRule::new(layout.modulus(), layout.hashes),
                bytes: parts.pop().ok_or(Error::BadEncoding)?,
            },
            Shape::Blocked(blocked) => Bits::Blocked {
                blocked,
                segments: parts,
            },
        };
        Ok(Link { bits, items })
    }

    /// A deep copy, its bytes from `memory` and written only where this one's were, or
    /// `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self, memory: &Memory) -> Result<Link, Error> {
        let parts = self
            .arrays()
            .map(|array| array.try_clone(memory))
            .collect::<Result<Vec<_>, _>>()?;
        Link::assemble(self.shape(), parts, self.items)
    }

    /// Its shape.
    #[inline]
    pub fn shape(&self) -> Shape {
        match &self.bits {
            Bits::Classic { layout, .. } => Shape::Classic(*layout),
            Bits::Blocked { blocked, .. } => Shape::Blocked(*blocked),
        }
    }

    /// Items added to it.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Its bytes, in order, as saved to RDB (one string per segment) and SCANDUMP.
    pub fn segments(&self) -> impl Iterator<Item = &[u8]> {
        self.arrays().map(|array| &array[..])
    }

    /// Its bytes as [`Sparse`] arrays, one per segment, in order: for the walks that visit
    /// only what was written (COPY, DEBUG DIGEST, SCANDUMP).
    pub fn arrays(&self) -> impl Iterator<Item = &Sparse> {
        let (whole, parts): (Option<&Sparse>, &[Sparse]) = match &self.bits {
            Bits::Classic { bytes, .. } => (Some(bytes), &[]),
            Bits::Blocked { segments, .. } => (None, segments),
        };
        whole.into_iter().chain(parts)
    }

    /// Its bytes, one array per segment, in order, for loading SCANDUMP chunks.
    pub fn arrays_mut(&mut self) -> impl Iterator<Item = &mut Sparse> {
        let (whole, parts): (Option<&mut Sparse>, &mut [Sparse]) = match &mut self.bits {
            Bits::Classic { bytes, .. } => (Some(bytes), &mut []),
            Bits::Blocked { segments, .. } => (None, segments),
        };
        whole.into_iter().chain(parts)
    }

    /// ORs the bits of `other`, a sub-filter of the same shape, into this one: afterwards it
    /// finds every item either held. Its item count is left to the caller
    /// ([`Link::set_items`]). `BadEncoding`, changing nothing, when the shapes differ.
    pub fn or_from(&mut self, other: &Link) -> Result<(), Error> {
        if self.shape() != other.shape() {
            return Err(Error::BadEncoding);
        }
        for (to, from) in self.arrays_mut().zip(other.arrays()) {
            to.or_from(from).ok_or(Error::BadEncoding)?;
        }
        Ok(())
    }

    /// The items its bits say it holds (Swamidass and Baldi's estimate), and that estimate's spread
    /// at its capacity.
    pub fn estimated_items(&self) -> (u64, f64) {
        let shape = self.shape();
        let set = self.arrays().map(Sparse::count_ones).sum();
        let bits = shape.probed_bits();
        let estimate = estimated_items(bits, set, shape.hashes());
        (
            estimate,
            estimate_spread(bits, shape.entries(), shape.hashes()),
        )
    }

    /// Sets the count of items it holds (a union's estimate).
    pub fn set_items(&mut self, items: u64) {
        self.items = items;
    }

    /// True when it holds as many items as it was sized for.
    pub fn is_full(&self) -> bool {
        self.items >= self.shape().entries()
    }

    /// True when every bit of `hash` is set (a member, or a false positive). Stops at the
    /// first clear bit, as RedisBloom does.
    pub fn contains(&self, hash: HashPair) -> bool {
        match &self.bits {
            Bits::Classic { rule, bytes, .. } => rule.probes(hash).all(|bit| is_set(bytes, bit)),
            Bits::Blocked { blocked, segments } => {
                let (segment, offset) = blocked.locate(hash);
                block_of(segments, segment, offset)
                    .is_some_and(|block| blocked.block_contains(block, hash))
            }
        }
    }

    /// RedisBloom's add, check and write fused for the newest sub-filter: its positions are
    /// computed once, every probed byte is read before any is tested (on a filter larger than
    /// the caches their misses overlap instead of following one another), and when some bit
    /// is clear and `elsewhere` (the older sub-filters) does not hold the item either, the
    /// bits are set from the saved positions — if `may_set`: a full sub-filter is not written.
    pub fn add_unless(
        &mut self,
        hash: HashPair,
        elsewhere: impl FnOnce() -> bool,
        may_set: bool,
    ) -> Added {
        let decide = |present_here: bool| {
            if present_here || elsewhere() {
                Some(Added::Present)
            } else if !may_set {
                Some(Added::Absent)
            } else {
                None
            }
        };
        let any_new = match &mut self.bits {
            Bits::Classic {
                layout,
                rule,
                bytes,
            } if layout.hashes as usize <= SAVED_PROBES => {
                let mut bits = [0usize; SAVED_PROBES];
                let mut all_set = true;
                for (slot, bit) in bits.iter_mut().zip(rule.probes(hash)) {
                    *slot = bit;
                    all_set &= is_set(bytes, bit);
                }
                if let Some(done) = decide(all_set) {
                    return done;
                }
                let probes = bits.get(..layout.hashes as usize).unwrap_or_default();
                bytes.set_bits(probes.iter().copied())
            }
            // Classic filters with more probes than are saved check, then insert.
            Bits::Classic { .. } => {
                if let Some(done) = decide(self.contains(hash)) {
                    return done;
                }
                return Added::Set(self.insert(hash));
            }
            Bits::Blocked { blocked, segments } => {
                let (segment, offset) = blocked.locate(hash);
                let Some(block) = segments
                    .get_mut(segment)
                    .and_then(|p| p.slice_mut(offset, BLOCK_BYTES as usize))
                else {
                    return Added::Absent;
                };
                if let Some(done) = decide(blocked.block_contains(block, hash)) {
                    return done;
                }
                blocked.block_insert(block, hash)
            }
        };
        if any_new {
            self.items += 1;
        }
        Added::Set(any_new)
    }

    /// Reads ahead the bytes the items of `hashes` probe (all of them when `every_probe`, else
    /// the first), before any is checked or set ([`batch::read_ahead`]).
    pub fn read_ahead(&self, hashes: &[HashPair], every_probe: bool) {
        match &self.bits {
            Bits::Classic { rule, bytes, .. } => {
                let probes = if every_probe { usize::MAX } else { 1 };
                let offsets = hashes
                    .iter()
                    .flat_map(|&hash| rule.probes(hash).take(probes).map(|bit| bit >> 3));
                batch::read_ahead(bytes, offsets);
            }
            Bits::Blocked { blocked, segments } => {
                for &hash in hashes {
                    let (segment, offset) = blocked.locate(hash);
                    if let Some(part) = segments.get(segment) {
                        batch::read_ahead(part, [offset]);
                    }
                }
            }
        }
    }

    /// Sets every bit of `hash`; true when at least one bit was new, counting the item.
    pub fn insert(&mut self, hash: HashPair) -> bool {
        let any_new = match &mut self.bits {
            Bits::Classic { rule, bytes, .. } => bytes.set_bits(rule.probes(hash)),
            Bits::Blocked { blocked, segments } => {
                let (segment, offset) = blocked.locate(hash);
                let block = segments
                    .get_mut(segment)
                    .and_then(|p| p.slice_mut(offset, BLOCK_BYTES as usize));
                block.is_some_and(|block| blocked.block_insert(block, hash))
            }
        };
        if any_new {
            self.items += 1;
        }
        any_new
    }
}

/// The 64-byte block at `offset` of segment `segment`.
fn block_of(parts: &[Sparse], segment: usize, offset: usize) -> Option<&[u8]> {
    parts
        .get(segment)?
        .get(offset..offset + BLOCK_BYTES as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bf::sizing::options;
    use crate::core::bf::xorshift;
    use crate::core::hash::HashKind;
    use crate::core::EAGER;

    fn classic(entries: u64, error: f64) -> Shape {
        Shape::Classic(Layout::new(entries, error, options::DEFAULT).unwrap())
    }

    #[test]
    fn item1_sets_the_documented_bits() {
        // RedisBloom's BF.SCANDUMP documentation example (`BF.RESERVE bf 0.1 10`, `BF.ADD bf
        // item1`): 64 bits, k=5 → bytes 01 08 00 80 00 04 20 00.
        let shape = classic(10, 0.05);
        assert_eq!((shape.bytes(), shape.hashes()), (8, 5));
        let mut link = Link::new(shape, &EAGER).unwrap();
        let h = HashPair::of(b"item1", HashKind::Murmur64);
        assert!(!link.contains(h));
        assert!(link.insert(h));
        assert_eq!(
            link.segments().collect::<Vec<_>>(),
            [b"\x01\x08\x00\x80\x00\x04\x20\x00"]
        );
        assert!(link.contains(h));
        assert!(!link.insert(h), "a second insert sets nothing new");
        assert_eq!(link.items(), 1);
    }

    #[test]
    fn fused_add_writes_what_check_then_insert_writes() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let blocked = Shape::Blocked(Blocked::new(2000, 0.01).unwrap());
        // 0.001 at 2^-25 needs more probes than are saved: the recomputing path.
        let strict =
            Shape::Classic(Layout::new(50, 0.001 / (1u64 << 25) as f64, options::DEFAULT).unwrap());
        assert!(strict.hashes() as usize > SAVED_PROBES);
        for shape in [classic(2000, 0.01), classic(300, 0.0001), strict, blocked] {
            let mut inserted = Link::new(shape, &EAGER).unwrap();
            let mut located = Link::new(shape, &EAGER).unwrap();
            for _ in 0..3000 {
                // Some items come back, to take the "already present" path.
                let item = (next() % 2500).to_le_bytes();
                let h = HashPair::of(
                    &item,
                    if matches!(shape, Shape::Blocked(_)) {
                        HashKind::Xxh3
                    } else {
                        HashKind::Murmur64
                    },
                );
                let expected = if inserted.contains(h) {
                    Added::Present
                } else {
                    Added::Set(inserted.insert(h))
                };
                assert_eq!(located.add_unless(h, || false, true), expected);
                let mut untouched = located.clone();
                let refused = untouched.add_unless(h, || false, false);
                assert_eq!(untouched, located, "a refused add writes nothing");
                assert_eq!(refused, Added::Present, "{h:?} was just added");
                assert_eq!(located.contains(h), inserted.contains(h));
            }
            assert_eq!(located, inserted);
        }
    }

    #[test]
    fn saved_data_must_match_the_shape() {
        let shape = classic(10, 0.05);
        let saved = |shape, parts: &[usize]| {
            Link::from_saved(shape, parts.iter().map(|&n| vec![0; n]).collect(), 0)
        };
        assert_eq!(saved(shape, &[7]), Err(Error::BadEncoding));
        assert_eq!(saved(shape, &[8, 8]), Err(Error::BadEncoding));
        assert!(saved(shape, &[8]).is_ok());
        let blocked = Shape::Blocked(Blocked {
            entries: 10,
            error: 0.01,
            hashes: 7,
            blocks: 2,
        });
        assert!(saved(blocked, &[128]).is_ok());
        assert_eq!(saved(blocked, &[64]), Err(Error::BadEncoding));
        assert_eq!(saved(blocked, &[64, 64]), Err(Error::BadEncoding));
    }

    #[test]
    fn impossible_sizes_fail_cleanly() {
        // Bits for 2^62 entries: an exabyte array. black_box: an unused allocation may
        // legally be optimised away as if it had succeeded.
        let result = Link::new(std::hint::black_box(classic(1 << 62, 0.01)), &EAGER);
        assert_eq!(
            std::hint::black_box(&result).as_ref().err(),
            Some(&Error::OutOfMemory)
        );
        let refused = Memory {
            zeroed: |_| None,
            ..EAGER
        };
        assert_eq!(
            Link::new(classic(10, 0.01), &refused).err(),
            Some(Error::OutOfMemory)
        );
    }

    /// The arrays under a union of sub-filters (`Link::or_from`, `Link::estimated_items`).
    #[test]
    fn a_union_of_arrays_marks_what_it_writes_and_counts_every_bit_to_the_last_byte() {
        use crate::core::sparse::BLOCK;
        // 64 blocks and a tail of 5 bytes (not a whole number of words), few of them written.
        let len = 64 * BLOCK + 5;
        let mut left = Sparse::zeroed(len as u64, &EAGER).unwrap();
        let mut right = Sparse::zeroed(len as u64, &EAGER).unwrap();
        left.set_bits([0, 9]);
        right.set_bits([9, 2 * BLOCK * 8 + 3, len * 8 - 1]);
        assert_eq!((left.count_ones(), right.count_ones()), (2, 3));
        left.or_from(&right).unwrap();
        assert_eq!(left.count_ones(), 4);
        let expected: Vec<u8> = left.iter().zip(right.iter()).map(|(a, b)| a | b).collect();
        assert_eq!(&left[..], &expected[..]);
        let runs: Vec<_> = left.marked_runs().collect();
        assert_eq!(runs, [0..BLOCK, 2 * BLOCK..3 * BLOCK, 64 * BLOCK..len]);
        let shorter = Sparse::zeroed(len as u64 - 1, &EAGER).unwrap();
        assert_eq!(left.or_from(&shorter), None);
        assert_eq!(left.count_ones(), 4, "nothing changed");
    }
}
