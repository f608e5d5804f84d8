//! A Top-K as RDB fields (see `core::rdb`), data type `TopK-TYPE`, encoding version 0, field
//! for field as RedisBloom's `TopKRdbSave`/`TopKRdbLoad` (`src/rm_topk.c`):
//!
//! 1. `k`, `width`, `depth` as unsigned integers, `decay` as a double;
//! 2. the buckets, one string of `8 × width × depth` bytes;
//! 3. the heap, one string of `24 × k` bytes (RedisBloom's `HeapBucket` array, process
//!    addresses included: they are written as 0 here and ignored on load);
//! 4. per heap slot, its item followed by one NUL (only the NUL for an empty slot).
//!
//! RedisBloom writes an item up to its first NUL (`strlen + 1` bytes); here the whole item is
//! written, so an item holding a NUL survives a reload. RedisBloom 8 loads such a string
//! whole (its `itemlen` is the string's length less one) and 2.8.2 does too (it keeps the
//! heap's `itemlen`), so both read these payloads; only the payload bytes of such items
//! differ from RedisBloom's.
//!
//! Load checks every field before trusting it — k, width and depth in [1, `u32::MAX`], the
//! decay in (0, 1], both strings exactly as long as the header says, every item string
//! ending with its NUL — and asks [`Memory`] before the first string is read. RedisBloom 2.8.2
//! asserted (aborting the server) or read out of bounds on such input.
//!
//! The decay table is rebuilt from the decay, as RedisBloom 8 does (2.8.2 left it zero, so a
//! Top-K it had loaded never decayed again).

use super::heap::Heap;
use super::params::Params;
use super::sketch::{memory_usage, TopK};
use crate::core::rdb::{known_version, RdbRead, RdbWrite};
use crate::core::{try_copy, try_vec, Error, Memory};

/// The only encoding version of `TopK-TYPE` (RedisBloom's `TOPK_ENC_VER`).
pub const ENCODING_VERSION: i32 = 0;

/// Saves a Top-K.
pub fn save(topk: &TopK, out: &mut impl RdbWrite) {
    let params = topk.params();
    out.unsigned(u64::from(params.k()));
    out.unsigned(u64::from(params.width()));
    out.unsigned(u64::from(params.depth()));
    out.double(params.decay());
    out.bytes(topk.saved_buckets());
    save_heap(topk.heap(), out);
}

/// Saves a heap as `TopK-TYPE` does: its slots as one string, then each slot's item.
pub(super) fn save_heap(heap: &Heap, out: &mut impl RdbWrite) {
    out.bytes(heap.saved_slots());
    for item in heap.saved_items() {
        out.bytes(item);
    }
}

/// Loads a heap of `k` slots that [`save_heap`] saved (or RedisBloom, pointers and all);
/// `canonical` refuses (`BadEncoding`) any slot that `save_heap` would not write as read.
pub(super) fn load_heap(input: &mut impl RdbRead, k: u32, canonical: bool) -> Result<Heap, Error> {
    let slots = input.bytes()?;
    let saved_slots = if canonical {
        try_copy(&slots)?
    } else {
        Vec::new()
    };
    let mut items = try_vec(k as usize)?;
    for _ in 0..k {
        items.push(Some(input.bytes()?));
    }
    let heap = Heap::from_saved(slots, items)?;
    if canonical && heap.saved_slots() != saved_slots.as_slice() {
        return Err(Error::BadEncoding);
    }
    Ok(heap)
}

/// Loads a `TopK-TYPE` value of encoding version `encver`. `BadEncoding` for another
/// version, a missing field or an inconsistent one; `OverLimit`/`OutOfMemory` when `memory`
/// refuses the size the header announces.
pub fn load(input: &mut impl RdbRead, encver: i32, memory: &Memory) -> Result<TopK, Error> {
    known_version(encver, ENCODING_VERSION..=ENCODING_VERSION)?;
    let mut dimension = || -> Result<i64, Error> {
        i64::try_from(input.unsigned()?).map_err(|_| Error::BadEncoding)
    };
    let (k, width, depth) = (dimension()?, dimension()?, dimension()?);
    let params = Params::new(k, width, depth, input.double()?).map_err(|_| Error::BadEncoding)?;
    memory.check(memory_usage(&params).ok_or(Error::BadEncoding)?)?;
    let buckets = input.bytes()?;
    TopK::from_parts(params, buckets, load_heap(input, params.k(), false)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::le::LeReader;
    use crate::core::rdb::FieldWriter;
    use crate::core::testing::eager_limited;
    use crate::core::testing::{fields_of, truncations_fail_and_flips_load_or_fail, Rng};
    use crate::core::topk::TopK;
    use crate::core::EAGER;

    fn saved(topk: &TopK) -> Vec<u8> {
        fields_of(|out| save(topk, out))
    }

    fn sample() -> TopK {
        let mut t = TopK::new(Params::new(4, 5, 3, 0.8).unwrap(), &EAGER).unwrap();
        for i in 0..60u32 {
            t.add(format!("item{}", i % 9).as_bytes(), i % 3).unwrap();
        }
        t.add(b"", 500).unwrap();
        t.add(b"n\0ul", 400).unwrap();
        t
    }

    /// Fields of a Top-K `k, width, depth, decay`, then the given strings.
    fn fields(header: [u64; 3], decay: f64, strings: &[&[u8]]) -> Vec<u8> {
        let mut out = FieldWriter::default();
        header.iter().for_each(|&n| out.unsigned(n));
        out.double(decay);
        strings.iter().for_each(|s| out.bytes(s));
        out.0
    }

    #[test]
    fn round_trips_with_empty_and_nul_items() {
        let t = sample();
        let listed = t.list().unwrap();
        assert!(listed.iter().any(|l| l.item.is_empty()));
        assert!(listed.iter().any(|l| l.item == b"n\0ul"));
        let loaded = load(&mut LeReader(&saved(&t)), 0, &EAGER).unwrap();
        assert_eq!(loaded, t);
    }

    #[test]
    fn inconsistent_fields_are_refused() {
        let fields_of = |header, decay, buckets: usize, heap: usize, items: &[&[u8]]| {
            let (b, h) = (vec![0; buckets], vec![0; heap]);
            let strings: Vec<&[u8]> = [&b[..], &h[..]]
                .into_iter()
                .chain(items.iter().copied())
                .collect();
            fields(header, decay, &strings)
        };
        let good = fields_of([1, 2, 3], 0.5, 48, 24, &[b"\0"]);
        assert!(load(&mut LeReader(&good), 0, &EAGER).is_ok());
        for bad in [
            fields_of([0, 2, 3], 0.5, 48, 0, &[]),
            fields_of([1 << 32, 2, 3], 0.5, 48, 24, &[b"\0"]),
            fields_of([1, 0, 3], 0.5, 0, 24, &[b"\0"]),
            fields_of([1, 2, 1 << 32], 0.5, 48, 24, &[b"\0"]),
            fields_of([1, 2, u64::MAX], 0.5, 48, 24, &[b"\0"]),
            fields_of([1, 2, 3], 0.0, 48, 24, &[b"\0"]),
            fields_of([1, 2, 3], 1.5, 48, 24, &[b"\0"]),
            fields_of([1, 2, 3], f64::NAN, 48, 24, &[b"\0"]),
            fields_of([1, 2, 3], 0.5, 40, 24, &[b"\0"]),
            fields_of([1, 2, 3], 0.5, 48, 23, &[b"\0"]),
            fields_of([1, 2, 3], 0.5, 48, 48, &[b"\0"]),
            fields_of([1, 2, 3], 0.5, 48, 24, &[b""]),
            fields_of([1, 2, 3], 0.5, 48, 24, &[b"a"]),
            fields_of([1, 2, 3], 0.5, 48, 24, &[]),
        ] {
            assert_eq!(
                load(&mut LeReader(&bad), 0, &EAGER),
                Err(Error::BadEncoding)
            );
        }
        for encver in [-1, 1] {
            assert_eq!(
                load(&mut LeReader(&good), encver, &EAGER),
                Err(Error::BadEncoding)
            );
        }
    }

    #[test]
    fn memory_is_asked_before_the_strings_are_read() {
        let header = fields([1 << 30, 1 << 16, 1 << 16], 0.9, &[]);
        let small = Memory {
            available: 1 << 30,
            ..EAGER
        };
        assert_eq!(
            load(&mut LeReader(&header), 0, &small),
            Err(Error::OutOfMemory)
        );
        let limited = eager_limited(2088 + 8 * 15 + 24 * 4 - 1);
        assert_eq!(
            load(&mut LeReader(&saved(&sample())), 0, &limited),
            Err(Error::OverLimit)
        );
    }

    #[test]
    fn pointers_pad_and_itemlen_of_a_payload_are_not_trusted() {
        let mut heap = vec![0xee; 48];
        heap[16..20].copy_from_slice(&5u32.to_le_bytes());
        heap[40..44].fill(0);
        heap[24..28].fill(0);
        let payload = fields([2, 1, 1], 1.0, &[&[0; 8], &heap, b"ab\0", b"\0"]);
        let t = load(&mut LeReader(&payload), 0, &EAGER).unwrap();
        // Slot 0 holds `ab` (fingerprint 0xeeeeeeee, count 5); slot 1's fingerprint and
        // count are 0, so its lone NUL is an empty slot, whatever its other bytes said.
        let listed = t.list().unwrap();
        assert_eq!(
            (listed.len(), listed[0].item, listed[0].count),
            (1, &b"ab"[..], 5)
        );
        let mut expected = vec![0; 48];
        expected[..4].fill(0xee);
        expected[4..8].copy_from_slice(&2u32.to_le_bytes());
        expected[16..20].copy_from_slice(&5u32.to_le_bytes());
        let resaved = saved(&t);
        assert_eq!(
            resaved,
            fields([2, 1, 1], 1.0, &[&[0; 8], &expected, b"ab\0", b"\0"])
        );
    }

    #[test]
    fn every_truncation_fails_and_every_byte_flip_loads_or_fails_cleanly() {
        let load_fields = |fields: &[u8]| load(&mut LeReader(fields), 0, &EAGER);
        let fields = saved(&sample());
        truncations_fail_and_flips_load_or_fail(&fields, load_fields, |mut t, _| {
            // What loads saves in a form that loads as itself, and takes commands.
            let again = saved(&t);
            assert_eq!(load_fields(&again).as_ref(), Ok(&t));
            t.add(b"probe", 7).unwrap();
            t.query(b"item1");
            t.count(b"item2");
            t.list().unwrap();
        });
    }

    #[test]
    fn random_hostile_field_streams_load_or_fail_without_panicking() {
        let mut g = Rng::new(11);
        let mut loaded = 0;
        for _ in 0..20_000 {
            let small = |g: &mut Rng| match g.below(10) {
                0 => g.next(),
                1 => 0,
                _ => 1 + g.below(4),
            };
            let header = [small(&mut g), small(&mut g), small(&mut g)];
            let decay = [0.5, 1.0, 0.0, -1.0, f64::NAN, 2.0][g.below(6) as usize];
            let mut strings = vec![
                (0..header[1].wrapping_mul(header[2]).wrapping_mul(8) % 256)
                    .map(|_| g.next() as u8)
                    .collect::<Vec<u8>>(),
                (0..header[0].wrapping_mul(24) % 256)
                    .map(|_| g.next() as u8)
                    .collect(),
            ];
            for _ in 0..header[0] % 8 {
                let len = g.below(4);
                let mut item: Vec<u8> = (0..len).map(|_| g.below(3) as u8).collect();
                if g.below(4) != 0 {
                    item.push(0);
                }
                strings.push(item);
            }
            let refs: Vec<&[u8]> = strings.iter().map(Vec::as_slice).collect();
            let payload = fields(header, decay, &refs);
            if let Ok(mut t) = load(&mut LeReader(&payload), 0, &EAGER) {
                loaded += 1;
                for item in [&b""[..], b"\0", b"\x01\0", b"x"] {
                    t.add(item, g.below(100) as u32).unwrap();
                    t.query(item);
                    t.count(item);
                }
                t.list().unwrap();
            }
        }
        assert!(loaded > 500, "{loaded}");
    }
}
