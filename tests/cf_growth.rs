//! How Cuckoo filters are sized, grow, compact and count their memory, as RedisBloom's do
//! (RedisBloom 8's `src/cuckoo.c` and its `tests/flow/test_cuckoo.py`), and the limits on
//! growth: the expansion limit, 65535 sub-filters, a 4 GiB header that costs nothing until
//! used.

mod common;

use common::*;

#[test]
fn reserve_sizes_filters_as_redisbloom() {
    let (_server, mut c) = Server::start_with_conn();
    // (options, bucket size, buckets, max iterations, expansion as stored)
    for (options, expected) in [
        (
            "1000",
            "bktsize:2 buckets:512 items:0 deletes:0 filters:1 max_iterations:20 expansion:1",
        ),
        (
            "9",
            "bktsize:2 buckets:4 items:0 deletes:0 filters:1 max_iterations:20 expansion:1",
        ),
        (
            "10 MAXITERATIONS 10",
            "bktsize:2 buckets:8 items:0 deletes:0 filters:1 max_iterations:10 expansion:1",
        ),
        (
            "5",
            "bktsize:2 buckets:2 items:0 deletes:0 filters:1 max_iterations:20 expansion:1",
        ),
        (
            "10000",
            "bktsize:2 buckets:8192 items:0 deletes:0 filters:1 max_iterations:20 expansion:1",
        ),
        (
            "64 BUCKETSIZE 1",
            "bktsize:1 buckets:64 items:0 deletes:0 filters:1 max_iterations:20 expansion:1",
        ),
        (
            "256 BUCKETSIZE 4",
            "bktsize:4 buckets:64 items:0 deletes:0 filters:1 max_iterations:20 expansion:1",
        ),
        (
            "100 EXPANSION 0",
            "bktsize:2 buckets:64 items:0 deletes:0 filters:1 max_iterations:20 expansion:0",
        ),
        (
            "100 EXPANSION 3",
            "bktsize:2 buckets:64 items:0 deletes:0 filters:1 max_iterations:20 expansion:4",
        ),
        (
            "100 EXPANSION 30000",
            "bktsize:2 buckets:64 items:0 deletes:0 filters:1 max_iterations:20 expansion:32768",
        ),
    ] {
        c.cmd("DEL k");
        assert_eq!(c.cmd(&format!("CF.RESERVE k {options}")), ok(), "{options}");
        assert_eq!(c.cmd("CF.DEBUG k"), bulk(expected.as_bytes()), "{options}");
    }
    // RedisBloom's test_reserve_limits: the largest valid filter.
    assert_eq!(
        c.cmd("CF.RESERVE big 67108864 BUCKETSIZE 255 MAXITERATIONS 65535 EXPANSION 32768"),
        ok()
    );
    assert_eq!(
        c.cmd("CF.INFO big"),
        Value::Array(vec![
            simple("Size"),
            int(40 + 16 + 524_288 * 255),
            simple("Number of buckets"),
            int(524_288),
            simple("Number of filters"),
            int(1),
            simple("Number of items inserted"),
            int(0),
            simple("Number of items deleted"),
            int(0),
            simple("Bucket size"),
            int(255),
            simple("Expansion rate"),
            int(32768),
            simple("Max iterations"),
            int(65535),
        ])
    );
}

#[test]
fn max_expansions_is_checked_once_per_command() {
    let (_server, mut c) = Server::start_with_conn();
    // test_max_expansions: 124 adds into 2-bucket sub-filters reach 32 of them.
    c.cmd("CF.RESERVE cf 4");
    for i in 0..124 {
        assert_eq!(c.call(&["CF.ADD", "cf", &i.to_string()]), int(1), "{i}");
    }
    assert_eq!(c.cmd("CF.ADD cf 2048"), err("Maximum expansions reached"));
    assert_eq!(
        c.cmd("CF.ADDNX cf 1"),
        err("Maximum expansions reached"),
        "present items too"
    );
    assert_eq!(
        c.cmd("CF.INSERT cf ITEMS 1"),
        err("Maximum expansions reached")
    );
    assert_eq!(c.cmd("CF.DEL cf 1"), int(1), "deletes are not limited");
    // One INSERT may grow far past the limit: the check comes before its first item
    // (RedisBloom 2.8.2 gives the same 51 sub-filters for these items).
    c.cmd("CF.RESERVE m 4");
    let replies = cf::insert_all(&mut c, "CF.INSERT", "m", (0..200).map(|i| format!("i{i}")));
    assert!(replies.array().iter().all(|r| *r == int(1)));
    assert_eq!(
        c.cmd("CF.DEBUG m"),
        bulk(b"bktsize:2 buckets:2 items:200 deletes:0 filters:51 max_iterations:20 expansion:1")
    );
    assert_eq!(c.cmd("CF.ADD m x"), err("Maximum expansions reached"));
    // With cf-max-expansions 1 no insert runs, and a missing key is not created by the refusal
    // (set as a module argument, which every server takes).
    let limited = Server::with_setting("cf-max-expansions", "1");
    let mut c = limited.conn();
    assert_eq!(c.cmd("CF.ADD newkey x"), err("Maximum expansions reached"));
    assert_eq!(
        c.cmd("CF.INSERT newkey ITEMS x"),
        err("Maximum expansions reached")
    );
    assert_eq!(c.cmd("EXISTS newkey"), int(0));
    assert_eq!(
        c.cmd("CF.RESERVE newkey 100"),
        ok(),
        "reserving is not an insert"
    );
    assert_eq!(c.cmd("CF.ADD newkey x"), err("Maximum expansions reached"));
}

#[test]
fn bucket_sizes_and_expansions_grow_as_redisbloom() {
    let (_server, mut c) = Server::start_with_conn();
    // test_bucket_size and test_expansion: 1000 items each.
    for (key, options, expected) in [
        (
            "a",
            "64 BUCKETSIZE 1",
            "bktsize:1 buckets:64 items:1000 deletes:0 filters:18 max_iterations:20 expansion:1",
        ),
        (
            "b",
            "64 BUCKETSIZE 2",
            "bktsize:2 buckets:32 items:1000 deletes:0 filters:17 max_iterations:20 expansion:1",
        ),
        (
            "c",
            "256 BUCKETSIZE 4 MAXITERATIONS 500",
            "bktsize:4 buckets:64 items:1000 deletes:0 filters:4 max_iterations:500 expansion:1",
        ),
        (
            "e2",
            "64 EXPANSION 2",
            "bktsize:2 buckets:32 items:1000 deletes:0 filters:5 max_iterations:20 expansion:2",
        ),
        (
            "e4",
            "64 EXPANSION 4 MAXITERATIONS 500",
            "bktsize:2 buckets:32 items:1000 deletes:0 filters:3 max_iterations:500 expansion:4",
        ),
    ] {
        assert_eq!(c.cmd(&format!("CF.RESERVE {key} {options}")), ok());
        for i in 0..1000 {
            assert_eq!(c.call(&["CF.ADD", key, &i.to_string()]), int(1));
        }
        let mut mexists = vec!["CF.MEXISTS".to_string(), key.to_string()];
        mexists.extend((0..1000).map(|i| i.to_string()));
        let mexists: Vec<&str> = mexists.iter().map(String::as_str).collect();
        assert!(
            c.call(&mexists).array().iter().all(|v| *v == int(1)),
            "{key}"
        );
        assert_eq!(
            c.call(&["CF.DEBUG", key]),
            bulk(expected.as_bytes()),
            "{key}"
        );
    }
}

#[test]
fn deletes_compact_as_redisbloom() {
    let (_server, mut c) = Server::start_with_conn();
    // 60 adds give 8 sub-filters; 40 deletes compact them down to 3.
    c.cmd("CF.RESERVE dd 8");
    send_numbered(&mut c, "CF.ADD", "dd", "", 60);
    assert_eq!(
        c.cmd("CF.DEBUG dd"),
        bulk(b"bktsize:2 buckets:4 items:60 deletes:0 filters:8 max_iterations:20 expansion:1")
    );
    for i in 0..40 {
        assert_eq!(c.call(&["CF.DEL", "dd", &i.to_string()]), int(1));
    }
    assert_eq!(
        c.cmd("CF.DEBUG dd"),
        bulk(b"bktsize:2 buckets:4 items:20 deletes:2 filters:3 max_iterations:20 expansion:1")
    );
    // CF.COMPACT resets the deletes even with one sub-filter (test_num_deletes's filter).
    c.cmd("CF.ADD nums Redis");
    c.cmd("CF.ADD nums Bloom");
    c.cmd("CF.DEL nums Redis");
    assert!(c
        .cmd("CF.DEBUG nums")
        .text()
        .contains("items:1 deletes:1 filters:1"));
    assert_eq!(c.cmd("CF.COMPACT nums"), ok());
    assert!(c
        .cmd("CF.DEBUG nums")
        .text()
        .contains("items:1 deletes:0 filters:1"));
    // test_compact: 100 items into 8, then compaction.
    c.cmd("CF.RESERVE cf 8 MAXITERATIONS 50");
    send_numbered(&mut c, "CF.ADD", "cf", "", 100);
    let before = c.cmd("CF.DEBUG cf").text();
    assert_eq!(c.cmd("CF.COMPACT cf"), ok());
    let after = c.cmd("CF.DEBUG cf").text();
    assert!(before[49..52] >= after[49..52], "{before} / {after}");
    for i in 0..100 {
        assert_eq!(c.call(&["CF.EXISTS", "cf", &i.to_string()]), int(1), "{i}");
    }
}

#[test]
fn a_four_gib_header_costs_nothing_until_used() {
    let (_server, mut c) = Server::start_with_conn();
    // test_number_of_buckets_does_not_overflow: 2^32 one-slot buckets, one iteration.
    let mut header = vec![0u8; 38];
    header[8..16].copy_from_slice(&(1u64 << 32).to_le_bytes());
    header[24..32].copy_from_slice(&1u64.to_le_bytes());
    header[32..38].copy_from_slice(&[1, 0, 1, 0, 1, 0]);
    let rss = |c: &mut Conn| {
        info_field(c, "memory", "used_memory_rss")
            .parse::<i64>()
            .unwrap()
    };
    let before = rss(&mut c);
    assert_eq!(c.call_bytes(&[b"CF.LOADCHUNK", b"cf", b"1", &header]), ok());
    assert_eq!(c.cmd("CF.INFO cf").array()[1], int(40 + 16 + (1 << 32)));
    // Ten copies of one item: two fit each sub-filter (its two buckets), so the filter grows by
    // another 4 GiB for every two — as far as this machine's memory allows.
    let replies = cf::insert_all(&mut c, "CF.INSERT", "cf", (0..10).map(|_| "1".to_string()));
    let added = replies.array().iter().filter(|r| **r == int(1)).count() as i64;
    assert!(replies
        .array()
        .iter()
        .all(|r| *r == int(1) || *r == int(-1)));
    assert!(added >= 2, "{replies:?}");
    assert_eq!(c.cmd("CF.COUNT cf 1"), int(added));
    let filters = c.cmd("CF.INFO cf").array()[5].int();
    assert_eq!(filters, (added + 1) / 2);
    assert_eq!(
        c.cmd("CF.INFO cf").array()[1],
        int(40 + filters * (16 + (1 << 32)))
    );
    let grown = rss(&mut c) - before;
    assert!(
        grown < 64 << 20,
        "RSS grew by {grown} bytes for {filters} sub-filters of 4 GiB"
    );
    assert_eq!(c.cmd("UNLINK cf"), int(1));
}

#[test]
fn growth_stops_at_65535_sub_filters() {
    // The limit may not stop the growth first (a module argument: every server takes it).
    let server = Server::with_setting("cf-max-expansions", "65536");
    let mut c = server.conn();
    // RedisBloom's test_counter_overflow_with_large_number_of_items grows a filter one
    // sub-filter at a time until RedisBloom 8 refuses a 65536th; here a SCANDUMP stream
    // builds the 65534 full one-slot sub-filters it would reach (pipelined, it is quick).
    let filters = 65534u64;
    let mut header = Vec::new();
    for field in [filters, 1, 0, filters] {
        header.extend_from_slice(&field.to_le_bytes());
    }
    header.extend_from_slice(&[1, 0, 20, 0, 1, 0]);
    assert_eq!(c.call_bytes(&[b"CF.LOADCHUNK", b"cf", b"1", &header]), ok());
    for i in 0..filters {
        let iter = (i + 2).to_string();
        c.send(&[
            b"CF.LOADCHUNK",
            b"cf",
            iter.as_bytes(),
            &[(i % 255 + 1) as u8],
        ]);
    }
    for _ in 0..filters {
        assert_eq!(c.read(), ok());
    }
    // The first item gets the 65535th sub-filter, the rest find no room and may not grow.
    assert_eq!(c.cmd("CF.INSERT cf ITEMS a b c"), ints(&[1, -1, -1]));
    assert_eq!(c.cmd("CF.ADD cf d"), err("ERR Insufficient memory"));
    assert_eq!(
        c.cmd("CF.DEBUG cf"),
        bulk(b"bktsize:1 buckets:1 items:65535 deletes:0 filters:65535 max_iterations:20 expansion:1")
    );
    assert_eq!(c.cmd("CF.EXISTS cf a"), int(1));
    assert_eq!(c.cmd("CF.DEL cf a"), int(1));
}

#[test]
fn memory_usage_counts_what_redisbloom_counts() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CF.RESERVE cf 1000");
    assert_eq!(c.cmd("CF.INFO cf").array()[1], int(1080));
    // MEMORY USAGE is our count plus what the server adds for the key, which varies: the key
    // and its dict entry on Redis and Valkey 8.0, nothing on Valkey 8.1.1, the key object's
    // allocation on Valkey 8.1.8 and 9.x (as the allocator sizes it; with libc malloc, as in
    // the PyPI builds, that depends on the heap's history).
    let usage = c.cmd("MEMORY USAGE cf").int();
    assert!((1080..1080 + 256).contains(&usage), "{usage}");
    c.cmd("CF.INSERT cf NOCREATE ITEMS foo");
    assert_eq!(c.cmd("MEMORY USAGE cf").int(), usage);
    // Each sub-filter adds 16 bytes and its array, and MEMORY USAGE grows by just that.
    c.cmd("CF.RESERVE g 4 EXPANSION 2");
    let (size, usage) = (
        c.cmd("CF.INFO g").array()[1].int(),
        c.cmd("MEMORY USAGE g").int(),
    );
    cf::insert_all(&mut c, "CF.INSERT", "g", (0..20).map(|i| i.to_string()));
    let info = c.cmd("CF.INFO g").array();
    let filters = info[5].int();
    let bytes: i64 = (0..filters).map(|i| 4 << i).sum();
    assert_eq!(info[1], int(40 + 16 * filters + bytes));
    assert_eq!(c.cmd("MEMORY USAGE g").int() - usage, info[1].int() - size);
}
