//! A Bloom filter as RDB fields (see `core::rdb`), read and written field for field as
//! RedisBloom's `BFRdbLoad`/`BFRdbSave` (`src/rebloom.c`) do, for the two data types:
//!
//! * `MBbloom--`, encoding version 4 (loads 1–4): per chain `size, nfilters, options,
//!   growth` (options since version 2, growth since 4), per link `entries, error, hashes,
//!   bpe, bits, n2, <bit array>, size`;
//! * `bfblocked` (the fast layout), encoding version 1: per chain the same four fields, per
//!   link `entries, error, hashes, blocks, size`, then the bit array as its 16 MiB segments,
//!   one string each — saving needs no compression buffer of the whole array, and loading
//!   adopts each string as a segment, never copying the bits.
//!
//! Every field is checked before the next is trusted: a link's layout before its bits are
//! read — and the bits announced so far against [`Memory`], so that a payload cannot make the
//! server read more than one value may hold — the chain's invariants before it is returned.

use super::blocked::BLOCK_BYTES;
use super::chain::{self, Chain};
use super::filter::Link;
use super::shape::{Shape, StoredShape};
use crate::core::rdb::{known_version, RdbRead, RdbWrite};
use crate::core::{Error, Memory};

/// The encoding version of `MBbloom--` written, RedisBloom's `BF_MIN_GROWTH_ENC`.
pub const ENCODING_VERSION: i32 = 4;
/// The oldest encoding version loaded. Version 0 sized bits differently and is refused by
/// RedisBloom's own hardened loader too.
const OLDEST_ENCODING_VERSION: i32 = 1;
/// From this version on, a value stores the chain's option bits (before: none, so 32-bit
/// hashing).
const OPTIONS_SINCE: i32 = 2;
/// From this version on, a value stores the expansion factor (before: always 2).
const GROWTH_SINCE: i32 = 4;
/// The expansion factor of values saved before it was stored.
const DEFAULT_GROWTH: u32 = 2;

/// The encoding version of `bfblocked`, the fast layout's own type.
pub const FAST_ENCODING_VERSION: i32 = 1;

/// Saves a chain in the format of its layout's data type.
pub fn save(chain: &Chain, out: &mut impl RdbWrite) {
    out.unsigned(chain.items());
    out.unsigned(chain.links().len() as u64);
    out.unsigned(u64::from(chain.options()));
    out.unsigned(u64::from(chain.growth()));
    for link in chain.links() {
        let shape = link.shape();
        out.unsigned(shape.entries());
        out.double(shape.error());
        out.unsigned(u64::from(shape.hashes()));
        match shape {
            Shape::Classic(layout) => {
                out.double(layout.bpe);
                out.unsigned(layout.bits);
                out.unsigned(u64::from(layout.n2));
                // Classic links are one segment: RedisBloom's one string.
                link.segments().for_each(|segment| out.bytes(segment));
                out.unsigned(link.items());
            }
            Shape::Blocked(blocked) => {
                out.unsigned(blocked.bytes() / BLOCK_BYTES);
                out.unsigned(link.items());
                link.segments().for_each(|segment| out.bytes(segment));
            }
        }
    }
}

/// Loads a `MBbloom--` value of encoding version `encver`. `OverLimit` or `OutOfMemory` when
/// the links announced so far pass `memory`'s bounds, before the next one's bits are read.
pub fn load_classic(
    input: &mut impl RdbRead,
    encver: i32,
    memory: &Memory,
) -> Result<Chain, Error> {
    known_version(encver, OLDEST_ENCODING_VERSION..=ENCODING_VERSION)?;
    let items = input.unsigned()?;
    let nfilters = input.unsigned()?;
    let options = if encver >= OPTIONS_SINCE {
        narrow(input.unsigned()?)?
    } else {
        0
    };
    let growth = if encver >= GROWTH_SINCE {
        narrow(input.unsigned()?)?
    } else {
        DEFAULT_GROWTH
    };
    let links = load_links(input, nfilters, |input, stored, announced| {
        let bpe = input.double()?;
        let bits = input.unsigned()?;
        let n2 = u8::try_from(input.unsigned()?).map_err(|_| Error::BadEncoding)?;
        let shape = stored.classic(bpe, bits, n2)?;
        announced.link(shape, memory)?;
        let bits = input.bytes()?;
        let link_items = input.unsigned()?;
        Ok((shape, vec![bits], link_items))
    })?;
    Chain::from_links(items, options, growth, links)
}

/// Loads a `bfblocked` value of encoding version `encver`, with the checks of
/// [`load_classic`].
pub fn load_fast(input: &mut impl RdbRead, encver: i32, memory: &Memory) -> Result<Chain, Error> {
    known_version(encver, FAST_ENCODING_VERSION..=FAST_ENCODING_VERSION)?;
    let items = input.unsigned()?;
    let nfilters = input.unsigned()?;
    let options = narrow(input.unsigned()?)?;
    let growth = narrow(input.unsigned()?)?;
    let links = load_links(input, nfilters, |input, stored, announced| {
        let blocks = input.unsigned()?;
        let link_items = input.unsigned()?;
        let shape = stored.blocked(blocks)?;
        announced.link(shape, memory)?;
        let mut segments = Vec::new();
        for _ in shape.segment_lengths() {
            segments.try_reserve(1).map_err(|_| Error::OutOfMemory)?;
            segments.push(input.bytes()?);
        }
        Ok((shape, segments, link_items))
    })?;
    Chain::from_links(items, options, growth, links)
}

/// Reads `nfilters` links: the fields every link starts with, then the rest with `read_rest`,
/// which [announces](Announced::link) the link's shape before it reads the link's bits, and
/// gives the shape, the bits (one array a segment) and the items.
fn load_links<R: RdbRead>(
    input: &mut R,
    nfilters: u64,
    mut read_rest: impl FnMut(
        &mut R,
        StoredShape,
        &mut Announced,
    ) -> Result<(Shape, Vec<Vec<u8>>, u64), Error>,
) -> Result<Vec<Link>, Error> {
    let mut links = Vec::new();
    let mut announced = Announced::default();
    for _ in 0..nfilters {
        let stored = stored_shape(input)?;
        let (shape, segments, items) = read_rest(input, stored, &mut announced)?;
        links.try_reserve(1).map_err(|_| Error::OutOfMemory)?;
        links.push(Link::from_saved(shape, segments, items)?);
    }
    Ok(links)
}

/// The links a payload has announced so far, as their count and bytes.
#[derive(Default)]
struct Announced {
    links: u64,
    bytes: u64,
}

impl Announced {
    /// Counts one more link, and checks the chain so far against `memory`.
    fn link(&mut self, shape: Shape, memory: &Memory) -> Result<(), Error> {
        self.links += 1;
        self.bytes = self
            .bytes
            .checked_add(shape.bytes())
            .ok_or(Error::BadEncoding)?;
        memory.check(chain::memory_usage(self.links, self.bytes).ok_or(Error::BadEncoding)?)
    }
}

/// The fields a link of either type starts with: entries, error rate and probes.
fn stored_shape(input: &mut impl RdbRead) -> Result<StoredShape, Error> {
    Ok(StoredShape {
        entries: input.unsigned()?,
        error: input.double()?,
        hashes: narrow(input.unsigned()?)?,
    })
}

/// A stored 64-bit field that the format defines as 32 bits wide.
fn narrow(n: u64) -> Result<u32, Error> {
    u32::try_from(n).map_err(|_| Error::BadEncoding)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::bf::chain::{scaling_test_chain, LayoutKind};
    use crate::core::le::LeReader;
    use crate::core::testing::eager_limited;
    use crate::core::testing::fields_of;
    use crate::core::EAGER;

    fn saved(chain: &Chain) -> Vec<u8> {
        fields_of(|out| save(chain, out))
    }

    #[test]
    fn both_formats_round_trip() {
        let classic = scaling_test_chain(50, 400, LayoutKind::Classic);
        let fields = saved(&classic);
        let loaded = load_classic(&mut LeReader(&fields), ENCODING_VERSION, &EAGER).unwrap();
        assert_eq!(loaded, classic);
        let fast = scaling_test_chain(50, 400, LayoutKind::Fast);
        let fields = saved(&fast);
        let loaded = load_fast(&mut LeReader(&fields), FAST_ENCODING_VERSION, &EAGER).unwrap();
        assert_eq!(loaded, fast);
    }

    #[test]
    fn unknown_versions_and_the_other_format_are_refused() {
        let classic = saved(&scaling_test_chain(50, 10, LayoutKind::Classic));
        assert!(load_classic(&mut LeReader(&classic), 0, &EAGER).is_err());
        assert!(load_classic(&mut LeReader(&classic), 5, &EAGER).is_err());
        assert!(load_fast(&mut LeReader(&classic), FAST_ENCODING_VERSION, &EAGER).is_err());
        let fast = saved(&scaling_test_chain(50, 10, LayoutKind::Fast));
        assert!(load_classic(&mut LeReader(&fast), ENCODING_VERSION, &EAGER).is_err());
    }

    #[test]
    fn every_truncation_and_byte_flip_loads_or_fails_without_panicking() {
        let fields = saved(&scaling_test_chain(50, 200, LayoutKind::Classic));
        for len in 0..fields.len() {
            assert!(load_classic(&mut LeReader(&fields[..len]), ENCODING_VERSION, &EAGER).is_err());
        }
        for at in 0..fields.len() {
            let mut corrupt = fields.clone();
            corrupt[at] ^= 0x5a;
            if let Ok(chain) = load_classic(&mut LeReader(&corrupt), ENCODING_VERSION, &EAGER) {
                // Whatever loads is a filter that answers and saves as it loaded.
                chain.contains(b"probe");
                assert_eq!(saved(&chain), corrupt);
            }
        }
    }

    #[test]
    fn a_payload_is_checked_against_the_bounds_before_its_bits_are_read() {
        for chain in [
            scaling_test_chain(50, 400, LayoutKind::Classic),
            scaling_test_chain(50, 400, LayoutKind::Fast),
        ] {
            let fields = saved(&chain);
            let load = |memory: &Memory, fields: &[u8]| match chain.layout() {
                LayoutKind::Classic => {
                    load_classic(&mut LeReader(fields), ENCODING_VERSION, memory)
                }
                LayoutKind::Fast => load_fast(&mut LeReader(fields), FAST_ENCODING_VERSION, memory),
            };
            let exact = eager_limited(chain.memory_usage());
            assert_eq!(load(&exact, &fields).as_ref(), Ok(&chain));
            // One byte less: refused as the last link is announced, before its bits (here
            // cut off) are read — the answer is the bound, not the truncation.
            let tight = eager_limited(chain.memory_usage() - 1);
            // The last link's bits (one string: a length and the bytes), and for the
            // classic format the item count after them.
            let last_bits = chain.links().last().unwrap().shape().bytes() as usize;
            let after = match chain.layout() {
                LayoutKind::Classic => 8,
                LayoutKind::Fast => 0,
            };
            let cut = &fields[..fields.len() - after - last_bits - 4];
            assert_eq!(load(&tight, cut), Err(Error::OverLimit));
            let machine = Memory {
                available: chain.memory_usage() - 1,
                ..EAGER
            };
            assert_eq!(load(&machine, cut), Err(Error::OutOfMemory));
        }
    }
}
