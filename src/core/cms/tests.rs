//! Whole-sketch tests against RedisBloom itself: random command runs whose replies and DUMP
//! fields were captured from the real module, its `CMS.INITBYPROB` dimensions, and DUMP
//! payloads loaded as they are and written again byte for byte.
//!
//! Captured on RedisBloom 2.8.2 (`MODULE LIST` ver 20802) on Redis 7.0.15, over a Unix
//! socket, with `CONFIG SET rdbcompression no` so that DUMP strings are stored plainly. The
//! CMS algorithm and RDB fields of 2.8.2 are those of RedisBloom 8 (only `MEMORY USAGE`
//! changed, see `CountMinSketch::memory_usage`).

use super::rdb::{load, save};
use super::*;
use crate::core::le::LeReader;
use crate::core::rdb::FieldWriter;
use crate::core::testing::{dump_payload, fnv, unhex, DumpReader, Rng, FNV_OFFSET};
use crate::core::{Error, Memory, EAGER};

/// The module type id RedisBloom writes after `RDB_TYPE_MODULE_2` (`0x81` + 8 bytes, big
/// endian): nine 6-bit name characters, then the encoding version in 10 bits.
const CMS_TYPE_ID: u64 = 0x08c4_a4f9_360f_1000;

fn sketch(width: i64, depth: i64) -> CountMinSketch {
    CountMinSketch::new(Dimensions::new(width, depth).unwrap(), &EAGER).unwrap()
}

/// A copy through save and load (the sketch is not `Clone`).
fn copy(s: &CountMinSketch) -> CountMinSketch {
    let mut out = FieldWriter::default();
    save(s, &mut out);
    load(&mut LeReader(&out.0), 0, &EAGER).unwrap()
}

fn reply(increment: Increment) -> String {
    match increment {
        Increment::Estimate(n) => format!("{n},"),
        Increment::Overflow => "O,".to_string(),
    }
}

#[test]
fn the_spec_dump_of_a_3x2_sketch_is_written_and_read_byte_for_byte() {
    // CMS.INITBYDIM k 3 2; CMS.INCRBY k a 1 (`a` lands in cells 1 and 5).
    let theirs = unhex(
        "078108c4a4f9360f10000203020202010518000000000100000000000000000000000000000001000000\
         000a00913446b7c0bff951",
    );
    let mut s = sketch(3, 2);
    assert_eq!(s.increment(b"a", 1), Increment::Estimate(1));
    assert_eq!(dump_payload(CMS_TYPE_ID, |out| save(&s, out)), theirs);
    let mut fields = DumpReader::new(&theirs, CMS_TYPE_ID);
    assert_eq!(load(&mut fields, 0, &EAGER).unwrap(), s);
    assert!(fields.is_done());
}

#[test]
fn saturation_and_a_wrapped_total_match_a_captured_dump() {
    // CMS.INITBYDIM s 4 3; CMS.INCRBY s a 5 b 4294967295 c 9223372036854775807 "" 7 x\0y 2
    // c 9223372036854775807 d 3; then CMS.INFO, CMS.QUERY and DUMP.
    let theirs = unhex(
        "078108c4a4f9360f1000020402030281000000010000000e0530ffffffffffffffff0800000002000000\
         ffffffffffffffff0a00000000000000ffffffff0c000000ffffffff02000000000a00e0a72cea547698aa",
    );
    let mut s = sketch(4, 3);
    let pairs: [(&[u8], u64); 7] = [
        (b"a", 5),
        (b"b", 4_294_967_295),
        (b"c", i64::MAX as u64),
        (b"", 7),
        (b"x\0y", 2),
        (b"c", i64::MAX as u64),
        (b"d", 3),
    ];
    let replies: String = pairs
        .iter()
        .map(|&(item, amount)| reply(s.increment(item, amount)))
        .collect();
    assert_eq!(replies, "5,O,O,7,2,O,8,");
    assert_eq!(s.count(), 4_294_967_310);
    let queried: Vec<u32> = [&b"a"[..], b"b", b"c", b"", b"x\0y", b"x", b"d"]
        .iter()
        .map(|item| s.query(item))
        .collect();
    assert_eq!(queried, [8, u32::MAX, u32::MAX, 10, 2, 0, 8]);
    assert_eq!(dump_payload(CMS_TYPE_ID, |out| save(&s, out)), theirs);
    let mut fields = DumpReader::new(&theirs, CMS_TYPE_ID);
    assert_eq!(load(&mut fields, 0, &EAGER).unwrap(), s);
    // RedisBloom 8 counts 32 + 4·w·d (2.8.2's MEMORY USAGE showed 136 = 32 + 8 + 8·12).
    assert_eq!(s.memory_usage(), 80);
}

#[test]
fn exact_sums_reaching_the_maximum_report_overflow() {
    // The spec's `c 4294967294 c 1 c 0` and RedisBloom's test_overflow.
    let mut s = sketch(5, 2);
    let replies: String = [4_294_967_294, 1, 0]
        .iter()
        .map(|&n| reply(s.increment(b"c", n)))
        .collect();
    assert_eq!(replies, "4294967294,O,O,");
    assert_eq!(s.query(b"c"), u32::MAX);
    let mut s = sketch(5, 2);
    assert_eq!(s.increment(b"b", 1 << 32), Increment::Overflow);
    assert_eq!(s.increment(b"b", 1), Increment::Overflow);
    assert_eq!(s.count(), (1 << 32) + 1);
}

type WidthDepth = (u64, u64);

/// `(error, probability, (width, depth))` from `CMS.INITBYPROB` and `CMS.INFO` on
/// RedisBloom 2.8.2; `None` where it replied `CMS: invalid init arguments`.
#[rustfmt::skip]
const BY_PROBABILITY: &[(&str, &str, Option<WidthDepth>)] = &[
    ("0.001", "0.01", Some((2000, 7))),
    ("0.1", "0.1", Some((20, 4))),
    ("0.01", "0.5", Some((200, 1))),
    ("0.3", "0.25", Some((7, 2))),
    ("0.5", "0.125", Some((4, 3))),
    ("0.002", "0.0625", Some((1000, 4))),
    ("0.02", "0.03125", Some((100, 5))),
    ("0.0003", "0.001", Some((6667, 10))),
    ("0.7", "0.999", Some((3, 1))),
    ("0.22", "0.249999999", Some((10, 2))),
    ("0.2", "0.00781249999", Some((10, 7))),
    ("0.1", "1e-45", Some((20, 149))),
    ("0.9", "0.9999999999999999", None),
    ("0.999999", "0.99999999", None),
    ("0.1", "1e-300", None),
    ("1e-19", "0.9", None),
    ("1.5e-19", "0.5", None),
    ("0.0001", "0.0001", Some((20000, 14))),
    ("0.33", "0.33", Some((7, 2))),
    ("0.05", "0.2", Some((40, 3))),
    ("0.999", "0.001", Some((3, 10))),
    ("1e-9", "0.5", Some((2000000000, 1))),
    ("0.6666666", "0.7", Some((4, 1))),
    ("0.25", "1e-38", Some((8, 127))),
    ("0.25", "1e-40", Some((8, 133))),
];

#[test]
fn dimensions_by_probability_match_redisbloom() {
    for &(error, probability, expected) in BY_PROBABILITY {
        let got = Dimensions::for_error(error.parse().unwrap(), probability.parse().unwrap());
        let expected = expected.ok_or(InitError::Arguments);
        assert_eq!(
            got.map(|d| (d.width(), d.depth())),
            expected,
            "{error} {probability}"
        );
    }
    for bad in [0.0, 1.0, -0.5, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(
            Dimensions::for_error(bad, 0.5),
            Err(InitError::Overestimation)
        );
        assert_eq!(Dimensions::for_error(0.5, bad), Err(InitError::Probability));
    }
}

#[test]
fn dimensions_by_width_and_depth() {
    assert_eq!(Dimensions::new(0, 5), Err(InitError::Width));
    assert_eq!(Dimensions::new(5, -1), Err(InitError::Depth));
    assert_eq!(Dimensions::new(0, 0), Err(InitError::Width));
    // `8589934592 8589934592` in the spec: the product passes i64::MAX.
    assert_eq!(Dimensions::new(1 << 33, 1 << 33), Err(InitError::Arguments));
    assert!(Dimensions::new(i64::MAX, 1).is_ok());
    // Such a sketch is refused by memory before anything is allocated.
    let d = Dimensions::new(i64::MAX, 1).unwrap();
    assert_eq!(CountMinSketch::new(d, &EAGER), Err(Error::OutOfMemory));
    let limited = Memory {
        limit: 32 + 4 * 100 - 1,
        ..EAGER
    };
    let d = Dimensions::new(20, 5).unwrap();
    assert_eq!(CountMinSketch::new(d, &limited), Err(Error::OverLimit));
    let refusing = Memory {
        zeroed: |_| None,
        ..EAGER
    };
    assert_eq!(CountMinSketch::new(d, &refusing), Err(Error::OutOfMemory));
    assert_eq!(CountMinSketch::new(d, &EAGER).unwrap().memory_usage(), 432);
}

fn weighted(source: MergeSource<'_>, weight: i64) -> Weighted<'_> {
    Weighted { source, weight }
}

#[test]
fn merges_of_the_spec() {
    let mut a = sketch(3, 2);
    let mut b = sketch(3, 2);
    a.increment(b"x", 5);
    b.increment(b"x", 7);
    b.increment(b"y", 1);
    let mut d = sketch(3, 2);
    let sources = [
        weighted(MergeSource::Other(&a), 1),
        weighted(MergeSource::Other(&b), 1),
    ];
    d.merge(&sources).unwrap();
    assert_eq!((d.count(), d.query(b"x"), d.query(b"y")), (13, 12, 1));
    // A cell would be -1: refused, and nothing changes.
    let before = copy(&d);
    let sources = [
        weighted(MergeSource::Other(&a), 2),
        weighted(MergeSource::Other(&b), -1),
    ];
    assert_eq!(d.check_merge(&sources), Err(MergeError::Overflow));
    assert_eq!(d.merge(&sources), Err(MergeError::Overflow));
    assert_eq!(d, before);
    // Weight 0 empties the destination.
    d.merge(&[weighted(MergeSource::Other(&a), 0)]).unwrap();
    assert_eq!(d, sketch(3, 2));
    // A total of 2^63 + 4 (captured: CMS.INFO showed -9223372036854775804) cannot be merged
    // even with weight 1; weight 0 beside it does not help.
    a.increment(b"z", i64::MAX as u64);
    assert_eq!(a.count(), (1 << 63) + 4);
    assert_eq!(
        d.merge(&[weighted(MergeSource::Other(&a), 1)]),
        Err(MergeError::Overflow)
    );
    let other = sketch(3, 3);
    assert_eq!(
        d.check_merge(&[weighted(MergeSource::Other(&other), 1)]),
        Err(MergeError::DimensionsDiffer)
    );
}

#[test]
fn a_destination_among_its_sources_merges_in_place() {
    let mut d = sketch(4, 3);
    let mut a = sketch(4, 3);
    d.increment(b"p", 3);
    a.increment(b"p", 1);
    a.increment(b"q", 2);
    d.merge(&[
        weighted(MergeSource::Destination, 3),
        weighted(MergeSource::Other(&a), 1),
        weighted(MergeSource::Destination, -1),
    ])
    .unwrap();
    assert_eq!((d.query(b"p"), d.query(b"q"), d.count()), (7, 2, 9));
    // Partial sums may pass through negative values (or i64 range checks) per cell.
    let big = {
        let mut s = sketch(4, 3);
        s.increment(b"p", 4_000_000_000);
        s
    };
    let sources = [
        weighted(MergeSource::Other(&big), i64::MAX / 4_000_000_000),
        weighted(MergeSource::Other(&big), -(i64::MAX / 4_000_000_000)),
    ];
    assert_eq!(d.check_merge(&sources), Ok(()));
    let sources = [
        weighted(MergeSource::Other(&big), i64::MAX / 2_000_000_000),
        weighted(MergeSource::Other(&big), 1),
    ];
    assert_eq!(d.check_merge(&sources), Err(MergeError::Overflow));
}

/// An item of the capture script: `""`, `x\0y` or `i2`..`i29`.
fn item(g: &mut Rng) -> Vec<u8> {
    match g.below(30) {
        0 => Vec::new(),
        1 => b"x\0y".to_vec(),
        n => format!("i{n}").into_bytes(),
    }
}

/// An increment of the capture script: mostly small, sometimes near `u32::MAX`, rarely
/// above it or `i64::MAX`.
fn amount(g: &mut Rng) -> u64 {
    match g.below(100) {
        0..80 => g.below(20),
        80..90 => g.below(1000),
        90..97 => 4_294_967_295 - g.below(3),
        97 => g.below(1 << 40),
        98 => 0,
        _ => i64::MAX as u64,
    }
}

/// The random run `seed`: three sketches `c0..c2` of width 1..=12 and depth 1..=4, then
/// 100..300 commands on a random one of them: CMS.INCRBY of 1..=3 pairs (55%), CMS.QUERY of
/// 1..=3 items (25%), CMS.MERGE of 1..=3 random sources, with random WEIGHTS in -2..=4 half
/// the time (15%), CMS.INFO (5%). Returns the dimensions, the FNV-1a of the coded replies
/// (`n,` for an integer, `O,` for `CMS: INCRBY overflow`, `K,` for OK, `M,` for `CMS: MERGE
/// overflow`, `w,d,count,` for CMS.INFO) and the FNV-1a of the three DUMPs' fields in
/// `FieldWriter` format.
fn random_run(seed: u64) -> (u64, u64, u64, u64) {
    let mut g = Rng::new(seed);
    let width = 1 + g.below(12);
    let depth = 1 + g.below(4);
    let mut keys: Vec<CountMinSketch> =
        (0..3).map(|_| sketch(width as i64, depth as i64)).collect();
    let ops = 100 + g.below(200);
    let mut replies = String::new();
    for _ in 0..ops {
        let op = g.below(100);
        let key = g.below(3) as usize;
        match op {
            0..55 => {
                for _ in 0..1 + g.below(3) {
                    let (item, amount) = (item(&mut g), amount(&mut g));
                    replies += &reply(keys[key].increment(&item, amount));
                }
            }
            55..80 => {
                for _ in 0..1 + g.below(3) {
                    replies += &format!("{},", keys[key].query(&item(&mut g)));
                }
            }
            80..95 => {
                let n = 1 + g.below(3);
                let sources: Vec<usize> = (0..n).map(|_| g.below(3) as usize).collect();
                let weights: Vec<i64> = if g.below(2) == 1 {
                    (0..n).map(|_| g.below(7) as i64 - 2).collect()
                } else {
                    vec![1; n as usize]
                };
                let snapshot: Vec<CountMinSketch> = keys.iter().map(copy).collect();
                let list: Vec<Weighted> = sources
                    .iter()
                    .zip(&weights)
                    .map(|(&s, &weight)| Weighted {
                        source: if s == key {
                            MergeSource::Destination
                        } else {
                            MergeSource::Other(&snapshot[s])
                        },
                        weight,
                    })
                    .collect();
                replies += match keys[key].merge(&list) {
                    Ok(()) => "K,",
                    Err(MergeError::Overflow) => "M,",
                    Err(e) => panic!("{e:?}"),
                };
            }
            _ => {
                let s = &keys[key];
                replies += &format!("{},{},{},", s.width(), s.depth(), s.count() as i64);
            }
        }
    }
    let mut dump = FNV_OFFSET;
    for s in &keys {
        let mut out = FieldWriter::default();
        save(s, &mut out);
        dump = fnv(dump, &out.0);
        assert_eq!(&load(&mut LeReader(&out.0), 0, &EAGER).unwrap(), s);
    }
    (width, depth, fnv(FNV_OFFSET, replies.as_bytes()), dump)
}

/// `(seed, width, depth, replies FNV, DUMP fields FNV)` of [`random_run`] on RedisBloom
/// 2.8.2. 400 seeds matched when the table was captured; the first 48 are kept.
#[rustfmt::skip]
const RANDOM_RUNS: &[(u64, u64, u64, u64, u64)] = &[
    (0, 10, 3, 0x8a0f6a6d034550ef, 0xa33fb1aea7859865),
    (1, 3, 1, 0x18c3cdb8c2deb131, 0x927491379a96ee9c),
    (2, 4, 2, 0x0a95be9bc15c712c, 0x702cf778ccd0da4e),
    (3, 9, 2, 0x3dacf2031acae67c, 0x4ad6c8409e016bcf),
    (4, 10, 1, 0x3928ac4d165e4836, 0x702bcbc0489a1d24),
    (5, 3, 3, 0xb07cf39ffdf98013, 0xab14c33fda502d7f),
    (6, 3, 4, 0x49776be4c95cbdbc, 0x94d3bb371bdd6ef4),
    (7, 6, 4, 0x2bfe00ed3db1b532, 0x8f1b886a0680c069),
    (8, 1, 3, 0x7fa02558e1820084, 0x1710dbfc52c62fb4),
    (9, 8, 1, 0x55e1cc5d4fc9cdf8, 0xd02922b2550767e5),
    (10, 7, 2, 0x7e9bfff69b937bbb, 0x86d9cc0954bc085b),
    (11, 10, 2, 0xf2b68fc692c13bb1, 0x9bad4ad5ca1a5ec3),
    (12, 4, 1, 0xd7c7e8bb34f0b3d6, 0xd05a3fb84762beb0),
    (13, 9, 3, 0x602cc05e7d8f33b0, 0x862da778684063c2),
    (14, 6, 4, 0xbd5ac85a48dd1927, 0x1e9b963ee08b27fb),
    (15, 3, 4, 0x7b365e490c29c40b, 0xf1b23cef1575a02d),
    (16, 12, 4, 0x1447d1a69a222281, 0x14e9940b6759fc70),
    (17, 9, 2, 0xf8503658a8ea1f4e, 0xb6c483f063ce60d9),
    (18, 9, 1, 0x479359bb0260316c, 0x6772902ff51a4477),
    (19, 8, 1, 0x032749db61a83fc9, 0xc89b06574e8cce49),
    (20, 7, 2, 0xfd9b09e5c3a7d048, 0x3d41b89978693401),
    (21, 2, 4, 0xa7573264493ef7b4, 0x1754915fe79fbc49),
    (22, 9, 3, 0x4afff8114e98f432, 0x9aaa0d8461999c38),
    (23, 4, 3, 0x10ec98b1994f6644, 0xe856f2e37c7fb7a0),
    (24, 6, 4, 0x7dba3540b1c79be5, 0xdad1dcf32cdd27a6),
    (25, 3, 2, 0xa675b05cf508f652, 0x21a21bdb2355f086),
    (26, 4, 1, 0x15298bb44f0fd4cf, 0x6684aa871004edd1),
    (27, 9, 1, 0x12833e858426b432, 0x89499c2dc33a5539),
    (28, 10, 2, 0x17ed01290c49dd30, 0xbd329e7c70a4068c),
    (29, 11, 4, 0x17147071e84355aa, 0x685a0e8668675ecb),
    (30, 7, 3, 0x8afbeeb9cbbb91ee, 0xe4463dddd78c3045),
    (31, 10, 3, 0xde60f1828ddac6d5, 0xeee35cb4ff8f374a),
    (32, 5, 1, 0x3cd7383f5899f81f, 0xc5d33cbcbfc9ceec),
    (33, 8, 3, 0x43b652faf937d876, 0x122f5b21376c8091),
    (34, 7, 4, 0xca3511b26a6b367b, 0x3640e2875cfae661),
    (35, 6, 4, 0x4687b4663d7b3009, 0x614181ea9e51fcfe),
    (36, 12, 3, 0x1b360eff0c1aa048, 0x829c3a2d3191da33),
    (37, 5, 1, 0xd2ad7525747fe045, 0x51b465c270ae766c),
    (38, 2, 2, 0x12e0cb28a90a0689, 0x02457a4d657f93a9),
    (39, 3, 2, 0xc2005d5cfbb8ca34, 0x29cbd335c9fec20d),
    (40, 4, 1, 0x96d18baa83648a78, 0xf030d6b641b40bb1),
    (41, 1, 3, 0x09b30a556a95f155, 0x3cee376c7f10e36b),
    (42, 1, 4, 0x1ff222a86aadde68, 0x5396695987bfbad1),
    (43, 8, 4, 0x31b0f9cbeebc305e, 0x4f110f8f7ac6f081),
    (44, 11, 3, 0x43d9d5ad54afd2eb, 0xdd4e2e088ec6ddc9),
    (45, 10, 1, 0x3de747c74c5a06a3, 0x2a56a88699729e2e),
    (46, 1, 2, 0xdc90fc61e9c070ca, 0x2bccfcd7bcea6265),
    (47, 4, 2, 0x4a1d9c626484c817, 0x8b2917c9aa40d76f),
];

#[test]
fn random_runs_match_redisbloom() {
    for &(seed, width, depth, replies, dump) in RANDOM_RUNS {
        assert_eq!(
            random_run(seed),
            (width, depth, replies, dump),
            "seed {seed}"
        );
    }
}

/// Active defragmentation moves the counters and changes nothing.
#[test]
fn relocation_moves_the_counters_and_keeps_the_sketch() {
    use crate::core::relocate::tests::relocates_unchanged;
    let mut s = sketch(50, 4);
    for i in 0..200u32 {
        s.increment(&i.to_le_bytes(), u64::from(i));
    }
    let original = copy(&s);
    assert_eq!(relocates_unchanged(s, &original), 1);
}

/// Deep sketches hash their rows in several passes: every row's counter is still the one
/// `CMS_IncrBy` picks (MurmurHash2 seeded with the row, modulo the width, in that row), for
/// depths around each pass's end, and the estimate is the least of them.
#[test]
fn every_row_of_a_deep_sketch_counts_in_its_own_column() {
    use crate::core::hash::murmur2_32;
    let mut g = Rng::new(7);
    for depth in [1u64, 7, 8, 9, 15, 16, 17, 24, 25] {
        for width in [1u64, 2, 3, 64, 1000] {
            let mut s = sketch(width as i64, depth as i64);
            let mut model = vec![0u32; (width * depth) as usize];
            for _ in 0..200 {
                let item = item(&mut g);
                let amount = g.below(5);
                let cells: Vec<usize> = (0..depth)
                    .map(|row| {
                        (u64::from(murmur2_32(&item, row as u32)) % width + row * width) as usize
                    })
                    .collect();
                for &cell in &cells {
                    model[cell] += amount as u32;
                }
                let least = cells.iter().map(|&cell| model[cell]).min().unwrap();
                assert_eq!(s.increment(&item, amount), Increment::Estimate(least));
                assert_eq!(s.query(&item), least, "depth {depth}, width {width}");
            }
            let counters: Vec<u8> = model.iter().flat_map(|c| c.to_le_bytes()).collect();
            assert_eq!(s.counters(), counters, "depth {depth}, width {width}");
        }
    }
}
