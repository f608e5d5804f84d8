//! Whole-sketch tests: against RedisBloom itself (random command runs whose replies and DUMP
//! fields were captured from the real module, its `CMS.INITBYPROB` dimensions, DUMP payloads
//! loaded as they are and written again byte for byte), and against RedisBloom 8.12's own
//! tests of cell sizes and signed increments (`tests/flow/test_cms.py`).
//!
//! Captured on RedisBloom 2.8.2 (`MODULE LIST` ver 20802) on Redis 7.0.15, over a Unix
//! socket, with `CONFIG SET rdbcompression no` so that DUMP strings are stored plainly. The
//! CMS hashing and encoding-0 fields of 2.8.2 are those of RedisBloom 8.12; what 8.12 changed
//! is the range of a counter (an increment it cannot take is refused, where 2.8.2 saturated),
//! so the captured runs are those that never reach it.

use super::rdb::{load, save};
use super::*;
use crate::core::le::LeReader;
use crate::core::rdb::{FieldWriter, RdbWrite};
use crate::core::testing::eager_limited;
use crate::core::testing::{dump_payload, fields_of, load_payload, unhex, Rng};
use crate::core::{Error, Memory, EAGER};

/// The module type id RedisBloom writes after `RDB_TYPE_MODULE_2` (`0x81` + 8 bytes, big
/// endian): nine 6-bit name characters, then the encoding version in 10 bits.
const CMS_TYPE_ID: u64 = 0x08c4_a4f9_360f_1000;

fn sketch(width: i64, depth: i64) -> CountMinSketch {
    sized(width, depth, CellSize::Four)
}

fn sized(width: i64, depth: i64, cell_size: CellSize) -> CountMinSketch {
    let dimensions = Dimensions::new(width, depth)
        .unwrap()
        .with_cell_size(cell_size);
    CountMinSketch::new(dimensions, &EAGER).unwrap()
}

/// A copy through save and load (the sketch is not `Clone`).
fn copy(s: &CountMinSketch) -> CountMinSketch {
    load(&mut LeReader(&fields_of(|out| save(s, out, 1))), 1, &EAGER).unwrap()
}

#[test]
fn the_spec_dump_of_a_3x2_sketch_is_written_and_read_byte_for_byte() {
    // CMS.INITBYDIM k 3 2; CMS.INCRBY k a 1 (`a` lands in cells 1 and 5).
    let theirs = unhex(
        "078108c4a4f9360f10000203020202010518000000000100000000000000000000000000000001000000\
         000a00913446b7c0bff951",
    );
    let mut s = sketch(3, 2);
    assert_eq!(s.increment(b"a", 1), Ok(1));
    assert_eq!(dump_payload(CMS_TYPE_ID, |out| save(&s, out, 0)), theirs);
    assert_eq!(
        load_payload(&theirs, CMS_TYPE_ID, |fields| load(fields, 0, &EAGER)),
        s
    );
}

#[test]
fn a_wrapped_total_of_an_older_file_loads_and_takes_no_more() {
    // RedisBloom 2.8.2: CMS.INITBYDIM s 4 3; CMS.INCRBY s a 5 b 4294967295 c
    // 9223372036854775807 "" 7 x\0y 2 c 9223372036854775807 d 3 (saturating, the total wrapped).
    let theirs = unhex(
        "078108c4a4f9360f1000020402030281000000010000000e0530ffffffffffffffff0800000002000000\
         ffffffffffffffff0a00000000000000ffffffff0c000000ffffffff02000000000a00e0a72cea547698aa",
    );
    let mut s = load_payload(&theirs, CMS_TYPE_ID, |fields| load(fields, 0, &EAGER));
    assert_eq!(s.count(), 4_294_967_310);
    let queried: Vec<u64> = [&b"a"[..], b"b", b"c", b"", b"x\0y", b"x", b"d"]
        .iter()
        .map(|item| s.query(item))
        .collect();
    assert_eq!(queried, [8, 4_294_967_295, 4_294_967_295, 10, 2, 0, 8]);
    assert_eq!(dump_payload(CMS_TYPE_ID, |out| save(&s, out, 0)), theirs);
    // RedisBloom 8.12 counts 40 + 4·w·d (2.8.2's MEMORY USAGE showed 136 = 32 + 8 + 8·12).
    assert_eq!(s.memory_usage(), 88);
    // A saturated counter takes nothing more; subtracting works.
    assert_eq!(s.increment(b"b", 1), Err(IncrementError::Overflow));
    assert_eq!(s.increment(b"b", -5), Ok(4_294_967_290));
}

/// RedisBloom 8.12's test_cell_size_max_value and test_cell_size_overflow_in_one_shot: each
/// size's largest counter is reachable, one more is refused with nothing changed.
#[test]
fn each_cell_size_counts_to_its_maximum_and_no_further() {
    for bytes in [1, 2, 4, 8] {
        let cell_size = CellSize::new(bytes).unwrap();
        let max = cell_size.max() as i64;
        let mut s = sized(1, 1, cell_size);
        assert_eq!(s.increment(b"x", max), Ok(max as u64));
        let before = copy(&s);
        assert_eq!(s.increment(b"x", 1), Err(IncrementError::Overflow));
        assert_eq!(s, before);
        assert_eq!((s.query(b"x"), s.count()), (max as u64, max as u64));
        let mut fresh = sized(1, 1, cell_size);
        if bytes < 8 {
            assert_eq!(
                fresh.increment(b"x", max + 1),
                Err(IncrementError::Overflow)
            );
            assert_eq!(fresh.count(), 0);
        }
        assert_eq!(fresh.increment(b"x", -1), Err(IncrementError::Underflow));
        // The total allows it, a counter does not: refused after every row took it (cut to
        // the cell), and each row is put back as it was.
        let mut s = sized(8, 3, cell_size);
        assert_eq!(s.increment(b"x", 5), Ok(5));
        let before = copy(&s);
        assert_eq!(s.increment(b"y", -1), Err(IncrementError::Underflow));
        assert_eq!(s, before);
    }
    // The total stops at 2^63 − 1 across items (test_total_count_overflow).
    let mut s = sized(100, 1, CellSize::Eight);
    assert_eq!(s.increment(b"a", i64::MAX), Ok(i64::MAX as u64));
    assert_eq!(s.increment(b"b", 1), Err(IncrementError::Overflow));
    assert_eq!(s.query(b"b"), 0);
}

/// test_decrby, test_decrby_underflow, test_incrby_rejection_undoes_partial_writes,
/// test_incrby_underflow_corrupt_counter.
#[test]
fn decrements_and_refusals_change_nothing_they_should_not() {
    let mut s = sketch(20, 5);
    assert_eq!(s.increment(b"a", 100), Ok(100));
    assert_eq!(s.increment(b"a", -40), Ok(60));
    assert_eq!(s.increment(b"a", -60), Ok(0));
    assert_eq!(s.increment(b"a", 0), Ok(0));
    assert_eq!(s.increment(b"a", -1), Err(IncrementError::Underflow));
    assert_eq!(s.count(), 0);
    // A refused item among others: the others still count.
    assert_eq!(s.increment(b"a", 10), Ok(10));
    assert_eq!(s.increment(b"a", -100), Err(IncrementError::Underflow));
    assert_eq!(s.increment(b"b", 3), Ok(3));
    assert_eq!(s.increment(b"a", -4), Ok(6));
    // A one-byte 2×4 sketch: a filler in some rows; an item sharing only some of them is
    // refused after the rows before the full one took it, and those rows are put back.
    let mut s = sized(2, 4, CellSize::One);
    assert_eq!(s.increment(b"filler", 200), Ok(200));
    let before = copy(&s);
    let refused = (0..64)
        .map(|i| format!("item{i}"))
        .find(|item| s.increment(item.as_bytes(), 100) == Err(IncrementError::Overflow))
        .unwrap();
    assert_ne!(s.query(refused.as_bytes()), 200);
    assert_eq!(s.query(b"filler"), 200);
    assert_eq!(s.increment(b"filler", 1), Ok(201));
    let _ = before;
    // A total below the counters (a hand-made file): subtracting follows the total.
    let mut fields = FieldWriter::default();
    for n in [1, 1, 0] {
        fields.unsigned(n);
    }
    fields.bytes(&7u32.to_le_bytes());
    let mut s = load(&mut LeReader(&fields.0), 0, &EAGER).unwrap();
    assert_eq!(s.increment(b"x", -7), Err(IncrementError::Underflow));
    assert_eq!(s.query(b"x"), 7);
}

/// test_incrby_deep_sketches: rows hashed in several passes undo in several passes.
#[test]
fn deep_sketches_refuse_and_restore_every_row() {
    for depth in [63, 64, 65, 130] {
        let mut s = sized(3, depth, CellSize::One);
        assert_eq!(s.increment(b"x", 250), Ok(250));
        let before = copy(&s);
        assert_eq!(s.increment(b"y", 10), Err(IncrementError::Overflow));
        assert_eq!(s, before, "depth {depth}");
        assert_eq!(s.increment(b"x", -250), Ok(0));
        assert!(s.counters().iter().all(|&b| b == 0));
    }
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
    let limited = eager_limited(40 + 4 * 100 - 1);
    let d = Dimensions::new(20, 5).unwrap();
    assert_eq!(CountMinSketch::new(d, &limited), Err(Error::OverLimit));
    let refusing = Memory {
        zeroed: |_| None,
        ..EAGER
    };
    assert_eq!(CountMinSketch::new(d, &refusing), Err(Error::OutOfMemory));
    assert_eq!(CountMinSketch::new(d, &EAGER).unwrap().memory_usage(), 440);
    // RedisBloom 8.12's figures: a 1000 × 5 sketch of one- and of eight-byte cells.
    let d = Dimensions::new(1000, 5).unwrap();
    let usage = |bytes| {
        let d = d.with_cell_size(CellSize::new(bytes).unwrap());
        CountMinSketch::new(d, &EAGER).unwrap().memory_usage()
    };
    assert_eq!((usage(1), usage(8)), (5_040, 40_040));
}

fn weighted(source: MergeSource<'_>, weight: i64) -> Weighted<'_> {
    Weighted { source, weight }
}

#[test]
fn merges_of_the_spec() {
    let mut a = sketch(3, 2);
    let mut b = sketch(3, 2);
    a.increment(b"x", 5).unwrap();
    b.increment(b"x", 7).unwrap();
    b.increment(b"y", 1).unwrap();
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
    // A total of 2^63 + 4 (from RedisBloom 2.8.2, whose CMS.INFO showed
    // -9223372036854775804) cannot be merged even with weight 1.
    let mut fields = FieldWriter::default();
    for n in [3, 2, (1 << 63) + 4] {
        fields.unsigned(n);
    }
    fields.bytes(&[0; 24]);
    let wrapped = load(&mut LeReader(&fields.0), 0, &EAGER).unwrap();
    assert_eq!(
        d.merge(&[weighted(MergeSource::Other(&wrapped), 1)]),
        Err(MergeError::Overflow)
    );
    let other = sketch(3, 3);
    assert_eq!(
        d.check_merge(&[weighted(MergeSource::Other(&other), 1)]),
        Err(MergeError::DimensionsDiffer)
    );
    // test_merge_cell_size_mismatch, and a two-byte destination's range.
    let narrow = sized(3, 2, CellSize::Two);
    assert_eq!(
        d.check_merge(&[weighted(MergeSource::Other(&narrow), 1)]),
        Err(MergeError::CellSizesDiffer)
    );
    let mut source = sized(3, 2, CellSize::Two);
    source.increment(b"x", 7).unwrap();
    let mut destination = sized(3, 2, CellSize::Two);
    let heavy = [weighted(MergeSource::Other(&source), 10_000)];
    assert_eq!(destination.merge(&heavy), Err(MergeError::Overflow));
    let fits = [weighted(MergeSource::Other(&source), 9_000)];
    assert_eq!(destination.merge(&fits), Ok(()));
    assert_eq!(destination.query(b"x"), 63_000);
}

#[test]
fn a_destination_among_its_sources_merges_in_place() {
    let mut d = sketch(4, 3);
    let mut a = sketch(4, 3);
    d.increment(b"p", 3).unwrap();
    a.increment(b"p", 1).unwrap();
    a.increment(b"q", 2).unwrap();
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
        s.increment(b"p", 4_000_000_000).unwrap();
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

/// An increment: mostly small and positive, sometimes negative, sometimes near a cell's
/// maximum or the total's.
fn amount(g: &mut Rng, cell_size: CellSize) -> i64 {
    let max = cell_size.max() as i64;
    match g.below(100) {
        0..60 => g.below(20) as i64,
        60..80 => -(g.below(20) as i64),
        80..90 => g.below(1000) as i64 - 500,
        90..97 => max - g.below(3) as i64,
        97 => g.below(1 << 40) as i64,
        98 => 0,
        _ => i64::MAX,
    }
}

/// The obvious sketch, to hold the real one to: counters as `i128`, an increment checked in
/// every row before any is changed.
struct Model {
    width: u64,
    depth: u64,
    max: i128,
    count: i128,
    cells: Vec<i128>,
}

impl Model {
    fn new(width: u64, depth: u64, cell_size: CellSize) -> Model {
        let cells = vec![0; (width * depth) as usize];
        let max = i128::from(cell_size.max());
        Model {
            width,
            depth,
            max,
            count: 0,
            cells,
        }
    }

    fn columns(&self, item: &[u8]) -> Vec<usize> {
        use crate::core::hash::murmur2_32;
        (0..self.depth)
            .map(|row| {
                (u64::from(murmur2_32(item, row as u32)) % self.width + row * self.width) as usize
            })
            .collect()
    }

    fn increment(&mut self, item: &[u8], amount: i64) -> Result<u64, IncrementError> {
        let amount = i128::from(amount);
        let refused = if amount > 0 {
            IncrementError::Overflow
        } else {
            IncrementError::Underflow
        };
        let cells = self.columns(item);
        let total = self.count + amount;
        if !(0..=i128::from(i64::MAX)).contains(&total) {
            return Err(refused);
        }
        if cells
            .iter()
            .any(|&c| !(0..=self.max).contains(&(self.cells[c] + amount)))
        {
            return Err(refused);
        }
        for &c in &cells {
            self.cells[c] += amount;
        }
        self.count = total;
        Ok(cells.iter().map(|&c| self.cells[c]).min().unwrap() as u64)
    }
}

/// Random runs over every cell size: the real sketch answers and holds what the model does,
/// merges included (their weighted sums checked as the model computes them).
#[test]
fn random_runs_match_the_model() {
    let mut g = Rng::new(11);
    for run in 0..120 {
        let cell_size = CellSize::new([1, 2, 4, 8][run % 4]).unwrap();
        let (width, depth) = (1 + g.below(12), 1 + g.below(70));
        let mut real = sized(width as i64, depth as i64, cell_size);
        let mut model = Model::new(width, depth, cell_size);
        for _ in 0..300 {
            let item = item(&mut g);
            if g.below(10) == 0 {
                // Self-merge with a weight: the model's cells times it, if all stay in range.
                let weight = g.below(4) as i64 - 1;
                let merged = real.merge(&[weighted(MergeSource::Destination, weight)]);
                let scaled: Vec<i128> = model
                    .cells
                    .iter()
                    .map(|&c| c * i128::from(weight))
                    .collect();
                let fits = scaled.iter().all(|c| (0..=model.max).contains(c))
                    && (0..=i128::from(i64::MAX)).contains(&(model.count * i128::from(weight)));
                assert_eq!(merged.is_ok(), fits, "run {run}");
                if fits {
                    model.cells = scaled;
                    model.count *= i128::from(weight);
                }
                continue;
            }
            let amount = amount(&mut g, cell_size);
            assert_eq!(
                real.increment(&item, amount),
                model.increment(&item, amount),
                "run {run}"
            );
            assert_eq!(
                real.query(&item),
                model.increment(&item, 0).unwrap(),
                "run {run}"
            );
        }
        assert_eq!(real.count() as i128, model.count);
        let bytes = cell_size.bytes() as usize;
        let cells: Vec<u8> = model
            .cells
            .iter()
            .flat_map(|&c| (c as u64).to_le_bytes()[..bytes].to_vec())
            .collect();
        assert_eq!(real.counters(), cells, "run {run}");
        assert_eq!(copy(&real), real);
    }
}

/// Active defragmentation moves the counters and changes nothing.
#[test]
fn relocation_moves_the_counters_and_keeps_the_sketch() {
    use crate::core::relocate::tests::relocates_unchanged;
    let mut s = sketch(50, 4);
    for i in 0..200u32 {
        s.increment(&i.to_le_bytes(), i64::from(i)).unwrap();
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
                let amount = g.below(5) as u32;
                let cells: Vec<usize> = (0..depth)
                    .map(|row| {
                        (u64::from(murmur2_32(&item, row as u32)) % width + row * width) as usize
                    })
                    .collect();
                for &cell in &cells {
                    model[cell] += amount;
                }
                let least = u64::from(cells.iter().map(|&cell| model[cell]).min().unwrap());
                assert_eq!(s.increment(&item, i64::from(amount)), Ok(least));
                assert_eq!(s.query(&item), least, "depth {depth}, width {width}");
            }
            let counters: Vec<u8> = model.iter().flat_map(|c| c.to_le_bytes()).collect();
            assert_eq!(s.counters(), counters, "depth {depth}, width {width}");
        }
    }
}
