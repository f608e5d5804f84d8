//! One sub-filter ("link" of the chain): a bit array and the rule that places an item's bits.
//!
//! Two shapes exist. The classic one is RedisBloom's, bit for bit: k probes `(a + i·b) mod m`
//! over the whole array, bits numbered LSB-first within each byte (RedisBloom's
//! `buf[x >> 3] & (1 << (x % 8))`), so the raw bytes are the SCANDUMP and
//! RDB bytes. The blocked one is the fast layout (see `blocked`).

use super::blocked::{Blocked, BLOCK_BYTES};
use super::divisor::Divisor;
use super::sizing::{self, Layout};
use crate::core::hash::HashPair;
use crate::core::{try_copy, Error, Memory};

/// How a sub-filter is sized and where an item's bits go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// RedisBloom's layout.
    Classic(Layout),
    /// The fast, cache-line-blocked layout.
    Blocked(Blocked),
}

impl Shape {
    /// Items it is sized for.
    pub fn entries(&self) -> u64 {
        match self {
            Shape::Classic(l) => l.entries,
            Shape::Blocked(b) => b.entries,
        }
    }

    /// Its own false-positive rate.
    pub fn error(&self) -> f64 {
        match self {
            Shape::Classic(l) => l.error,
            Shape::Blocked(b) => b.error,
        }
    }

    /// Bits set per item.
    pub fn hashes(&self) -> u32 {
        match self {
            Shape::Classic(l) => l.hashes,
            Shape::Blocked(b) => b.hashes,
        }
    }

    /// Bytes of its bit array.
    pub fn bytes(&self) -> u64 {
        match self {
            Shape::Classic(l) => l.bytes(),
            Shape::Blocked(b) => b.bytes(),
        }
    }

    /// RedisBloom's per-link `bpe` and `n2` fields as RDB and SCANDUMP store them; for the
    /// blocked shape, its bits per entry and 0.
    pub fn stored_bpe_and_n2(&self) -> (f64, u8) {
        match self {
            Shape::Classic(l) => (l.bpe, l.n2),
            // In floating point: the bit count of a huge array does not fit 64 bits.
            Shape::Blocked(b) => (b.bytes() as f64 * 8.0 / b.entries as f64, 0),
        }
    }

    /// Whether its bit array is no bigger than its capacity and error rate imply, allowing
    /// for every rounding a writer applies (to whole words, to a power of two, to whole
    /// blocks). A saved header claiming more is inflated — bad data, as RedisBloom answers —
    /// and is refused before anything is allocated for it.
    pub fn is_sized_for_its_capacity(&self) -> bool {
        /// Rounding up to a word or a block adds at most this much to a small filter.
        const ROUNDING_BITS: f64 = 1024.0;
        let needed = match self {
            Shape::Classic(l) => sizing::bits_needed(l.entries, l.error),
            Shape::Blocked(b) => match Blocked::new(b.entries, b.error) {
                Ok(fresh) => fresh.bytes() as f64 * 8.0,
                Err(_) => return false,
            },
        };
        // A power-of-two layout is at most twice what it needs.
        self.bytes() as f64 * 8.0 <= 2.0 * needed + ROUNDING_BITS
    }

    /// Whether a stored shape can be used as it is.
    pub fn is_valid(&self) -> bool {
        match self {
            Shape::Classic(l) => l.is_consistent(),
            Shape::Blocked(b) => b.is_plausible(),
        }
    }
}

/// One sub-filter: its shape, its bits and how many items were added to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    shape: Shape,
    /// How classic probes are computed, prepared once (unused by the blocked shape).
    rule: ProbeRule,
    storage: Storage,
    /// Items added to this link (adds that set at least one new bit).
    items: u64,
}

/// A sub-filter's bytes, in parts ("segments"): one for the classic shape, which RedisBloom
/// keeps and saves whole; 16 MiB ones for the blocked shape, whose blocks never straddle two,
/// so each is one RDB string that loads into place without a copy.
#[derive(Debug, Clone, PartialEq)]
enum Storage {
    Whole(Vec<u8>),
    Segments(Vec<Vec<u8>>),
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

impl Link {
    /// A new, empty sub-filter, its bytes from `memory` (the caller has checked the filter's
    /// size against it).
    pub fn new(shape: Shape, memory: &Memory) -> Result<Link, Error> {
        let parts = segment_lengths(&shape)
            .into_iter()
            .map(|len| memory.array(len))
            .collect::<Result<Vec<_>, _>>()?;
        Link::assemble(shape, parts, 0)
    }

    /// Rebuilds a saved sub-filter from its bytes, in the parts [`Link::segments`] gives.
    /// The parts must have exactly the shape's sizes, and the shape must be usable.
    pub fn from_saved(shape: Shape, parts: Vec<Vec<u8>>, items: u64) -> Result<Link, Error> {
        if !shape.is_valid() {
            return Err(Error::BadEncoding);
        }
        Link::assemble(shape, parts, items)
    }

    /// A saved sub-filter whose bits arrive later (SCANDUMP header, then chunks).
    pub fn zeroed_from_saved(shape: Shape, items: u64, memory: &Memory) -> Result<Link, Error> {
        if !shape.is_valid() {
            return Err(Error::BadEncoding);
        }
        Ok(Link {
            items,
            ..Link::new(shape, memory)?
        })
    }

    fn assemble(shape: Shape, mut parts: Vec<Vec<u8>>, items: u64) -> Result<Link, Error> {
        let lengths = segment_lengths(&shape);
        let sizes_match = parts.len() == lengths.len()
            && parts
                .iter()
                .zip(&lengths)
                .all(|(part, &len)| part.len() as u64 == len);
        if !sizes_match {
            return Err(Error::BadEncoding);
        }
        let (rule, storage) = match shape {
            Shape::Classic(l) => (
                ProbeRule::new(l.modulus(), l.hashes),
                Storage::Whole(parts.pop().unwrap_or_default()),
            ),
            Shape::Blocked(_) => (ProbeRule::new(1, 0), Storage::Segments(parts)),
        };
        Ok(Link {
            shape,
            rule,
            storage,
            items,
        })
    }

    /// A deep copy, or `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self) -> Result<Link, Error> {
        let parts = self
            .segments()
            .map(try_copy)
            .collect::<Result<Vec<_>, _>>()?;
        Link::assemble(self.shape, parts, self.items)
    }

    /// Its shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Items added to it.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Its bytes, in order, as saved to RDB (one string per segment) and SCANDUMP.
    pub fn segments(&self) -> impl Iterator<Item = &[u8]> {
        let (whole, parts): (Option<&[u8]>, &[Vec<u8>]) = match &self.storage {
            Storage::Whole(bytes) => (Some(bytes), &[]),
            Storage::Segments(parts) => (None, parts),
        };
        whole.into_iter().chain(parts.iter().map(Vec::as_slice))
    }

    /// Its bytes, in order, for loading SCANDUMP chunks.
    pub fn segments_mut(&mut self) -> impl Iterator<Item = &mut [u8]> {
        let (whole, parts): (Option<&mut [u8]>, &mut [Vec<u8>]) = match &mut self.storage {
            Storage::Whole(bytes) => (Some(bytes), &mut []),
            Storage::Segments(parts) => (None, parts),
        };
        whole
            .into_iter()
            .chain(parts.iter_mut().map(Vec::as_mut_slice))
    }

    /// True when it holds as many items as it was sized for.
    pub fn is_full(&self) -> bool {
        self.items >= self.shape.entries()
    }

    /// True when every bit of `hash` is set (a member, or a false positive). Stops at the
    /// first clear bit, as RedisBloom does.
    pub fn contains(&self, hash: HashPair) -> bool {
        match (&self.shape, &self.storage) {
            (Shape::Classic(_), Storage::Whole(bytes)) => {
                self.rule.probes(hash).all(|bit| is_set(bytes, bit))
            }
            (Shape::Blocked(b), Storage::Segments(parts)) => {
                let (segment, offset) = b.locate(hash);
                block_of(parts, segment, offset).is_some_and(|block| b.block_contains(block, hash))
            }
            _ => false,
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
        let any_new = match (&self.shape, &mut self.storage) {
            (Shape::Classic(l), Storage::Whole(bytes)) if l.hashes as usize <= SAVED_PROBES => {
                let mut bits = [0usize; SAVED_PROBES];
                let mut all_set = true;
                for (slot, bit) in bits.iter_mut().zip(self.rule.probes(hash)) {
                    *slot = bit;
                    all_set &= is_set(bytes, bit);
                }
                if let Some(done) = decide(all_set) {
                    return done;
                }
                let mut any_new = false;
                for &bit in bits.get(..l.hashes as usize).unwrap_or_default() {
                    any_new |= set_bit(bytes, bit);
                }
                any_new
            }
            (Shape::Blocked(b), Storage::Segments(parts)) => {
                let (segment, offset) = b.locate(hash);
                let Some(block) = parts
                    .get_mut(segment)
                    .and_then(|p| p.get_mut(offset..offset + BLOCK_BYTES as usize))
                else {
                    return Added::Absent;
                };
                if let Some(done) = decide(b.block_contains(block, hash)) {
                    return done;
                }
                b.block_insert(block, hash)
            }
            // Classic filters with more probes than are saved check, then insert.
            _ => {
                if let Some(done) = decide(self.contains(hash)) {
                    return done;
                }
                return Added::Set(self.insert(hash));
            }
        };
        if any_new {
            self.items += 1;
        }
        Added::Set(any_new)
    }

    /// Reads the bytes `hash` probes (all of them when `every_probe`, else the first) and
    /// folds them into one meaningless byte: on a filter larger than the caches, reading a
    /// batch of items ahead this way overlaps their memory latencies (a prefetch in safe code).
    pub fn read_ahead(&self, hash: HashPair, every_probe: bool) -> u8 {
        match (&self.shape, &self.storage) {
            (Shape::Classic(_), Storage::Whole(bytes)) => {
                let probes = self.rule.probes(hash);
                let read = |bit: usize| bytes.get(bit >> 3).copied().unwrap_or(0);
                if every_probe {
                    probes.fold(0, |acc, bit| acc ^ read(bit))
                } else {
                    probes.take(1).fold(0, |acc, bit| acc ^ read(bit))
                }
            }
            (Shape::Blocked(b), Storage::Segments(parts)) => {
                let (segment, offset) = b.locate(hash);
                block_of(parts, segment, offset)
                    .and_then(|block| block.first())
                    .copied()
                    .unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// Sets every bit of `hash`; true when at least one bit was new, counting the item.
    pub fn insert(&mut self, hash: HashPair) -> bool {
        let any_new = match (&self.shape, &mut self.storage) {
            (Shape::Classic(_), Storage::Whole(bytes)) => {
                let mut any_new = false;
                for bit in self.rule.probes(hash) {
                    any_new |= set_bit(bytes, bit);
                }
                any_new
            }
            (Shape::Blocked(b), Storage::Segments(parts)) => {
                let (segment, offset) = b.locate(hash);
                let block = parts
                    .get_mut(segment)
                    .and_then(|p| p.get_mut(offset..offset + BLOCK_BYTES as usize));
                block.is_some_and(|block| b.block_insert(block, hash))
            }
            _ => false,
        };
        if any_new {
            self.items += 1;
        }
        any_new
    }
}

/// The 64-byte block at `offset` of segment `segment`.
fn block_of(parts: &[Vec<u8>], segment: usize, offset: usize) -> Option<&[u8]> {
    parts
        .get(segment)?
        .get(offset..offset + BLOCK_BYTES as usize)
}

/// The sizes of a shape's parts: the whole array, or its 16 MiB segments.
fn segment_lengths(shape: &Shape) -> Vec<u64> {
    match shape {
        Shape::Classic(l) => vec![l.bytes()],
        Shape::Blocked(b) => b.segment_lengths().collect(),
    }
}

/// How a classic sub-filter turns an item's hash into bit positions: RedisBloom's
/// `x = (a + i·b) % m` for i in 0..k, the sum wrapping at 64 bits (`CHECK_ADD_FUNC` in
/// `deps/bloom/bloom.c`; its 32-bit variant computes the same values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ProbeRule {
    modulus: Divisor,
    /// 2⁶⁴ mod m: what a wrap of the 64-bit sum takes off its remainder.
    wrap: u64,
    hashes: u32,
}

impl ProbeRule {
    fn new(modulus: u64, hashes: u32) -> ProbeRule {
        let modulus = Divisor::new(modulus);
        // 2⁶⁴ mod m = ((2⁶⁴ − 1) mod m + 1) mod m.
        let below = modulus.remainder(u64::MAX) + 1;
        let wrap = if below == modulus.divisor() { 0 } else { below };
        ProbeRule {
            modulus,
            wrap,
            hashes,
        }
    }

    /// The bits `hash` probes, in order.
    #[inline]
    fn probes(&self, hash: HashPair) -> Probes {
        let modulus = self.modulus.divisor();
        let step = self.modulus.remainder(hash.b);
        let wrapped_step = if step >= self.wrap {
            step - self.wrap
        } else {
            step + (modulus - self.wrap)
        };
        Probes {
            bit: self.modulus.remainder(hash.a),
            sum: hash.a,
            b: hash.b,
            step,
            wrapped_step,
            modulus,
            left: self.hashes,
        }
    }
}

/// The bit positions of one item: RedisBloom divides once per probe; here each position
/// follows from the previous one by adding `b mod m` — less `2⁶⁴ mod m` when the 64-bit sum
/// `a + i·b` wraps — and taking m off once if that passes m. Two remainders per item then,
/// whatever k is, and the same positions exactly.
#[derive(Debug, Clone, Copy)]
struct Probes {
    /// The next position, `sum mod m`.
    bit: u64,
    /// `a + i·b`, wrapping at 64 bits.
    sum: u64,
    b: u64,
    /// `b mod m`, and the same less `2⁶⁴ mod m`, modulo m.
    step: u64,
    wrapped_step: u64,
    modulus: u64,
    left: u32,
}

impl Iterator for Probes {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let bit = self.bit;
        let (sum, wrapped) = self.sum.overflowing_add(self.b);
        self.sum = sum;
        let step = if wrapped {
            self.wrapped_step
        } else {
            self.step
        };
        // bit, step < m, so the sum is below 2m: one subtraction reduces it (a 64-bit
        // overflow means it is above m too).
        let (next, overflowed) = bit.overflowing_add(step);
        self.bit = if overflowed || next >= self.modulus {
            next.wrapping_sub(self.modulus)
        } else {
            next
        };
        Some(bit as usize)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left as usize, Some(self.left as usize))
    }
}

/// Bit `bit` of a byte array, LSB first within each byte (RedisBloom's
/// `buf[x >> 3] & (1 << (x % 8))`).
#[inline]
fn is_set(bytes: &[u8], bit: usize) -> bool {
    bytes.get(bit >> 3).is_some_and(|b| b & bit_mask(bit) != 0)
}

/// Sets bit `bit`; true when it was clear.
#[inline]
fn set_bit(bytes: &mut [u8], bit: usize) -> bool {
    bytes.get_mut(bit >> 3).is_some_and(|byte| {
        let was_clear = *byte & bit_mask(bit) == 0;
        *byte |= bit_mask(bit);
        was_clear
    })
}

#[inline]
fn bit_mask(bit: usize) -> u8 {
    1 << (bit & 7)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bloom::sizing::options;
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

    /// A xorshift generator, so failures reproduce.
    fn rng(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    #[test]
    fn probes_are_redisbloom_remainders() {
        let mut next = rng(0x2545_f491_4f6c_dd1d);
        let mut moduli = vec![
            1,
            2,
            3,
            64,
            1152,
            1 << 33,
            95_850_560,
            (1 << 63) - 1,
            1 << 63,
            (1 << 63) + 1,
            u64::MAX - 1,
            u64::MAX,
        ];
        moduli.extend((0..300).map(|_| next() >> (next() % 64)).filter(|&m| m > 0));
        for m in moduli {
            let rule = ProbeRule::new(m, 40);
            let mut hashes = vec![
                HashPair { a: 0, b: 0 },
                HashPair {
                    a: u64::MAX,
                    b: u64::MAX,
                },
                HashPair {
                    a: u64::MAX - 3,
                    b: 1,
                },
                HashPair {
                    a: 5,
                    b: u64::MAX - 1,
                },
            ];
            hashes.extend((0..200).map(|_| HashPair {
                a: next(),
                b: next(),
            }));
            for h in hashes {
                let expected: Vec<usize> = (0..40u64)
                    .map(|i| (h.a.wrapping_add(i.wrapping_mul(h.b)) % m) as usize)
                    .collect();
                assert_eq!(
                    rule.probes(h).collect::<Vec<_>>(),
                    expected,
                    "m = {m}, {h:?}"
                );
            }
        }
    }

    #[test]
    fn fused_add_writes_what_check_then_insert_writes() {
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
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
}
