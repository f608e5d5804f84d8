//! The Count-Min sketch's targets: RDB/DUMP payloads, and the CMS.INITBYDIM/INITBYPROB,
//! CMS.INCRBY and CMS.MERGE argument parsers.

use redis_bf::commands::args::parse_integer;
use redis_bf::commands::cms::{self, MergeArgs};
use redis_bf::core::cms::{rdb as cms_rdb, CellSize, CountMinSketch, MergeSource, Weighted};
use redis_bf::core::le::LeReader;
use redis_bf::core::rdb::FieldWriter;

use super::probe_items;
use crate::dump::{self, Recording};
use crate::memory::{bounded, take_granted, LIMIT};

/// What `MEMORY USAGE` counts besides the counters (RedisBloom 8.12's `CMSMemUsage`).
const STRUCT_BYTES: u64 = 40;

/// A `DUMP` payload of RedisBloom's Count-Min sketch type, through `cms::rdb::load`.
pub fn cms_rdb(data: &[u8]) {
    let Some((module, reader)) = dump::open(data) else {
        return;
    };
    if &module.name != b"CMSk-TYPE" {
        return;
    }
    let mut input = Recording::new(reader);
    let Ok(sketch) = cms_rdb::load(&mut input, module.encver, &bounded()) else {
        return;
    };
    // Its size is its counters and its struct; it saves exactly what it was loaded from, in
    // the encoding it was loaded from.
    assert_eq!(sketch.memory_usage(), STRUCT_BYTES + input.string_bytes);
    let cells = sketch.width() * sketch.depth();
    assert_eq!(input.string_bytes, sketch.cell_size().bytes() * cells);
    assert!(sketch.memory_usage() <= LIMIT);
    assert_eq!(
        saved_in(&sketch, module.encver),
        input.fields.0,
        "it saves other fields"
    );
    if module.encver == cms_rdb::LEGACY_ENCODING_VERSION {
        assert_eq!(sketch.cell_size(), CellSize::Four);
    }
    check_sketch(sketch, data);
}

fn saved_in(sketch: &CountMinSketch, encver: i32) -> Vec<u8> {
    let mut out = FieldWriter::default();
    cms_rdb::save(sketch, &mut out, encver);
    out.0
}

fn saved(sketch: &CountMinSketch) -> Vec<u8> {
    saved_in(sketch, cms_rdb::ENCODING_VERSION)
}

/// What every sketch must satisfy: it loads back from what it saves, copies equal, counts
/// as RedisBloom counts, and merges only what it checked.
fn check_sketch(mut sketch: CountMinSketch, data: &[u8]) {
    let fields = saved(&sketch);
    let again = cms_rdb::load(
        &mut LeReader(&fields),
        cms_rdb::ENCODING_VERSION,
        &bounded(),
    )
    .expect("a sketch does not load from what it saves");
    assert_eq!(again, sketch);
    assert_eq!(sketch.try_clone().as_ref(), Ok(&sketch));
    let max = sketch.cell_size().max() as i64;
    for (i, item) in probe_items(data).iter().enumerate() {
        let before = sketch.query(item);
        let amount = [0, 1, 7, -1, -7, max, i64::MAX, -max][i % 8];
        let (count, bytes) = (sketch.count(), saved(&sketch));
        match sketch.increment(item, amount) {
            Ok(n) => {
                // Every counter moved by the amount, so their least did too.
                assert_eq!(sketch.query(item), n);
                assert_eq!(i128::from(n), i128::from(before) + i128::from(amount));
                assert_eq!(
                    i128::from(sketch.count()),
                    i128::from(count) + i128::from(amount)
                );
                assert!(n <= sketch.cell_size().max());
            }
            Err(_) => assert_eq!(saved(&sketch), bytes, "a refused increment changed it"),
        }
    }
    // A merge changes the sketch exactly when its check passes.
    let copy = sketch.try_clone().expect("a copy");
    for weight in [2, -1, 0, i64::MAX] {
        let sources = [
            Weighted {
                source: MergeSource::Destination,
                weight,
            },
            Weighted {
                source: MergeSource::Other(&copy),
                weight: 1,
            },
        ];
        let before = saved(&sketch);
        let checked = sketch.check_merge(&sources);
        assert_eq!(sketch.merge(&sources), checked);
        if checked.is_err() {
            assert_eq!(saved(&sketch), before, "a refused merge changed the sketch");
        }
    }
}

/// A command line, one argument per line, through the CMS argument parsers.
pub fn cms_args(data: &[u8]) {
    let args: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if args.len() == 4 || args.len() == 6 {
        check_init(&args);
    }
    if args.len() >= 4 && args.len().is_multiple_of(2) {
        check_incrby(&args);
    }
    if args.len() >= 4 {
        check_merge(&args);
    }
}

fn check_init(args: &[&[u8]]) {
    let Ok(dimensions) = cms::parse_init(args) else {
        return;
    };
    let (width, depth) = (dimensions.width(), dimensions.depth());
    assert!(
        width >= 1
            && depth >= 1
            && width
                .checked_mul(depth)
                .is_some_and(|n| n <= i64::MAX as u64)
    );
    if !args[0].eq_ignore_ascii_case(b"cms.initbyprob") {
        assert_eq!(parse_integer(args[2]), Some(width as i64));
        assert_eq!(parse_integer(args[3]), Some(depth as i64));
    }
    let cell_bytes = match args.get(4..6) {
        Some([keyword, value]) => {
            assert!(keyword.eq_ignore_ascii_case(b"CELL_SIZE"));
            parse_integer(value)
        }
        _ => Some(4),
    };
    assert_eq!(cell_bytes, Some(dimensions.cell_size().bytes() as i64));
    take_granted();
    let made = CountMinSketch::new(dimensions, &bounded());
    let granted = take_granted();
    match made {
        Ok(sketch) => {
            assert_eq!(sketch.memory_usage(), STRUCT_BYTES + granted);
            assert!(sketch.memory_usage() <= LIMIT);
            check_sketch(sketch, args[1]);
        }
        Err(_) => assert_eq!(granted, 0, "a refused sketch was given memory"),
    }
}

fn check_incrby(args: &[&[u8]]) {
    let amounts: Vec<Option<i64>> = args[3..]
        .iter()
        .step_by(2)
        .map(|a| parse_integer(a))
        .collect();
    match cms::parse_incrby(args) {
        Ok(pairs) => {
            assert_eq!(pairs.len(), amounts.len());
            for ((item, amount), (i, parsed)) in pairs.zip(amounts.iter().enumerate()) {
                assert_eq!(item, args[2 + 2 * i]);
                assert_eq!(Some(amount), *parsed);
            }
        }
        Err(_) => assert!(amounts.iter().any(|a| !a.is_some_and(|n| n != i64::MIN))),
    }
}

fn check_merge(args: &[&[u8]]) {
    let Ok(shape) = cms::parse_merge(args) else {
        return;
    };
    let MergeArgs { sources, weighted } = shape;
    assert!(sources >= 1);
    assert_eq!(parse_integer(args[2]), Some(sources as i64));
    if weighted {
        assert!(args[3 + sources].eq_ignore_ascii_case(b"WEIGHTS"));
        assert_eq!(args.len(), 4 + 2 * sources);
    } else {
        assert_eq!(args.len(), 3 + sources);
    }
    assert!(!args[3..3 + sources]
        .iter()
        .any(|a| a.eq_ignore_ascii_case(b"WEIGHTS")));
    for i in 0..sources {
        let weight = cms::merge_weight(args, shape, i).ok();
        let expected = if weighted {
            parse_integer(args[4 + sources + i])
        } else {
            Some(1)
        };
        assert_eq!(weight, expected);
    }
}
