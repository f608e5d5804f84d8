//! Every t-digest command's replies and errors, in RESP2 and RESP3 (RedisBloom's
//! `src/rm_tdigest.c` and its `tests/flow/test_tdigest.py`); persistence in every form; a
//! replica, an AOF replay and a restart holding the primary's digests after streams with reads
//! between writes; command info, ACL and events; and the equal-values case that stalls
//! RedisBloom answering at once.

mod common;

use std::time::{Duration, Instant};

use common::tdigest::*;
use common::*;

/// The server's wrong-arity error for `command`, typed in upper case.
fn arity(command: &str) -> Value {
    arity_error(&command.to_uppercase())
}

/// A RESP2 client gets each double as the server writes its own (ZSCORE's): on Redis 7.0
/// redis-bf prints them itself, as glibc's `printf("%.17g")` does.
#[test]
fn doubles_read_as_the_servers_own() {
    let (_server, mut c) = Server::start_with_conn();
    let mut rng = Rng(0x5eed);
    let mut values = vec![
        // (Not -0: a sorted set keeps it as 0.)
        0.0,
        0.1,
        1e-5,
        1e16,
        1e17,
        123456789012345680.0,
        4938271560493825.0 / 4.0,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -1.5e-300,
        1e100,
    ];
    values.extend((0..3000).map(|i| {
        let bits = rng.next();
        match i % 3 {
            0 => f64::from_bits(bits),
            1 => (bits >> 11) as f64 / (1u64 << (bits % 60)) as f64,
            // 16 digits and a quarter: ties at the 17th digit.
            _ => (bits >> 11) as f64 * 0.25,
        }
    }));
    assert_eq!(c.cmd("TDIGEST.CREATE t"), ok());
    for x in values.into_iter().filter(|x| x.is_finite()) {
        let text = format!("{x:e}");
        c.call(&["ZADD", "z", &text, "m"]);
        c.call(&["TDIGEST.RESET", "t"]);
        assert_eq!(c.call(&["TDIGEST.ADD", "t", &text]), ok(), "{text}");
        let theirs = c.call(&["ZSCORE", "z", "m"]);
        assert!(matches!(theirs, Value::Bulk(_)), "{theirs:?}");
        assert_eq!(c.call(&["TDIGEST.MIN", "t"]), theirs, "{text}");
    }
}

#[test]
fn replies_in_both_protocols() {
    let server = Server::start();
    for resp3 in [false, true] {
        let mut c = if resp3 {
            server.conn().resp3()
        } else {
            server.conn()
        };
        c.cmd("FLUSHALL");
        assert_eq!(c.cmd("TDIGEST.CREATE t COMPRESSION 10"), ok());
        assert_eq!(c.cmd("TDIGEST.ADD t 3 1 2 2"), ok());
        let quantiles = c.cmd("TDIGEST.QUANTILE t 0 0.1 0.5 1");
        assert_eq!(doubles(&quantiles), [1.0, 1.0, 2.0, 3.0]);
        // RESP3 doubles are doubles; RESP2 ones bulk strings.
        let is_double = matches!(quantiles.array()[0], Value::Double(_));
        assert_eq!(is_double, resp3);
        assert_eq!(
            doubles(&c.cmd("TDIGEST.CDF t 2 inf -inf 0 5")),
            [0.5, 1.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(c.cmd("TDIGEST.RANK t 2 0 9 1"), ints(&[2, -1, 4, 0]));
        assert_eq!(c.cmd("TDIGEST.REVRANK t 2 0 9 3"), ints(&[2, 4, -1, 0]));
        assert_eq!(
            doubles(&c.cmd("TDIGEST.BYRANK t 0 1 3 4 100")),
            [1.0, 2.0, 3.0, f64::INFINITY, f64::INFINITY]
        );
        assert_eq!(
            doubles(&c.cmd("TDIGEST.BYREVRANK t 0 1 4")),
            [3.0, 2.0, f64::NEG_INFINITY]
        );
        assert_eq!(double(&c.cmd("TDIGEST.TRIMMED_MEAN t 0.1 0.9")), 2.0);
        assert_eq!(double(&c.cmd("TDIGEST.MIN t")), 1.0);
        assert_eq!(double(&c.cmd("TDIGEST.MAX t")), 3.0);
        let fields = [
            ("Compression", 10),
            ("Capacity", 70),
            ("Merged nodes", 4),
            ("Unmerged nodes", 0),
            ("Merged weight", 4),
            ("Unmerged weight", 0),
            ("Observations", 4),
            ("Total compressions", 1),
            ("Memory usage", 80 + 16 * 70),
        ];
        let pairs: Vec<(Value, Value)> = fields
            .iter()
            .map(|&(name, value)| (simple(name), int(value)))
            .collect();
        let expected = if resp3 {
            resp3_map(pairs)
        } else {
            Value::Array(pairs.into_iter().flat_map(|(k, v)| [k, v]).collect())
        };
        assert_eq!(c.cmd("TDIGEST.INFO t"), expected);
        // An empty digest: NaN, −2, and NaN again after a reset.
        c.cmd("TDIGEST.CREATE e");
        for line in [
            "TDIGEST.MIN e",
            "TDIGEST.MAX e",
            "TDIGEST.TRIMMED_MEAN e 0 1",
        ] {
            assert!(double(&c.cmd(line)).is_nan(), "{line}");
        }
        assert!(doubles(&c.cmd("TDIGEST.QUANTILE e 0.5"))[0].is_nan());
        assert!(doubles(&c.cmd("TDIGEST.BYRANK e 0"))[0].is_nan());
        assert_eq!(c.cmd("TDIGEST.RANK e 1 2"), ints(&[-2, -2]));
        assert_eq!(c.cmd("TDIGEST.RESET t"), ok());
        assert!(double(&c.cmd("TDIGEST.MIN t")).is_nan());
        assert_eq!(info_of(&mut c, "t", "Compression"), 10);
        // Signed zero is kept, and one observation answers NaN (RedisBloom's own flaw, kept).
        c.cmd("TDIGEST.ADD t -0");
        assert!(double(&c.cmd("TDIGEST.MIN t")).is_sign_negative());
        assert!(doubles(&c.cmd("TDIGEST.QUANTILE t 0.5"))[0].is_nan());
        assert_eq!(c.cmd("TDIGEST.RANK t 0"), ints(&[i64::MIN]));
    }
}

/// RedisBloom's flow-test anchors (`tests/flow/test_tdigest.py`).
#[test]
fn redisbloom_flow_test_values() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("TDIGEST.CREATE t COMPRESSION 1000");
    c.cmd("TDIGEST.ADD t 1 2 2 3 3 3 4 4 4 4 5 5 5 5 5");
    let probes = "0 1 2 3 4 5 6";
    assert_eq!(
        c.cmd(&format!("TDIGEST.RANK t {probes}")),
        ints(&[-1, 0, 2, 4, 8, 12, 15])
    );
    assert_eq!(
        c.cmd(&format!("TDIGEST.REVRANK t {probes}")),
        ints(&[15, 14, 13, 10, 7, 2, -1])
    );
    c.cmd("TDIGEST.CREATE q");
    c.cmd("TDIGEST.ADD q 1 2 3 4 5");
    assert_eq!(doubles(&c.cmd("TDIGEST.QUANTILE q 0.5 0.8")), [3.0, 5.0]);
    c.cmd("TDIGEST.CREATE m");
    c.cmd("TDIGEST.ADD m 1 2 3 4 5 6 7 8 9");
    assert_eq!(double(&c.cmd("TDIGEST.TRIMMED_MEAN m 0.1 0.9")), 5.0);
    assert_eq!(double(&c.cmd("TDIGEST.TRIMMED_MEAN m 0.4 0.5")), 4.5);
}

#[test]
fn errors_in_redisbloom_order() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    c.cmd("TDIGEST.CREATE t");
    c.cmd("TDIGEST.ADD t 1 2 3");
    let e = |text: &str| err(&format!("ERR T-Digest: {text}"));
    for (line, reply) in [
        ("TDIGEST.CREATE t", e("key already exists")),
        ("TDIGEST.CREATE str", err(WRONGTYPE)),
        // The key before the arguments.
        ("TDIGEST.CREATE t COMPRESSION x", e("key already exists")),
        ("TDIGEST.CREATE n FOO 10", e("wrong keyword")),
        (
            "TDIGEST.CREATE n 10 COMPRESSION",
            e("error parsing compression parameter"),
        ),
        (
            "TDIGEST.CREATE n COMPRESSION 1.5",
            e("error parsing compression parameter"),
        ),
        (
            "TDIGEST.CREATE n COMPRESSION 0",
            e("compression parameter needs to be a positive integer"),
        ),
        (
            "TDIGEST.CREATE n COMPRESSION -3",
            e("compression parameter needs to be a positive integer"),
        ),
        // A capacity RedisBloom's format cannot hold, refused before anything is allocated.
        (
            "TDIGEST.CREATE n COMPRESSION 357913940",
            e("allocation failed"),
        ),
        (
            "TDIGEST.CREATE n COMPRESSION 100000000000000000",
            e("allocation failed"),
        ),
        ("TDIGEST.RESET missing", e("key does not exist")),
        ("TDIGEST.RESET str", err(WRONGTYPE)),
        ("TDIGEST.ADD missing x", e("key does not exist")),
        ("TDIGEST.ADD t 1 x", e("error parsing val parameter")),
        ("TDIGEST.ADD t 1 nan", e("error parsing val parameter")),
        ("TDIGEST.ADD t 1e309", e("error parsing val parameter")),
        ("TDIGEST.ADD t 1e-400", e("error parsing val parameter")),
        (
            "TDIGEST.ADD t 1 inf x",
            e("val parameter needs to be a finite number"),
        ),
        (
            "TDIGEST.ADD t -Infinity",
            e("val parameter needs to be a finite number"),
        ),
        ("TDIGEST.QUANTILE t x", e("error parsing quantile")),
        (
            "TDIGEST.QUANTILE t 0.5 1.5",
            e("quantile should be in [0,1]"),
        ),
        ("TDIGEST.QUANTILE t -0.1", e("quantile should be in [0,1]")),
        ("TDIGEST.QUANTILE t inf", e("quantile should be in [0,1]")),
        ("TDIGEST.QUANTILE missing 0.5", e("key does not exist")),
        ("TDIGEST.CDF t x", e("error parsing cdf")),
        ("TDIGEST.CDF str 1", err(WRONGTYPE)),
        ("TDIGEST.RANK t nan", e("error parsing value")),
        ("TDIGEST.REVRANK t 1 x", e("error parsing value")),
        ("TDIGEST.BYRANK t 1.5", e("error parsing rank")),
        ("TDIGEST.BYRANK t 01", e("error parsing rank")),
        (
            "TDIGEST.BYREVRANK t 1 -1",
            e("rank needs to be non negative"),
        ),
        (
            "TDIGEST.TRIMMED_MEAN t x 0.5",
            e("error parsing low_cut_percentile"),
        ),
        (
            "TDIGEST.TRIMMED_MEAN t 0.1 x",
            e("error parsing high_cut_percentile"),
        ),
        (
            "TDIGEST.TRIMMED_MEAN t 0.1 1.1",
            e("low_cut_percentile and high_cut_percentile should be in [0,1]"),
        ),
        (
            "TDIGEST.TRIMMED_MEAN t 0.5 0.5",
            e("low_cut_percentile should be lower than high_cut_percentile"),
        ),
        ("TDIGEST.MIN missing", e("key does not exist")),
        ("TDIGEST.MAX str", err(WRONGTYPE)),
        ("TDIGEST.INFO missing", e("key does not exist")),
        ("TDIGEST.MERGE str 1 t", err(WRONGTYPE)),
        ("TDIGEST.MERGE d x t", e("error parsing numkeys")),
        (
            "TDIGEST.MERGE d 0 t",
            e("numkeys needs to be a positive integer"),
        ),
        ("TDIGEST.MERGE d 1 t FOO", e("wrong keyword")),
        (
            "TDIGEST.MERGE d 1 t COMPRESSION OVERRIDE",
            e("error parsing compression parameter"),
        ),
        ("TDIGEST.MERGE d 2 t missing", e("key does not exist")),
        ("TDIGEST.MERGE d 2 t str", err(WRONGTYPE)),
        ("TDIGEST.MERGE d 2 t d", e("key does not exist")),
        (
            "TDIGEST.MERGE d 1 t COMPRESSION 357913940",
            e("allocation of destination digest failed"),
        ),
    ] {
        assert_eq!(c.cmd(line), reply, "{line}");
    }
    // Nothing of a refused command was written.
    assert_eq!(info_of(&mut c, "t", "Observations"), 3);
    assert_eq!(c.cmd("EXISTS n d"), int(0));
    for line in [
        "TDIGEST.CREATE",
        "TDIGEST.CREATE n COMPRESSION",
        "TDIGEST.CREATE n COMPRESSION 10 x",
        "TDIGEST.RESET t x",
        "TDIGEST.ADD t",
        "TDIGEST.MERGE d 1",
        "TDIGEST.MERGE d 3 t t",
        "TDIGEST.MERGE d 1 t COMPRESSION",
        "TDIGEST.MIN t x",
        "TDIGEST.MAX",
        "TDIGEST.QUANTILE t",
        "TDIGEST.CDF t",
        "TDIGEST.RANK t",
        "TDIGEST.REVRANK t",
        "TDIGEST.BYRANK t",
        "TDIGEST.BYREVRANK t",
        "TDIGEST.TRIMMED_MEAN t 0.1",
        "TDIGEST.INFO t x",
    ] {
        let name = line.split(' ').next().unwrap();
        assert_eq!(c.cmd(line), arity(name), "{line}");
    }
}

#[test]
fn merge_builds_a_new_digest() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("TDIGEST.CREATE a COMPRESSION 20");
    c.cmd("TDIGEST.ADD a 1 2 3 4");
    c.cmd("TDIGEST.CREATE b COMPRESSION 50");
    c.cmd("TDIGEST.ADD b 10 20");
    // No destination: the largest compression of the sources.
    assert_eq!(c.cmd("TDIGEST.MERGE d 2 a b"), ok());
    assert_eq!(info_of(&mut c, "d", "Compression"), 50);
    assert_eq!(info_of(&mut c, "d", "Observations"), 6);
    // A destination: merged in first, its compression kept, counters fresh.
    c.cmd("TDIGEST.CREATE e COMPRESSION 7");
    c.cmd("TDIGEST.ADD e 100");
    assert_eq!(c.cmd("TDIGEST.MERGE e 1 a"), ok());
    assert_eq!(info_of(&mut c, "e", "Compression"), 7);
    assert_eq!(info_of(&mut c, "e", "Observations"), 5);
    assert_eq!(double(&c.cmd("TDIGEST.MAX e")), 100.0);
    // OVERRIDE: replaced, with the sources' largest compression unless one is given.
    assert_eq!(c.cmd("TDIGEST.MERGE e 1 a OVERRIDE"), ok());
    assert_eq!(info_of(&mut c, "e", "Compression"), 20);
    assert_eq!(double(&c.cmd("TDIGEST.MAX e")), 4.0);
    assert_eq!(
        c.cmd("TDIGEST.MERGE e 2 a a override compression 9 FOO"),
        ok()
    );
    assert_eq!(info_of(&mut c, "e", "Compression"), 9);
    assert_eq!(info_of(&mut c, "e", "Observations"), 8);
    // The destination as a source is its old digest, merged as often as named.
    assert_eq!(c.cmd("TDIGEST.MERGE e 2 e e"), ok());
    assert_eq!(info_of(&mut c, "e", "Observations"), 24);
    // Self-merges double the weights until they would pass 2^63.
    c.cmd("TDIGEST.CREATE x COMPRESSION 3");
    c.cmd("TDIGEST.ADD x 1 2 3");
    let mut merges = 0;
    while c.cmd("TDIGEST.MERGE x 2 x x") == ok() {
        merges += 1;
        assert!(merges < 70);
    }
    assert_eq!(
        c.cmd("TDIGEST.MERGE x 2 x x"),
        err("ERR T-Digest: overflow detected")
    );
    // As in RedisBloom: 38 doublings of 3 observations.
    assert_eq!(merges, 38);
    // The sources are read, the destination written: every key is declared.
    if feature::command_docs() {
        assert_eq!(
            c.cmd("COMMAND GETKEYS TDIGEST.MERGE d 2 a b COMPRESSION 5"),
            Value::Array(vec![bulk(b"d"), bulk(b"a"), bulk(b"b")])
        );
    }
}

/// What must survive a reload: every answer, and the saved form. (A digest with a buffer is
/// saved compressed, as RedisBloom saves it, and owes that compression until its next command:
/// INFO and DEBUG DIGEST are compared after the reads have made it.)
fn snapshot(c: &mut Conn, keys: &[&str]) -> Vec<Value> {
    let mut seen = vec![c.cmd("DBSIZE")];
    for key in keys {
        seen.push(c.call(&["DUMP", key]));
        seen.extend(answers(c, key));
        seen.push(c.call(&["TDIGEST.INFO", key]));
        seen.push(c.call(&["DEBUG", "DIGEST-VALUE", key]));
        // (MEMORY USAGE counts the key too, which Valkey holds otherwise after a reload.)
    }
    seen
}

fn assert_same(after: &[Value], before: &[Value], log: &str) {
    for (i, (a, b)) in after.iter().zip(before).enumerate() {
        assert_eq!(a, b, "snapshot item {i} differs; log:\n{log}");
    }
    assert_eq!(after.len(), before.len());
}

#[test]
fn debug_reload_and_restart() {
    let (server, mut c) = Server::start_with_conn();
    let keys = populate(&mut c);
    let before = snapshot(&mut c, &keys);
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_same(&snapshot(&mut c, &keys), &before, &server.log());
    assert_eq!(c.cmd("SAVE"), ok());
    let server = server.restart();
    assert_same(&snapshot(&mut server.conn(), &keys), &before, &server.log());
}

fn aof_round_trip(preamble: &str) {
    let server = Server::with(Module::RedisBf)
        .arg("--appendonly yes")
        .arg(&format!("--aof-use-rdb-preamble {preamble}"))
        .start();
    let mut c = server.conn();
    let keys = populate(&mut c);
    // The primary learns of the rewrite's fork from the ForkChild event (Redis ≥ 6.2). On
    // Redis 6.0 a digest buffered at the rewrite is not realigned with the AOF, so there the
    // buffers are merged first.
    if !server_at_least((6, 2, 0)) {
        for key in &keys {
            c.call(&["TDIGEST.QUANTILE", key, "0.5"]);
        }
    }
    rewrite_aof(&mut c);
    // After the rewrite: the buffered digests are compressed at their next command here, and
    // that compression is in the AOF before the command.
    c.cmd("TDIGEST.ADD buffered 7 8 9");
    c.cmd("TDIGEST.ADD union 1");
    c.cmd("TDIGEST.MERGE late 2 buffered read");
    let mut keys = keys;
    keys.push("late");
    let before = snapshot(&mut c, &keys);
    let expected: Vec<Value> = keys
        .iter()
        .map(|k| c.call(&["DEBUG", "DIGEST-VALUE", k]))
        .collect();
    let server = server.restart();
    let mut c = server.conn();
    let digests: Vec<Value> = keys
        .iter()
        .map(|k| c.call(&["DEBUG", "DIGEST-VALUE", k]))
        .collect();
    assert_eq!(digests, expected, "the AOF replays to the same digests");
    assert_same(&snapshot(&mut c, &keys), &before, &server.log());
}

#[test]
fn aof_rewrite_without_rdb_preamble() {
    aof_round_trip("no");
}

#[test]
fn aof_rewrite_with_rdb_preamble() {
    aof_round_trip("yes");
}

#[test]
fn dump_restore_and_copy() {
    let (_server, mut c) = Server::start_with_conn();
    let keys = populate(&mut c);
    persist::restores_and_copies(&mut c, &keys, answers, |c, copy| {
        c.call(&["TDIGEST.ADD", copy, "123456"]);
    });
    // A payload whose capacity does not follow from its compression (RedisBloom 2.8.2 took it
    // and later wrote past its arrays) is refused.
    c.cmd("TDIGEST.CREATE small COMPRESSION 1");
    let mut payload = c.cmd("DUMP small").bulk();
    assert_eq!(&payload[37..39], &[0x02, 0x10], "cap 16");
    payload[38] = 0x11;
    let body = payload.len() - 8;
    let crc = crc64(&payload[..body]).to_le_bytes();
    payload[body..].copy_from_slice(&crc);
    if feature::survives_refused_restore() {
        assert_eq!(
            c.call_bytes(&[b"RESTORE", b"forged", b"0", &payload]),
            err("ERR Bad data format")
        );
    }
}

#[test]
fn memory_usage_is_redisbloom_8s() {
    let (_server, mut c) = Server::start_with_conn();
    for compression in [1, 100, 1000] {
        let key = format!("c{compression}");
        c.call(&[
            "TDIGEST.CREATE",
            &key,
            "COMPRESSION",
            &compression.to_string(),
        ]);
        let bytes = 80 + 16 * (6 * compression + 10);
        assert_eq!(info_of(&mut c, &key, "Memory usage"), bytes);
        let usage = c.call(&["MEMORY", "USAGE", &key]).int();
        assert!((bytes..bytes + 100).contains(&usage), "{usage} for {bytes}");
    }
    let totals = c.cmd("INFO bf").text();
    assert!(totals.contains("bf_tdigest_num_objects:3"), "{totals}");
    assert!(
        totals.contains("bf_tdigest_capacity_across_objects:6636"),
        "{totals}"
    );
}

/// RedisBloom 2.8.2 sorts equal means in quadratic time: 100 000 equal values at COMPRESSION
/// 20000 make one QUANTILE take 4.6 s there. Here a million take a fraction of a second, the
/// ADDs that fill the buffer included.
#[test]
fn a_million_equal_values_answer_at_once() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("TDIGEST.CREATE eq COMPRESSION 20000");
    let batch: Vec<String> = std::iter::repeat_n("5".to_string(), 10_000).collect();
    let started = Instant::now();
    for _ in 0..100 {
        let mut args = vec!["TDIGEST.ADD", "eq"];
        args.extend(batch.iter().map(String::as_str));
        assert_eq!(c.call(&args), ok());
    }
    assert_eq!(doubles(&c.cmd("TDIGEST.QUANTILE eq 0.5 0.99")), [5.0, 5.0]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    c.cmd("TDIGEST.ADD eq 5 5 5");
    let one = Instant::now();
    c.cmd("TDIGEST.QUANTILE eq 0.5");
    assert!(
        one.elapsed() < Duration::from_millis(500),
        "{:?}",
        one.elapsed()
    );
    assert_eq!(info_of(&mut c, "eq", "Observations"), 1_000_003);
}

#[test]
fn keyspace_notifications_for_writes() {
    let Some((events, replies)) = keyspace_events_of(&[
        "TDIGEST.CREATE k",
        "TDIGEST.ADD k 1 2",
        "TDIGEST.RESET k",
        "TDIGEST.MERGE m 1 k",
        // Reads (compressing ones included) and failures raise nothing.
        "TDIGEST.ADD k 3",
        "TDIGEST.QUANTILE k 0.5",
        "TDIGEST.CREATE k",
    ]) else {
        return;
    };
    assert_eq!(replies[..4], [ok(), ok(), ok(), ok()]);
    let expected = [
        "tdigest.create",
        "tdigest.add",
        "tdigest.reset",
        "tdigest.merge",
        "tdigest.add",
    ];
    assert_eq!(events, expected);
}

#[test]
fn command_info_and_acl() {
    let (server, mut c) = Server::start_with_conn();
    for (command, arity, may_replicate) in [
        ("tdigest.create", -2, None),
        ("tdigest.add", -3, None),
        ("tdigest.merge", -4, None),
        ("tdigest.min", 2, Some(false)),
        ("tdigest.info", 2, Some(false)),
        ("tdigest.quantile", -3, Some(true)),
        ("tdigest.byrevrank", -3, Some(true)),
        ("tdigest.trimmed_mean", 4, Some(true)),
    ] {
        let info = c.call(&["COMMAND", "INFO", command]).array()[0].array();
        let flags = info[2].sorted_texts();
        match may_replicate {
            None => assert!(flags.contains(&"write".to_string()), "{command}: {flags:?}"),
            Some(may) => {
                assert!(flags.contains(&"readonly".to_string()), "{command}");
                // `may-replicate` is not listed for module commands (Redis 7.0); what it does
                // is client_pause_write_holds_back_compressing_reads's.
                let _ = may;
            }
        }
        if feature::command_docs() {
            assert_eq!(info[1], int(arity), "{command}");
        }
    }
    if !feature::command_docs() {
        return;
    }
    // As RedisBloom 8 documents them (its test_docs_help.py).
    let create = CommandDoc::read(&mut c, "tdigest.create");
    assert_eq!(
        create.args(),
        named(&[("key", "key"), ("compression_block", "block")])
    );
    let compression = [
        ("compression_token", "pure-token", "COMPRESSION"),
        ("compression", "integer", ""),
    ]
    .map(|(n, t, k)| (n.to_string(), t.to_string(), k.to_string()));
    assert_eq!(create.sub_args("compression_block"), compression);
    let merge = CommandDoc::read(&mut c, "tdigest.merge");
    let expected = [
        ("destination-key", "key"),
        ("numkeys", "integer"),
        ("source-key", "key"),
        ("compression_block", "block"),
        ("override", "pure-token"),
    ];
    assert_eq!(merge.args(), named(&expected));
    assert_eq!(merge.sub_args("compression_block"), compression);
    for (command, complexity) in [
        ("tdigest.quantile", "quantiles"),
        ("tdigest.rank", "values"),
        ("tdigest.revrank", "values"),
        ("tdigest.cdf", "values"),
    ] {
        let expected = format!("O(N) where N is the number of {complexity} specified.");
        let docs = CommandDoc::read(&mut c, command);
        assert_eq!(docs.field("complexity").text(), expected, "{command}");
    }
    let list = c.cmd("COMMAND LIST FILTERBY MODULE bf").array();
    let tdigest = list.iter().filter(|n| n.text().starts_with("tdigest."));
    assert_eq!(tdigest.count(), 14, "{list:?}");
    family_acl_category(
        &server,
        "tdigest",
        "tdigest.",
        "TDIGEST.CREATE k",
        "BF.ADD b x",
    );
}

/// A compressing read during `CLIENT PAUSE WRITE` waits for the pause to end (it may
/// replicate), and the server lives.
#[test]
fn client_pause_write_holds_back_compressing_reads() {
    if !server_at_least((6, 2, 0)) {
        return;
    }
    let (server, mut c) = Server::start_with_conn();
    c.cmd("TDIGEST.CREATE k");
    c.cmd("TDIGEST.ADD k 1 2 3");
    assert_eq!(c.cmd("CLIENT PAUSE 300 WRITE"), ok());
    let started = Instant::now();
    let mut reader = server.conn();
    assert_eq!(double(&reader.cmd("TDIGEST.MIN k")), 1.0);
    assert_eq!(doubles(&reader.cmd("TDIGEST.QUANTILE k 0.5")), [2.0]);
    assert!(started.elapsed() >= Duration::from_millis(200));
    assert_eq!(c.cmd("PING"), simple("PONG"));
}

/// A random stream of t-digest commands over a few keys: writes, with reads (compressing
/// ones included) and DUMPs between them.
fn stream(c: &mut Conn, rng: &mut Rng, steps: usize) {
    for _ in 0..steps {
        let key = format!("k{}", rng.below(4));
        let line = match rng.below(20) {
            0 => format!("TDIGEST.CREATE {key} COMPRESSION {}", 1 + rng.below(60)),
            1..=7 => {
                let values: Vec<String> = (0..1 + rng.below(40))
                    .map(|_| (rng.below(2000) as f64 / 7.0 - 50.0).to_string())
                    .collect();
                format!("TDIGEST.ADD {key} {}", values.join(" "))
            }
            8 => format!("TDIGEST.QUANTILE {key} 0.5 0.1 0.99"),
            9 => format!("TDIGEST.CDF {key} 10 100"),
            10 => format!("TDIGEST.RANK {key} {}", rng.below(300) as i64 - 60),
            11 => format!("TDIGEST.BYREVRANK {key} {}", rng.below(100)),
            12 => format!("TDIGEST.TRIMMED_MEAN {key} 0.2 0.8"),
            13 => format!("TDIGEST.INFO {key}"),
            14 => format!("DUMP {key}"),
            15 => {
                let sources: Vec<String> = (0..1 + rng.below(3))
                    .map(|_| format!("k{}", rng.below(4)))
                    .collect();
                let option = ["", " OVERRIDE", " COMPRESSION 25"][rng.below(3) as usize];
                format!(
                    "TDIGEST.MERGE {key} {} {}{option}",
                    sources.len(),
                    sources.join(" ")
                )
            }
            16 => format!("TDIGEST.RESET {key}"),
            17 => format!("TDIGEST.MIN {key}"),
            18 if rng.below(5) == 0 => format!("DEL {key}"),
            _ => format!("TDIGEST.BYRANK {key} 1 {}", rng.below(200)),
        };
        let args: Vec<&str> = line.split(' ').collect();
        c.call(&args);
    }
}

/// Every digest's state, as DEBUG DIGEST-VALUE and INFO show it.
fn states(c: &mut Conn) -> Vec<Value> {
    let mut seen = vec![c.cmd("DEBUG DIGEST")];
    for k in 0..4 {
        let key = format!("k{k}");
        seen.push(c.call(&["DEBUG", "DIGEST-VALUE", &key]));
        seen.push(c.call(&["TDIGEST.INFO", &key]));
    }
    seen
}

#[test]
fn replicas_and_the_aof_hold_the_primarys_digests() {
    let primary = Server::with_aof();
    let mut p = primary.conn();
    let (_replica, mut r) = Server::synced_replica_of(&primary);
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    for round in 0..8 {
        stream(&mut p, &mut rng, 150);
        // Reads on the replica change nothing there. (Once it has applied the stream: before,
        // the stream's writes to other keys would move the database's digest under the reads.)
        wait_in_sync(&mut p, &mut r);
        stream_reads(&mut r);
        wait_in_sync(&mut p, &mut r);
        assert_eq!(states(&mut r), states(&mut p), "round {round}");
    }
    // A replica synchronised now loads the digests compressed (all a save can hold), and a
    // BGSAVE writes them so too: the primary compresses each at its next command and
    // replicates that, so all three agree again.
    stream(&mut p, &mut rng, 40);
    if !server_at_least((6, 2, 0)) {
        // No ForkChild event to learn of the fork from (see aof_round_trip).
        for k in 0..4 {
            p.call(&["TDIGEST.QUANTILE", &format!("k{k}"), "0.5"]);
        }
    }
    // An automatic AOF rewrite may be running (Redis 8 starts them as the AOF grows): the save
    // starts once it is done.
    wait_for("a BGSAVE to start", || {
        p.cmd("BGSAVE") == simple("Background saving started")
    });
    let (_late, mut l) = Server::synced_replica_of(&primary);
    for k in 0..4 {
        p.call(&["TDIGEST.ADD", &format!("k{k}"), "1"]);
    }
    stream(&mut p, &mut rng, 100);
    wait_in_sync(&mut p, &mut r);
    wait_in_sync(&mut p, &mut l);
    let expected = states(&mut p);
    assert_eq!(states(&mut r), expected);
    assert_eq!(states(&mut l), expected);
    // The AOF replays to the same digests.
    assert_eq!(p.cmd("DEBUG LOADAOF"), ok());
    assert_eq!(states(&mut p), expected);
}

/// Reads a replica's clients may send: none changes the replica's digests.
fn stream_reads(c: &mut Conn) {
    let before = states(c);
    for k in 0..4 {
        let key = format!("k{k}");
        for line in [
            "TDIGEST.QUANTILE {} 0.5",
            "TDIGEST.CDF {} 3",
            "TDIGEST.RANK {} 10",
            "TDIGEST.BYRANK {} 3",
            "TDIGEST.TRIMMED_MEAN {} 0.1 0.3",
            "DUMP {}",
        ] {
            let line = line.replace("{}", &key);
            let args: Vec<&str> = line.split(' ').collect();
            c.call(&args);
        }
    }
    assert_eq!(states(c), before, "a replica's reads change nothing");
}
