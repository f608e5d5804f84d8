//! Top-K's targets: RDB/DUMP payloads (RedisBloom's, with pointers, and ours; Top-Ks that
//! forget), and the TOPK.RESERVE, TOPK.INCRBY and TOPK.LIST argument parsers.

use redis_bf::commands::args::parse_integer;
use redis_bf::commands::topk::{self, ReserveArgs};
use redis_bf::core::rdb::FieldWriter;
use redis_bf::core::topk::window::{rdb as window_rdb, Shape, Window};
use redis_bf::core::topk::{rdb as topk_rdb, TopK, WindowTopK};

use super::shared::{loaded_back, probe_items};
use crate::dump::{self, Recording};
use crate::memory::{bounded, take_granted, LIMIT};

/// What `MEMORY USAGE` counts besides the buckets and the heap (RedisBloom's `TopKMemUsage`).
const STRUCT_BYTES: u64 = 2088;

/// A `DUMP` payload of RedisBloom's Top-K type, through `topk::rdb::load`.
pub fn topk_rdb(data: &[u8]) {
    let Some((module, reader)) = dump::open(data) else {
        return;
    };
    if &module.name != b"TopK-TYPE" {
        return;
    }
    let mut input = Recording::new(reader);
    let Ok(loaded) = topk_rdb::load(&mut input, module.encver, &bounded()) else {
        return;
    };
    let p = *loaded.params();
    let (k, buckets) = (
        u64::from(p.k()),
        u64::from(p.width()) * u64::from(p.depth()),
    );
    assert_eq!(loaded.memory_usage(), STRUCT_BYTES + 8 * buckets + 24 * k);
    assert!(loaded.memory_usage() <= LIMIT);
    // Buckets, heap and one string per slot: nothing else was read.
    assert!(input.string_bytes >= 8 * buckets + 25 * k);
    check_topk(loaded, data, false);
}

fn saved(topk: &TopK) -> Vec<u8> {
    let mut out = FieldWriter::default();
    topk_rdb::save(topk, &mut out);
    out.0
}

/// What every Top-K must satisfy: it loads back from what it saves (pointers zeroed, items
/// whole), copies equal, its list is sorted and within k. In one its commands made (`made`)
/// — not one loaded from a payload, whose heap may give an item another item's fingerprint,
/// or hold it twice — listed items are found and expelled ones are gone.
fn check_topk(mut topk: TopK, data: &[u8], made: bool) {
    let fields = saved(&topk);
    let again = loaded_back(&fields, topk_rdb::ENCODING_VERSION, topk_rdb::load);
    assert_eq!(again, topk);
    assert_eq!(saved(&again), fields);
    assert_eq!(topk.try_clone().as_ref(), Ok(&topk));
    check_list(&topk, made);
    let usage = topk.memory_usage();
    for (i, item) in probe_items(data).iter().enumerate() {
        let increment = [1, 0, 3, 100_000][i % 4];
        let expelled = topk.add(item, increment).expect("an item's copy");
        if let (Some(expelled), true) = (expelled, made) {
            assert!(!topk.query(expelled.item()) || expelled.item() == item.as_slice());
        }
        topk.count(item);
        check_list(&topk, made);
    }
    assert_eq!(topk.memory_usage(), usage, "adding items changed the size");
}

fn check_list(topk: &TopK, made: bool) {
    let listed = topk.list().expect("a list");
    assert!(listed.len() <= topk.params().k() as usize);
    assert!(listed.windows(2).all(|w| w[0].count >= w[1].count));
    for entry in &listed {
        assert!(entry.count > 0);
        assert!(
            !made || topk.query(entry.item),
            "a listed item is not found"
        );
    }
}

/// A `DUMP` payload of `tk-window`, through `topk::window::rdb::load`: a loaded Top-K saves
/// the fields it was read from, its size is its shape's; reads at any time change nothing, its
/// list is sorted, within k and free of zero counts, and never counts more later; writes keep
/// its size, and it loads back equal after them.
pub fn topk_window(data: &[u8]) {
    let Some((module, reader)) = dump::open(data) else {
        return;
    };
    if &module.name != b"tk-window" {
        return;
    }
    let mut input = Recording::new(reader);
    let Ok(topk) = window_rdb::load(&mut input, module.encver, &bounded()) else {
        return;
    };
    assert_eq!(window_saved(&topk), input.fields.0, "it saves other fields");
    assert_eq!(Some(topk.memory_usage()), topk.shape().memory_usage());
    assert!(topk.memory_usage() <= LIMIT);
    check_window_topk(topk, data);
}

fn window_saved(topk: &WindowTopK) -> Vec<u8> {
    let mut out = FieldWriter::default();
    window_rdb::save(topk, &mut out);
    out.0
}

/// Times a Top-K is read and written at: the epoch, now-ish, far ahead, the end of time.
const TIMES: [u64; 4] = [0, 1_700_000_000_000, 1 << 50, u64::MAX];

fn check_window_topk(mut topk: WindowTopK, data: &[u8]) {
    assert_eq!(topk.try_clone().as_ref(), Ok(&topk));
    let items = probe_items(data);
    let before = window_saved(&topk);
    for (i, item) in items.iter().enumerate() {
        let now = TIMES[i % TIMES.len()];
        let later = now.saturating_add(1 << 41);
        assert!(
            topk.count(item, later) <= topk.count(item, now),
            "a later read found more"
        );
        topk.query(item, now);
        let listed = topk.list(now).expect("a list");
        assert!(listed.len() <= topk.shape().params.k() as usize);
        assert!(listed.windows(2).all(|w| w[0].count >= w[1].count));
        assert!(listed.iter().all(|entry| entry.count > 0));
        topk.window_total(now);
    }
    assert_eq!(window_saved(&topk), before, "a read changed the Top-K");
    let usage = topk.memory_usage();
    for (i, item) in items.iter().enumerate() {
        let increment = [1, 0, 3, 100_000][i % 4];
        let now = (i % 5 != 4).then(|| TIMES[i % TIMES.len()]);
        topk.add(item, increment, now).expect("an item's copy");
    }
    assert_eq!(topk.memory_usage(), usage, "adding items changed the size");
    let again = loaded_back(
        &window_saved(&topk),
        window_rdb::ENCODING_VERSION,
        window_rdb::load,
    );
    assert_eq!(again, topk);
}

/// A command line, one argument per line, through the TOPK argument parsers.
pub fn topk_args(data: &[u8]) {
    let args: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if matches!(args.len(), 3 | 5 | 6 | 7 | 8 | 10) {
        check_reserve(&args);
    }
    if args.len() >= 4 && args.len().is_multiple_of(2) {
        let increments: Vec<Option<i64>> = args[3..]
            .iter()
            .step_by(2)
            .map(|a| parse_integer(a))
            .collect();
        let valid = |n: &Option<i64>| n.is_some_and(|n| (0..=100_000).contains(&n));
        match topk::parse_incrby(&args) {
            Ok(pairs) => {
                assert_eq!(pairs.len(), increments.len());
                for ((_, increment), parsed) in pairs.zip(&increments) {
                    assert_eq!(Some(i64::from(increment)), *parsed);
                }
            }
            Err(_) => assert!(!increments.iter().all(valid)),
        }
    }
    if args.len() == 2 || args.len() == 3 {
        let with_count = topk::parse_list(&args);
        if let Some(word) = args.get(2) {
            let plain = !word.contains(&0) && word.len() <= 9;
            if plain {
                assert_eq!(
                    with_count.is_ok(),
                    b"WITHCOUNT"[..word.len()].eq_ignore_ascii_case(word)
                );
            }
        } else {
            assert_eq!(with_count, Ok(false));
        }
    }
}

fn check_reserve(args: &[&[u8]]) {
    let Ok(ReserveArgs { params, window }) = topk::parse_reserve(args) else {
        return;
    };
    assert_eq!(parse_integer(args[2]), Some(i64::from(params.k())));
    assert!(params.width() >= 1 && params.depth() >= 1);
    assert!(params.decay() > 0.0 && params.decay() <= 1.0);
    take_granted();
    if let Some((window, slots)) = window {
        let first = if args.len().is_multiple_of(2) { 6 } else { 3 };
        let (keyword, length) = match window {
            Window::Count(n) => (&b"WINDOW"[..], n),
            Window::Time(ms) => (&b"TIMESPAN"[..], ms),
        };
        let given = args[first..]
            .chunks(2)
            .find(|pair| pair[0].eq_ignore_ascii_case(keyword))
            .and_then(|pair| parse_integer(pair[1]));
        assert_eq!(given, Some(length as i64));
        let made = Shape::new(params, window, slots)
            .map(|shape| WindowTopK::new(shape, TIMES[1], &bounded()));
        let granted = take_granted();
        match made {
            Some(Ok(topk)) => {
                assert!(granted <= topk.memory_usage());
                check_window_topk(topk, args[1]);
            }
            _ => assert_eq!(granted, 0, "a refused Top-K was given memory"),
        }
        return;
    }
    let made = TopK::new(params, &bounded());
    let granted = take_granted();
    match made {
        Ok(topk) => {
            assert_eq!(topk.memory_usage(), STRUCT_BYTES + granted);
            check_topk(topk, args[1], true);
        }
        Err(_) => assert_eq!(granted, 0, "a refused Top-K was given memory"),
    }
}
