//! CF.MERGE (ours: `src/commands/cf/merge.rs`): the multiset union of Cuckoo filters of one
//! shape, against a model of the items added (every copy kept, counts adding up), every
//! refusal with nothing changed, and the merge as a write: replicas, the AOF, reloads, keyspace
//! events, WATCH and the family's totals.

mod common;

use common::*;

/// `CF.ADD key <prefix><i>` for `i` in `range`.
fn add_items(c: &mut Conn, key: &str, prefix: &str, range: std::ops::Range<u32>) {
    for i in range {
        assert!(!c.call(&["CF.ADD", key, &format!("{prefix}{i}")]).is_error());
    }
}

/// CF.COUNT of each of `<prefix><i>`.
fn counts(c: &mut Conn, key: &str, prefix: &str, range: std::ops::Range<u32>) -> Vec<i64> {
    range
        .map(|i| c.call(&["CF.COUNT", key, &format!("{prefix}{i}")]).int())
        .collect()
}

#[test]
fn a_union_keeps_every_copy_and_its_counts_add_up() {
    let (_server, mut c) = Server::start_with_conn();
    for key in ["a", "b"] {
        assert_eq!(
            c.call(&["CF.RESERVE", key, "10000", "BUCKETSIZE", "4"]),
            ok()
        );
    }
    add_items(&mut c, "a", "a", 0..1000);
    add_items(&mut c, "b", "b", 0..1000);
    add_items(&mut c, "a", "s", 0..500);
    add_items(&mut c, "b", "s", 0..500);
    // The destination is created; b is listed twice, so counts twice.
    assert_eq!(c.cmd("CF.MERGE d 3 a b b"), ok());
    let at_least = |found: Vec<i64>, n: i64| found.iter().all(|&count| count >= n);
    assert!(at_least(counts(&mut c, "d", "a", 0..1000), 1));
    assert!(at_least(counts(&mut c, "d", "b", 0..1000), 2));
    assert!(at_least(counts(&mut c, "d", "s", 0..500), 3));
    let info = c.cmd("CF.INFO d");
    assert_eq!(
        bf::info_value(&info, "Number of items inserted"),
        int(1500 + 2 * 1500)
    );
    // Counts are sums: an item's count in the union is its counts in the sources added.
    for item in ["a7", "b7", "s7"] {
        let sum: i64 = ["a", "b", "b"]
            .iter()
            .map(|key| c.call(&["CF.COUNT", key, item]).int())
            .sum();
        assert_eq!(c.call(&["CF.COUNT", "d", item]).int(), sum, "{item}");
    }
    // Into an existing destination, itself among the sources: its old filter counts again.
    let before = c.cmd("CF.COUNT a a1").int();
    assert_eq!(c.cmd("CF.MERGE a 1 a"), ok());
    assert_eq!(c.cmd("CF.COUNT a a1").int(), 2 * before);
    c.cmd("HELLO 3");
    assert_eq!(c.cmd("CF.MERGE e 1 b"), ok());
    assert_eq!(c.cmd("CF.COUNT e b1"), c.cmd("CF.COUNT b b1"));
}

#[test]
fn refused_merges_name_the_difference_and_change_nothing() {
    let (_server, mut c) = Server::start_with_conn();
    for line in [
        "CF.RESERVE d 1024 BUCKETSIZE 4 EXPANSION 0",
        "CF.RESERVE full 1024 BUCKETSIZE 4 EXPANSION 0",
        "CF.RESERVE bigger 2048 BUCKETSIZE 4 EXPANSION 0",
        "CF.RESERVE wider 1024 BUCKETSIZE 2 EXPANSION 0",
        "CF.RESERVE growing 1024 BUCKETSIZE 4",
        "SET string x",
    ] {
        assert_eq!(c.cmd(line), ok(), "{line}");
    }
    add_items(&mut c, "d", "d", 0..600);
    add_items(&mut c, "full", "f", 0..600);
    let table = [
        ("CF.MERGE d", arity_error("CF.MERGE d")),
        ("CF.MERGE d 2 full", arity_error("CF.MERGE d 2 full")),
        (
            "CF.MERGE d 1 full extra",
            arity_error("CF.MERGE d 1 full extra"),
        ),
        (
            "CF.MERGE d 0 full",
            err("ERR numkeys must be a positive integer"),
        ),
        ("CF.MERGE string 1 full", err(WRONGTYPE)),
        ("CF.MERGE d 1 missing", err("ERR not found")),
        ("CF.MERGE d 2 full string", err(WRONGTYPE)),
        (
            "CF.MERGE d 1 bigger",
            err("ERR filters differ in capacity (their bucket count)"),
        ),
        (
            "CF.MERGE d 1 wider",
            err("ERR filters differ in bucket size"),
        ),
        (
            "CF.MERGE d 1 growing",
            err("ERR filters differ in expansion"),
        ),
        ("CF.MERGE new 2 full new", err("ERR not found")),
        // 1,200 fingerprints for 1,024 slots.
        (
            "CF.MERGE d 1 full",
            err("ERR the union does not fit: a sub-filter has no room for a fingerprint"),
        ),
    ];
    refusals_change_nothing(
        &mut c,
        &["d", "full", "new"],
        &table,
        (
            "CF.MERGE new 1 full",
            "ERR operation exceeds cuckoo object memory limit",
        ),
    );
    let keys = c.cmd("COMMAND GETKEYS CF.MERGE d 2 a b");
    assert_eq!(keys.sorted_texts(), ["a", "b", "d"]);
}

#[test]
fn merges_replicate_persist_notify_and_count() {
    let primary = Server::with_aof();
    let mut c = primary.conn();
    let (_replica, mut r) = Server::synced_replica_of(&primary);
    for key in ["a", "b", "small"] {
        assert_eq!(c.call(&["CF.RESERVE", key, "64"]), ok());
    }
    // a grows to several sub-filters; the union grows to them.
    add_items(&mut c, "a", "a", 0..400);
    add_items(&mut c, "b", "b", 0..20);
    let objects = |c: &mut Conn| info_field(c, "bf", "bf_cuckoo_num_objects");
    let before: u64 = objects(&mut c).parse().unwrap();
    assert_eq!(c.cmd("CF.MERGE d 2 small a"), ok());
    assert_eq!(c.cmd("CF.MERGE small 1 b"), ok());
    assert_eq!(objects(&mut c).parse::<u64>().unwrap(), before + 1);
    assert_eq!(
        bf::info_value(&c.cmd("CF.INFO d"), "Number of filters"),
        bf::info_value(&c.cmd("CF.INFO a"), "Number of filters")
    );
    wait_in_sync(&mut c, &mut r);
    let keys = ["a", "b", "d", "small"];
    let dumps = |c: &mut Conn| keys.map(|k| c.call(&["DUMP", k]));
    let held = dumps(&mut c);
    assert_eq!(dumps(&mut r), held, "the replica holds the same bytes");
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(dumps(&mut c), held, "DEBUG RELOAD");
    drop(c);
    let primary = primary.restart();
    assert_eq!(dumps(&mut primary.conn()), held, "the AOF");

    if let Some((events, replies)) = keyspace_events_of(&["CF.ADD a x", "CF.MERGE d 1 a"]) {
        assert_eq!(replies[1], ok());
        assert_eq!(events, ["cf.add", "cf.merge"]);
    }
    let (touched, reply) = touches_key(&primary, "e", "CF.MERGE e 1 b");
    assert!(
        touched && reply == ok(),
        "WATCH sees the destination written"
    );
    let (touched, _) = touches_key(&primary, "b", "CF.MERGE f 1 b");
    assert!(!touched, "a source is only read");
}
