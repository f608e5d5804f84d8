//! The totals of `INFO bf` (sections `bf_bloom_core_metrics`, with valkey-bloom's field names,
//! and `bf_cuckoo_core_metrics`) always equal what the keyspace holds: objects, bytes (the
//! module's MEMORY USAGE count, which BF.INFO and CF.INFO report as Size), sub-filters, items,
//! capacity and deletes, summed over the keys. Each test changes the keyspace one way —
//! commands that create, fill, scale, delete from and compact filters; DEL, UNLINK and
//! FLUSHALL ASYNC (frees on the lazy-free thread), EXPIRE; COPY, RESTORE, LOADCHUNK; DEBUG
//! RELOAD, AOF rewrite and restart — and compares after every step. The t-digest's
//! observations are checked where a compression changes them.

mod common;

use common::tdigest::info_of;
use common::*;

/// One family's totals: objects, bytes, sub-filters, items, capacity (and, for Cuckoo
/// filters, deletes).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Totals {
    objects: u64,
    bytes: u64,
    filters: u64,
    items: u64,
    capacity: u64,
    deletes: u64,
}

/// What INFO says, for Bloom then Cuckoo filters.
fn reported(c: &mut Conn) -> (Totals, Totals) {
    let info = c.call(&["INFO", "bf"]).text();
    let field = |name: &str| -> u64 {
        info.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}:")))
            .unwrap_or_else(|| panic!("no {name} in INFO bf:\n{info}"))
            .trim()
            .parse()
            .unwrap()
    };
    let family = |prefix: &str, deletes: u64| Totals {
        objects: field(&format!("bf_{prefix}_num_objects")),
        bytes: field(&format!("bf_{prefix}_total_memory_bytes")),
        filters: field(&format!("bf_{prefix}_num_filters_across_objects")),
        items: field(&format!("bf_{prefix}_num_items_across_objects")),
        capacity: field(&format!("bf_{prefix}_capacity_across_objects")),
        deletes,
    };
    let cuckoo_deletes = field("bf_cuckoo_num_deletes_across_objects");
    (family("bloom", 0), family("cuckoo", cuckoo_deletes))
}

/// An `INFO`-style reply of name/value pairs (BF.INFO, CF.INFO) as a lookup.
fn pairs(reply: Value) -> Vec<(String, i64)> {
    let flat = match reply {
        Value::Map(map) => map.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        other => other.array(),
    };
    flat.chunks(2)
        .filter_map(|pair| match &pair[1] {
            Value::Int(n) => Some((pair[0].text(), *n)),
            _ => None,
        })
        .collect()
}

fn get(pairs: &[(String, i64)], name: &str) -> u64 {
    let (_, n) = pairs.iter().find(|(k, _)| k == name).unwrap();
    u64::try_from(*n).unwrap()
}

/// What the keyspace holds, summed key by key from each filter's own report.
fn summed(c: &mut Conn) -> (Totals, Totals) {
    let (mut bloom, mut cuckoo) = (Totals::default(), Totals::default());
    for key in c.cmd("KEYS *").array() {
        let key = key.text();
        let kind = c.call(&["TYPE", &key]).text();
        let (totals, info) = match kind.as_str() {
            "MBbloom--" | "bfblocked" => (&mut bloom, pairs(c.call(&["BF.INFO", &key]))),
            "MBbloomCF" => (&mut cuckoo, pairs(c.call(&["CF.INFO", &key]))),
            _ => continue,
        };
        let size = get(&info, "Size");
        let filters = get(&info, "Number of filters");
        let memory_usage = c.call(&["MEMORY", "USAGE", &key]).int() as u64;
        assert!(memory_usage >= size, "{key}: MEMORY USAGE counts the value");
        totals.objects += 1;
        totals.bytes += size;
        totals.filters += filters;
        totals.items += get(&info, "Number of items inserted");
        if kind == "MBbloomCF" {
            // RedisBloom's CFMemUsage: 40 + 16 × sub-filters + one byte per slot.
            totals.capacity += size - 40 - 16 * filters;
            totals.deletes += get(&info, "Number of items deleted");
        } else {
            totals.capacity += get(&info, "Capacity");
        }
    }
    (bloom, cuckoo)
}

/// The totals equal the keyspace's; returns them.
#[track_caller]
fn check(c: &mut Conn) -> (Totals, Totals) {
    let expected = summed(c);
    assert_eq!(reported(c), expected);
    expected
}

/// Waits until the totals equal the keyspace's (frees on the lazy-free thread).
fn settled(c: &mut Conn) -> (Totals, Totals) {
    wait_for("the totals to match the keyspace", || {
        reported(c) == summed(c)
    });
    check(c)
}

fn items(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn madd(c: &mut Conn, command: &str, key: &str, items: &[String]) {
    let mut args = vec![command, key];
    args.extend(items.iter().map(String::as_str));
    assert!(!c.call(&args).is_error());
}

#[test]
fn sections_are_named_for_the_module() {
    let (server, mut c) = Server::start_with_conn();
    let all = c.cmd("INFO bf").text();
    for header in [
        "# bf",
        "# bf_bloom_core_metrics",
        "# bf_cuckoo_core_metrics",
    ] {
        assert!(
            all.lines().any(|l| l.trim_end() == header),
            "{header} in {all}"
        );
    }
    let one = c.cmd("INFO bf_bloom_core_metrics").text();
    assert!(one.contains("bf_bloom_num_objects:0"), "{one}");
    assert!(!one.contains("bf_cuckoo_num_objects"), "{one}");
    assert!(!one.contains("bf_heap_allocations"), "{one}");
    let everything = c.cmd("INFO everything").text();
    assert!(everything.contains("bf_cuckoo_num_deletes_across_objects:0"));
    // RESP3 gives the same text.
    let mut c3 = server.conn().resp3();
    c.cmd("BF.ADD a x");
    assert_eq!(reported(&mut c3), reported(&mut c));
}

#[test]
fn bloom_writes_of_both_layouts() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(check(&mut c), Default::default());
    c.cmd("BF.RESERVE classic 0.01 100");
    c.cmd("BF.RESERVE fast 0.01 100 LAYOUT FAST");
    let (bloom, _) = check(&mut c);
    assert_eq!((bloom.objects, bloom.filters, bloom.items), (2, 2, 0));
    assert_eq!(bloom.capacity, 200);
    c.cmd("BF.ADD auto x");
    c.cmd("BF.ADD auto x");
    assert_eq!(check(&mut c).0.items, 1);
    madd(&mut c, "BF.MADD", "classic", &items("a", 50));
    madd(&mut c, "BF.MADD", "fast", &items("a", 50));
    check(&mut c);
    // Scaling: each filter grows sub-filters.
    madd(&mut c, "BF.MADD", "classic", &items("b", 500));
    madd(&mut c, "BF.MADD", "fast", &items("b", 500));
    let (bloom, _) = check(&mut c);
    assert!(bloom.filters >= 7, "{bloom:?}");
    send_numbered(&mut c, "BF.ADD", "classic", "c", 300);
    check(&mut c);
    c.cmd("BF.INSERT ins CAPACITY 10 ERROR 0.001 NONSCALING ITEMS a b c");
    madd(
        &mut c,
        "BF.INSERT",
        "fast",
        &["ITEMS".into(), "z1".into(), "z2".into()],
    );
    // A full non-scaling filter, a wrong type and a refused creation change nothing.
    let before = check(&mut c);
    madd(&mut c, "BF.MADD", "ins", &items("full", 20));
    c.cmd("SET string v");
    assert!(c.cmd("BF.ADD string x").is_error());
    assert!(c.cmd("BF.RESERVE classic 0.01 100").is_error());
    let after = check(&mut c);
    assert_eq!(after.0.objects, before.0.objects);
    assert_eq!(after.0.bytes, before.0.bytes);
    // Nothing counted as Cuckoo.
    assert_eq!(after.1, Totals::default());
}

#[test]
fn cuckoo_writes() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CF.RESERVE small 8 BUCKETSIZE 2 EXPANSION 2");
    let (_, cuckoo) = check(&mut c);
    assert_eq!((cuckoo.objects, cuckoo.filters, cuckoo.capacity), (1, 1, 8));
    c.cmd("CF.ADD auto x");
    c.cmd("CF.ADDNX auto x");
    madd(
        &mut c,
        "CF.INSERT",
        "ins",
        &["ITEMS".into(), "a".into(), "b".into()],
    );
    madd(
        &mut c,
        "CF.INSERTNX",
        "ins",
        &["ITEMS".into(), "a".into(), "c".into()],
    );
    check(&mut c);
    // Expansion: more items than the first sub-filter holds.
    send_numbered(&mut c, "CF.ADD", "small", "i", 40);
    let (_, cuckoo) = check(&mut c);
    assert!(cuckoo.filters >= 4, "{cuckoo:?}");
    // Deletes, some of which compact the filter on the way (as RedisBloom's CF.DEL does).
    for i in 0..40 {
        assert_eq!(c.call(&["CF.DEL", "small", &format!("i{i}")]), int(1));
        check(&mut c);
    }
    let (_, cuckoo) = check(&mut c);
    assert!(cuckoo.deletes > 0, "{cuckoo:?}");
    assert_eq!(c.cmd("CF.COMPACT small"), ok());
    let (_, cuckoo) = check(&mut c);
    assert_eq!(cuckoo.deletes, 0);
    assert_eq!(check(&mut c).0, Totals::default());
}

/// Values the lazy-free thread has freed (Redis ≥ 6.2, Valkey).
fn lazyfreed_objects(c: &mut Conn) -> Option<u64> {
    info_field(c, "stats", "lazyfreed_objects").parse().ok()
}

#[test]
fn frees_on_either_thread_take_values_off() {
    let (_server, mut c) = Server::start_with_conn();
    // Big enough for the lazy-free thread: more than 64 units of free effort (64 KiB each).
    c.cmd("BF.RESERVE big 0.0001 10000000");
    c.cmd("BF.RESERVE small 0.01 100");
    c.cmd("CF.RESERVE cbig 20000000");
    c.cmd("CF.ADD csmall x");
    let (bloom, cuckoo) = check(&mut c);
    assert!(bloom.bytes > 20 << 20 && cuckoo.bytes > 16 << 20);
    assert_eq!(c.cmd("DEL small csmall"), int(2));
    check(&mut c);
    let lazy_freed = lazyfreed_objects(&mut c);
    assert_eq!(c.cmd("UNLINK big cbig"), int(2));
    if let Some(before) = lazy_freed {
        wait_for("both to be freed on the lazy-free thread", || {
            lazyfreed_objects(&mut c) == Some(before + 2)
        });
    }
    assert_eq!(settled(&mut c), Default::default());
    c.cmd("BF.RESERVE big 0.0001 10000000");
    c.cmd("CF.RESERVE cbig 20000000");
    c.cmd("BF.ADD x 1");
    c.cmd("CF.ADD y 1");
    check(&mut c);
    c.cmd("PEXPIRE x 1");
    c.cmd("PEXPIRE y 1");
    wait_for("the keys to expire", || c.cmd("EXISTS x y") == int(0));
    check(&mut c);
    assert_eq!(c.cmd("FLUSHALL ASYNC"), ok());
    assert_eq!(settled(&mut c), Default::default());
}

/// A classic and a fast Bloom filter (`b`, `f`) and a Cuckoo filter with a deletion (`cf`).
fn fill(c: &mut Conn) {
    madd(c, "BF.MADD", "b", &items("a", 300));
    madd(
        c,
        "BF.INSERT",
        "f",
        &["LAYOUT".into(), "FAST".into(), "ITEMS".into(), "x".into()],
    );
    c.cmd("CF.RESERVE cf 4 BUCKETSIZE 1");
    send_numbered(c, "CF.ADD", "cf", "i", 20);
    c.cmd("CF.DEL cf i3");
}

#[test]
fn copies_restores_and_chunks_count() {
    let (_server, mut c) = Server::start_with_conn();
    fill(&mut c);
    check(&mut c);
    if feature::copy_and_module_events() {
        for key in ["b", "f", "cf"] {
            assert_eq!(c.call(&["COPY", key, &format!("{key}-copy")]), int(1));
        }
        let (bloom, cuckoo) = check(&mut c);
        assert_eq!((bloom.objects, cuckoo.objects), (4, 2));
        // COPY REPLACE frees the value it replaces.
        assert_eq!(c.cmd("COPY cf b-copy REPLACE"), int(1));
        check(&mut c);
    }
    for key in ["b", "f", "cf"] {
        let dump = c.call(&["DUMP", key]).bulk();
        let restored = format!("{key}-restored");
        assert_eq!(
            c.call_bytes(&[b"RESTORE", restored.as_bytes(), b"0", &dump]),
            ok()
        );
        // Replacing a value frees the old one.
        assert_eq!(
            c.call_bytes(&[b"RESTORE", b"b", b"0", &dump, b"REPLACE"]),
            ok()
        );
        check(&mut c);
    }
    // A refused RESTORE (a key that exists) counts nothing.
    let dump = c.cmd("DUMP f").bulk();
    assert!(c.call_bytes(&[b"RESTORE", b"f", b"0", &dump]).is_error());
    check(&mut c);
    let chunks = bf::scandump(&mut c, "f");
    bf::loadchunks(&mut c, "f-chunks", &chunks);
    let chunks = cf::scandump(&mut c, "cf");
    cf::loadchunks(&mut c, "cf-chunks", &chunks);
    check(&mut c);
}

#[test]
fn reload_and_aof_restart_count_what_loads() {
    let server = Server::with(Module::RedisBf)
        .arg("--appendonly yes")
        .arg("--aof-use-rdb-preamble no")
        .start();
    let mut c = server.conn();
    fill(&mut c);
    let before = check(&mut c);
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(
        settled(&mut c),
        before,
        "the old values are freed after the load, maybe lazily"
    );
    rewrite_aof(&mut c);
    c.cmd("BF.ADD b after");
    let before = check(&mut c);
    let server = server.restart();
    let mut c = server.conn();
    assert_eq!(settled(&mut c), before);
}

/// A compression sums the weights as doubles, as RedisBloom's does, so past 2^53 observations
/// it can change a digest's size. `INFO bf` follows it whichever command compresses: a read
/// compressing in place, or a MERGE compressing its source.
#[test]
fn totals_follow_a_compression_that_changes_the_size() {
    let (_server, mut c) = Server::start_with_conn();
    let total = |c: &mut Conn| -> i64 {
        let total = info_field(c, "bf", "bf_tdigest_observations_across_objects");
        total.parse().unwrap()
    };
    for key in ["a", "b"] {
        c.call(&["TDIGEST.CREATE", key]);
        c.call(&["TDIGEST.ADD", key, "1"]);
        // Merging the digest with itself doubles its size.
        for _ in 0..53 {
            let merged = c.call(&["TDIGEST.MERGE", key, "2", key, key, "OVERRIDE"]);
            assert_eq!(merged, ok());
        }
        c.call(&["TDIGEST.ADD", key, "1"]);
        assert_eq!(info_of(&mut c, key, "Observations"), (1 << 53) + 1);
    }
    assert_eq!(total(&mut c), 2 * ((1 << 53) + 1));
    // 2^53 + 1 is no double: a compression makes the size 2^53.
    c.cmd("TDIGEST.QUANTILE a 0.5");
    assert_eq!(c.cmd("TDIGEST.MERGE c 1 b"), ok());
    let sizes = ["a", "b", "c"].map(|key| info_of(&mut c, key, "Observations"));
    assert_eq!(sizes[..2], [1 << 53; 2]);
    assert_eq!(total(&mut c), sizes.iter().sum::<i64>());
    c.cmd("DEL a b c");
    assert_eq!(total(&mut c), 0);
}
