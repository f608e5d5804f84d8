//! BF.MERGE (ours: `src/commands/bf/merge.rs`): the union of scalable filters of one shape,
//! against a model of the items added (no item lost, each counted once, the error rate kept
//! within capacity), every refusal with nothing changed, OVERFILL, and the merge as a write:
//! replicas, the AOF, reloads, keyspace events, WATCH and the family's totals.

mod common;

use common::*;

/// `BF.MADD key <prefix><i>…` for `i` in `range`, in one command.
fn add_items(c: &mut Conn, key: &str, prefix: &str, range: std::ops::Range<u32>) {
    let items: Vec<String> = range.map(|i| format!("{prefix}{i}")).collect();
    let mut line = vec!["BF.MADD", key];
    line.extend(items.iter().map(String::as_str));
    assert!(!c.call(&line).is_error());
}

/// How many of `items` the filter at `key` finds (BF.MEXISTS).
fn found(c: &mut Conn, key: &str, items: &[String]) -> usize {
    let mut line = vec!["BF.MEXISTS", key];
    line.extend(items.iter().map(String::as_str));
    let replies = c.call(&line).array();
    replies.iter().filter(|r| r.int() == 1).count()
}

fn numbered(prefix: &str, range: std::ops::Range<u32>) -> Vec<String> {
    range.map(|i| format!("{prefix}{i}")).collect()
}

#[test]
fn a_union_finds_every_item_once_and_keeps_the_error_rate() {
    let (_server, mut c) = Server::start_with_conn();
    for layout in ["CLASSIC", "FAST"] {
        let [a, b, d] = [0, 1, 2].map(|n| format!("{layout}:{n}"));
        for key in [&a, &b] {
            let line = format!("BF.INSERT {key} CAPACITY 20000 NONSCALING LAYOUT {layout} ITEMS x");
            assert!(!c.cmd(&line).is_error(), "{line}");
        }
        // 4,000 items each, 2,000 of them in both: 6,001 distinct with "x".
        add_items(&mut c, &a, "a", 0..2000);
        add_items(&mut c, &b, "b", 0..2000);
        add_items(&mut c, &a, "shared", 0..2000);
        add_items(&mut c, &b, "shared", 0..2000);
        let merge = format!("BF.MERGE {d} 2 {a} {b}");
        assert_eq!(c.cmd(&merge), ok());
        let members = [
            numbered("a", 0..2000),
            numbered("b", 0..2000),
            numbered("shared", 0..2000),
        ];
        for items in &members {
            assert_eq!(found(&mut c, &d, items), items.len(), "{layout}: none lost");
        }
        // Counted once each, within the estimate's spread (about 0.5% here).
        let card = c.call(&["BF.CARD", &d]).int();
        assert!((5900..=6100).contains(&card), "{layout}: {card}");
        // 30% of its capacity: far under the 1% it was made with.
        let strangers = numbered("stranger", 0..50_000);
        let false_positives = found(&mut c, &d, &strangers);
        assert!(false_positives <= 500, "{layout}: {false_positives}");
        // The destination among its sources, a source named twice: the same union.
        let again = format!("BF.MERGE {d} 3 {a} {d} {a}");
        assert_eq!(c.cmd(&again), ok());
        assert_eq!(c.call(&["BF.CARD", &d]).int(), card);
        let info = c.call(&["BF.INFO", &d]);
        assert_eq!(bf::info_value(&info, "Capacity"), int(20000));
    }
    // RESP3 answers alike.
    c.cmd("HELLO 3");
    assert_eq!(c.cmd("BF.MERGE CLASSIC:2 1 CLASSIC:0"), ok());
}

#[test]
fn refused_merges_name_the_difference_and_change_nothing() {
    let (_server, mut c) = Server::start_with_conn();
    for line in [
        "BF.RESERVE d 0.01 1000 NONSCALING",
        "BF.RESERVE same 0.01 1000 NONSCALING",
        "BF.RESERVE fast 0.01 1000 NONSCALING LAYOUT FAST",
        "BF.RESERVE scaling 0.01 1000",
        "BF.RESERVE scaling4 0.01 1000 EXPANSION 4",
        "BF.RESERVE bigger 0.01 2000 NONSCALING",
        "BF.RESERVE stricter 0.001 1000 NONSCALING",
        "BF.RESERVE window 0.01 1000 WINDOW",
        "BF.INSERT valkey CAPACITY 1000 TIGHTENING 0.5 ITEMS a",
        "SET string x",
    ] {
        assert!(!c.cmd(line).is_error(), "{line}");
    }
    add_items(&mut c, "d", "d", 0..700);
    add_items(&mut c, "same", "s", 0..700);
    let table = [
        ("BF.MERGE d", arity_error("BF.MERGE d")),
        ("BF.MERGE d 2 same", arity_error("BF.MERGE d 2 same")),
        ("BF.MERGE d 0 same", err("ERR numkeys must be a positive integer")),
        ("BF.MERGE d x same", err("ERR numkeys must be a positive integer")),
        ("BF.MERGE d 1 same FOO", err("Unknown argument received")),
        ("BF.MERGE string 1 same", err(WRONGTYPE)),
        ("BF.MERGE d 1 missing", err("ERR not found")),
        ("BF.MERGE d 2 same string", err(WRONGTYPE)),
        ("BF.MERGE d 1 window", err("ERR filters that forget (WINDOW, TIMESPAN) cannot be merged")),
        ("BF.MERGE window 1 d", err("ERR filters that forget (WINDOW, TIMESPAN) cannot be merged")),
        ("BF.MERGE d 1 valkey", err(KINDS_DIFFER)),
        ("BF.MERGE valkey 1 d", err(KINDS_DIFFER)),
        ("BF.MERGE new 2 valkey d", err(KINDS_DIFFER)),
        ("BF.MERGE d 1 fast", err("ERR filters differ in layout (CLASSIC or FAST)")),
        ("BF.MERGE d 1 scaling", err("ERR filters differ in scaling (NONSCALING)")),
        ("BF.MERGE scaling 1 scaling4", err("ERR filters differ in expansion")),
        ("BF.MERGE d 1 bigger", err("ERR filters differ in capacity")),
        ("BF.MERGE d 1 stricter", err("ERR filters differ in error rate")),
        // 700 and 700 distinct items: 1,400 in a filter of 1,000.
        (
            "BF.MERGE d 1 same",
            err("ERR the union would pass a sub-filter's capacity, and so its error rate (OVERFILL merges all the same)"),
        ),
        // A missing destination named as a source is a missing source.
        ("BF.MERGE new 2 same new", err("ERR not found")),
    ];
    // Past the per-filter limit: refused before the union is allocated.
    refusals_change_nothing(
        &mut c,
        &["d", "same", "scaling", "window", "valkey", "new"],
        &table,
        (
            "BF.MERGE new 1 same",
            "ERR operation exceeds bloom object memory limit",
        ),
    );
}

const KINDS_DIFFER: &str =
    "ERR filters differ in kind (RedisBloom's or valkey-bloom's): they cannot be merged";

/// valkey-bloom's filters merge with their own kind, of one seed; its format keeps every
/// sub-filter but the newest full, and cannot say one is past its capacity.
#[test]
fn valkey_bloom_filters_merge_with_their_own_kind() {
    let (_server, mut c) = Server::start_with_conn();
    // Filters merged must share a seed: new ones draw theirs at random unless given one.
    let insert = |key: &str, seed: &str| {
        format!("BF.INSERT {key} CAPACITY 1000 TIGHTENING 0.5 SEED {seed} ITEMS x")
    };
    // Two different halves: a seed of two equal halves hashes every item to one probe twice.
    const SEED: &str = "0123456789abcdefghijklmnopqrstuv";
    for key in ["a", "b", "c"] {
        assert!(!c.cmd(&insert(key, SEED)).is_error());
    }
    let other_seed = insert("seeded", "vutsrqponmlkjihgfedcba9876543210");
    assert!(!c.cmd(&other_seed).is_error());
    add_items(&mut c, "a", "a", 0..300);
    add_items(&mut c, "b", "b", 0..300);
    add_items(&mut c, "c", "c", 0..800);
    assert_eq!(c.cmd("BF.MERGE u 2 a b"), ok());
    assert_eq!(c.cmd("TYPE u"), simple("bloomfltr"));
    for (prefix, key) in [("a", "a"), ("b", "b")] {
        let items = numbered(prefix, 0..300);
        assert_eq!(found(&mut c, "u", &items), 300, "{key}'s items");
    }
    let card = c.cmd("BF.CARD u").int();
    assert!((585..=615).contains(&card), "{card}");
    // 601 and 801 distinct items in a filter of 1,000: past it, with OVERFILL too.
    for line in ["BF.MERGE u 1 c", "BF.MERGE u 1 c OVERFILL"] {
        assert!(c.cmd(line).is_error(), "{line}");
    }
    assert_eq!(
        c.cmd("BF.MERGE u 1 seeded"),
        err("ERR filters differ in hashing")
    );
    // A scaled object and one holding its first items: the union keeps its shape and loads.
    add_items(&mut c, "a", "a", 300..1500);
    assert_eq!(c.cmd("BF.MERGE scaled 2 b2 a"), err("ERR not found"));
    assert!(!c.cmd(&insert("b2", SEED)).is_error());
    add_items(&mut c, "b2", "a", 0..200);
    assert_eq!(c.cmd("BF.MERGE scaled 2 b2 a"), ok());
    let items = numbered("a", 0..1500);
    assert_eq!(found(&mut c, "scaled", &items), 1500);
    let dumps = |c: &mut Conn| ["u", "scaled"].map(|k| c.call(&["DUMP", k]));
    let before = dumps(&mut c);
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(dumps(&mut c), before, "DEBUG RELOAD");
    assert_eq!(c.cmd("BF.CARD scaled"), c.cmd("BF.CARD a"));
}

#[test]
fn overfill_merges_past_capacity_and_info_says_so() {
    let (_server, mut c) = Server::start_with_conn();
    for key in ["a", "b"] {
        assert_eq!(c.call(&["BF.RESERVE", key, "0.01", "1000"]), ok());
    }
    add_items(&mut c, "a", "a", 0..700);
    add_items(&mut c, "b", "b", 0..700);
    let info = c.cmd("BF.INFO a");
    assert_eq!(
        info.array().len(),
        10,
        "a filter within capacity shows RedisBloom's fields"
    );
    assert_eq!(c.cmd("BF.MERGE a 1 b OVERFILL"), ok());
    let info = c.cmd("BF.INFO a");
    assert_eq!(bf::info_value(&info, "Sub-filters past capacity"), int(1));
    let card = c.cmd("BF.CARD a").int();
    assert!((1350..=1450).contains(&card), "{card}");
    let all = [numbered("a", 0..700), numbered("b", 0..700)].concat();
    assert_eq!(found(&mut c, "a", &all), all.len());
    // The full sub-filter takes no more: a new item opens a second one.
    assert_eq!(c.cmd("BF.ADD a new"), int(1));
    assert_eq!(
        bf::info_value(&c.cmd("BF.INFO a"), "Number of filters"),
        int(2)
    );
}

#[test]
fn scaled_filters_bring_their_sub_filters() {
    let (_server, mut c) = Server::start_with_conn();
    for key in ["big", "small", "other"] {
        assert_eq!(c.call(&["BF.RESERVE", key, "0.01", "100"]), ok());
    }
    add_items(&mut c, "big", "i", 0..1000);
    add_items(&mut c, "small", "i", 0..50);
    add_items(&mut c, "other", "o", 0..1000);
    let filters =
        |c: &mut Conn, key: &str| bf::info_value(&c.call(&["BF.INFO", key]), "Number of filters");
    let links = filters(&mut c, "big");
    assert!(links.int() >= 4, "{links:?}");
    // The small filter holds the big one's first items: nothing new for the first sub-filter.
    assert_eq!(c.cmd("BF.MERGE union 2 small big"), ok());
    assert_eq!(filters(&mut c, "union"), links);
    assert_eq!(found(&mut c, "union", &numbered("i", 0..1000)), 1000);
    // Two scaled filters of distinct items: each full first sub-filter would take the other's.
    assert!(c.cmd("BF.MERGE union 1 other").is_error());
}

#[test]
fn merges_replicate_persist_notify_and_count() {
    let primary = Server::with_aof();
    let mut c = primary.conn();
    let (_replica, mut r) = Server::synced_replica_of(&primary);
    for key in ["a", "b", "f1", "f2"] {
        let layout = if key.starts_with('f') {
            "FAST"
        } else {
            "CLASSIC"
        };
        let line = format!("BF.INSERT {key} CAPACITY 5000 NONSCALING LAYOUT {layout} ITEMS x");
        assert!(!c.cmd(&line).is_error());
    }
    add_items(&mut c, "a", "a", 0..1500);
    add_items(&mut c, "b", "b", 0..1500);
    add_items(&mut c, "f1", "a", 0..1500);
    add_items(&mut c, "f2", "b", 0..1500);
    let objects = |c: &mut Conn| info_field(c, "bf", "bf_bloom_num_objects");
    let before = objects(&mut c);
    for line in ["BF.MERGE d 2 a b", "BF.MERGE a 1 b", "BF.MERGE fd 2 f1 f2"] {
        assert_eq!(c.cmd(line), ok(), "{line}");
    }
    assert_eq!(
        objects(&mut c).parse::<u64>().unwrap(),
        before.parse::<u64>().unwrap() + 2
    );
    wait_in_sync(&mut c, &mut r);
    let keys = ["a", "b", "d", "f1", "f2", "fd"];
    let dumps = |c: &mut Conn| keys.map(|k| c.call(&["DUMP", k]));
    let held = dumps(&mut c);
    assert_eq!(dumps(&mut r), held, "the replica holds the same bytes");
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(dumps(&mut c), held, "DEBUG RELOAD");
    drop(c);
    // The AOF replays the merges.
    let primary = primary.restart();
    let mut c = primary.conn();
    assert_eq!(dumps(&mut c), held, "the AOF");

    if let Some((events, replies)) =
        keyspace_events_of(&["BF.ADD a x", "BF.ADD b y", "BF.MERGE d 2 a b"])
    {
        assert_eq!(replies[2], ok());
        assert_eq!(events, ["bf.add", "bf.add", "bf.merge"]);
    }
    let (touched, reply) = touches_key(&primary, "d", "BF.MERGE d 1 a");
    assert!(
        touched && reply == ok(),
        "WATCH sees the destination written"
    );
    let (touched, _) = touches_key(&primary, "a", "BF.MERGE d 1 a");
    assert!(!touched, "a source is only read");
}
