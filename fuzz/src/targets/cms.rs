//! The Count-Min sketch's targets: RDB/DUMP payloads of both its data types (RedisBloom's and
//! sketches that forget), and the CMS.INITBYDIM/INITBYPROB, CMS.INCRBY and CMS.MERGE argument
//! parsers.

use redis_bf::commands::args::parse_integer;
use redis_bf::commands::cms::{self, InitArgs, MergeArgs};
use redis_bf::core::cms::window::{rdb as window_rdb, Shape, Window};
use redis_bf::core::cms::{
    rdb as cms_rdb, CellSize, CountMinSketch, MergeSource, Weighted, WindowSketch,
};
use redis_bf::core::rdb::FieldWriter;

use super::shared::{loaded_back, probe_items};
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
    check_sketch(sketch, data, true);
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
/// as RedisBloom counts, and merges only what it checked. A sketch not checked `whole`
/// (`cms_args`' large ones) is checked by its counts only: the rest copies its array each time.
fn check_sketch(mut sketch: CountMinSketch, data: &[u8], whole: bool) {
    if whole {
        let fields = saved(&sketch);
        let again = loaded_back(&fields, cms_rdb::ENCODING_VERSION, cms_rdb::load);
        assert_eq!(again, sketch);
        assert_eq!(sketch.try_clone().as_ref(), Ok(&sketch));
    }
    let max = sketch.cell_size().max() as i64;
    for (i, item) in probe_items(data).iter().enumerate() {
        let before = sketch.query(item);
        let amount = [0, 1, 7, -1, -7, max, i64::MAX, -max][i % 8];
        let count = sketch.count();
        let bytes = whole.then(|| saved(&sketch));
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
            Err(_) => {
                assert_eq!(
                    sketch.count(),
                    count,
                    "a refused increment changed the total"
                );
                assert_eq!(sketch.query(item), before, "a refused increment changed it");
                if let Some(bytes) = bytes {
                    assert_eq!(saved(&sketch), bytes, "a refused increment changed it");
                }
            }
        }
    }
    if !whole {
        return;
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

/// A `DUMP` payload of `cm-window`, through `cms::window::rdb::load`: a loaded sketch saves the
/// fields it was read from and its size is its shape's; reads at any time change nothing and
/// never grow as time passes; an accepted increment is in the estimate it answers; and it
/// merges with itself exactly when the check passes.
pub fn cms_window(data: &[u8]) {
    let Some((module, reader)) = dump::open(data) else {
        return;
    };
    if &module.name != b"cm-window" {
        return;
    }
    let mut input = Recording::new(reader);
    let Ok(sketch) = window_rdb::load(&mut input, module.encver, &bounded()) else {
        return;
    };
    assert_eq!(
        window_saved(&sketch),
        input.fields.0,
        "it saves other fields"
    );
    assert_eq!(Some(sketch.memory_usage()), sketch.shape().memory_usage());
    assert!(sketch.memory_usage() <= LIMIT);
    check_window_sketch(sketch, data);
}

fn window_saved(sketch: &WindowSketch) -> Vec<u8> {
    let mut out = FieldWriter::default();
    window_rdb::save(sketch, &mut out);
    out.0
}

/// The largest sketch `cms_args` checks whole (each check copies its array many times).
const SMALL_SKETCH: u64 = 64 * 1024;

/// Times a sketch is read and written at: the epoch, now-ish, far ahead, the end of time.
const TIMES: [u64; 4] = [0, 1_700_000_000_000, 1 << 50, u64::MAX];

fn check_window_sketch(mut sketch: WindowSketch, data: &[u8]) {
    assert_eq!(sketch.try_clone().as_ref(), Ok(&sketch));
    let items = probe_items(data);
    let before = window_saved(&sketch);
    for (i, item) in items.iter().enumerate() {
        let now = TIMES[i % TIMES.len()];
        let later = sketch.query(item, now.saturating_add(1 << 41));
        assert!(later <= sketch.query(item, now), "a later read found more");
        sketch.window_count(now);
    }
    assert_eq!(window_saved(&sketch), before, "a read changed the sketch");
    for (i, item) in items.iter().enumerate() {
        let amount = [0, 1, 7, u64::from(u32::MAX)][i % 4];
        let now = (i % 5 != 4).then(|| TIMES[i % TIMES.len()]);
        if let Ok(estimate) = sketch.increment(item, amount, now) {
            assert!(estimate >= amount, "an increment is not in its estimate");
        }
    }
    let again = loaded_back(
        &window_saved(&sketch),
        window_rdb::ENCODING_VERSION,
        window_rdb::load,
    );
    assert_eq!(again, sketch);
    for weight in [1, 2, -1] {
        let sources = [
            Weighted {
                source: MergeSource::Destination,
                weight,
            },
            Weighted {
                source: MergeSource::Other(&again),
                weight: 1,
            },
        ];
        let before = window_saved(&sketch);
        let checked = sketch.check_merge(&sources, TIMES[1]);
        assert_eq!(sketch.merge(&sources, TIMES[1]), checked);
        if checked.is_err() {
            assert_eq!(window_saved(&sketch), before, "a refused merge changed it");
        }
    }
}

/// A command line, one argument per line, through the CMS argument parsers.
pub fn cms_args(data: &[u8]) {
    let args: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if matches!(args.len(), 4 | 6 | 8 | 10) {
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
    let Ok(InitArgs { dimensions, window }) = cms::parse_init(args) else {
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
    let option = |name: &str| {
        args[4..]
            .chunks(2)
            .find(|pair| pair[0].eq_ignore_ascii_case(name.as_bytes()))
            .and_then(|pair| parse_integer(pair[1]))
    };
    if let Some((window, slots)) = window {
        assert_eq!(dimensions.cell_size(), CellSize::DEFAULT);
        let (keyword, length) = match window {
            Window::Count(n) => ("WINDOW", n),
            Window::Time(ms) => ("TIMESPAN", ms),
        };
        assert_eq!(option(keyword), Some(length as i64));
        assert_eq!(option("SLOTS").unwrap_or(4), slots as i64);
        take_granted();
        let made = Shape::new(width, depth, window, slots)
            .map(|shape| WindowSketch::new(shape, TIMES[1], &bounded()));
        let granted = take_granted();
        match made {
            Some(Ok(sketch)) => {
                assert!(sketch.memory_usage() <= LIMIT);
                assert!(granted <= sketch.memory_usage());
                // The whole check clears and copies the array many times: on the small
                // sketches only, so that the parsers keep their pace (`cms_window` checks
                // sketches of every size).
                if sketch.memory_usage() <= SMALL_SKETCH {
                    check_window_sketch(sketch, args[1]);
                }
            }
            _ => assert_eq!(granted, 0, "a refused sketch was given memory"),
        }
        return;
    }
    assert_eq!(
        option("CELL_SIZE").unwrap_or(4),
        dimensions.cell_size().bytes() as i64
    );
    take_granted();
    let made = CountMinSketch::new(dimensions, &bounded());
    let granted = take_granted();
    match made {
        Ok(sketch) => {
            assert_eq!(sketch.memory_usage(), STRUCT_BYTES + granted);
            assert!(sketch.memory_usage() <= LIMIT);
            // As for the sketches that forget above: whole on the small ones only.
            let whole = sketch.memory_usage() <= SMALL_SKETCH;
            check_sketch(sketch, args[1], whole);
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
