//! valkey-bloom's filters (data type `bloomfltr`) on redis-bf: valkey-bloom's own bytes (a
//! `BF.LOAD` payload its AOF rewrite wrote, tests/data/valkey-bloom) load and answer as
//! valkey-bloom answers; a key that holds one answers every BF command with valkey-bloom's
//! replies and errors; such filters survive every way Redis persists and moves values, and
//! replicate byte for byte. Side by side with valkey-bloom itself: `bf_valkey_compat.rs`.

mod common;

use common::*;

/// `BF.INFO` of the golden filter, as valkey-bloom gives it (RESP2; the error rate and the
/// tightening ratio as the server writes doubles, read back as numbers).
fn golden_info(c: &mut Conn, key: &str) -> Vec<Value> {
    let info = c.call(&["BF.INFO", key]).array();
    let mut plain = info.clone();
    for at in [9, 13] {
        plain[at] =
            Value::Bulk(format!("{}", info[at].text().parse::<f64>().unwrap()).into_bytes());
    }
    plain
}

#[test]
fn valkey_bloom_s_payload_loads_and_answers_as_valkey_bloom() {
    let (_server, mut c) = Server::start_with_conn();
    let payload = valkey_bloom::golden_payload();
    assert_eq!(c.call_bytes(&[b"BF.LOAD", b"g", &payload]), ok());
    assert_eq!(c.cmd("TYPE g"), simple("bloomfltr"));
    let expected = [
        simple("Capacity"),
        int(30),
        simple("Size"),
        int(536),
        simple("Number of filters"),
        int(2),
        simple("Number of items inserted"),
        int(29),
        simple("Error rate"),
        bulk(b"0.01"),
        simple("Expansion rate"),
        int(2),
        simple("Tightening ratio"),
        bulk(b"0.5"),
        simple("Max scaled capacity"),
        int(20971510),
    ];
    assert_eq!(golden_info(&mut c, "g"), expected);
    let items: Vec<String> = (0..60).map(|i| format!("item{i}")).collect();
    let mut mexists: Vec<&str> = vec!["BF.MEXISTS", "g"];
    mexists.extend(items.iter().map(String::as_str));
    // Every item added is found; of item30 … item59 only item36 (a false positive there too).
    let found: Vec<Value> = (0..60).map(|i| int(i64::from(i < 30 || i == 36))).collect();
    assert_eq!(c.call(&mexists), Value::Array(found));
    assert_eq!(c.cmd("BF.CARD g"), int(29));
    assert_eq!(c.cmd("BF.ADD g item17"), int(0));
    assert_eq!(c.cmd("BF.ADD g new"), int(1));
    // The same payload comes back from an AOF rewrite, and its DUMP, where the server reads
    // Valkey 9's RDB version, is valkey-bloom's.
    c.cmd("DEL g");
    c.call_bytes(&[b"BF.LOAD", b"g", &payload]);
    c.cmd("CONFIG SET rdbcompression no");
    let dump = valkey_bloom::golden_dump();
    if c.call_bytes(&[b"RESTORE", b"d", b"0", &dump]) == ok() {
        assert_eq!(c.cmd("DUMP g"), Value::Bulk(dump));
        assert_eq!(golden_info(&mut c, "d"), expected);
    }
}

#[test]
fn valkey_bloom_s_replies_and_errors() {
    // The fixed seed: which absent items a tiny filter finds must not change from run to run.
    let server = Server::with_setting("bloom-use-random-seed", "no");
    let mut c = server.conn();
    c.cmd("SET str x");
    let created = c.cmd("BF.INSERT n CAPACITY 2 NONSCALING TIGHTENING 0.5 ITEMS a");
    assert_eq!(created, ints(&[1]));
    expect_replies(
        &mut c,
        "
            BF.INFO n TIGHTENING -> (error) ERR invalid information value
            BF.INFO n MAXSCALEDCAPACITY -> (error) ERR invalid information value
            BF.INFO n bogus -> (error) ERR invalid information value
            BF.INFO n capacity -> (integer) 2
            BF.INFO n FILTERS -> (integer) 1
            BF.CARD n -> (integer) 1
            BF.EXISTS n a -> (integer) 1
            BF.EXISTS n b -> (integer) 0
            BF.ADD n a -> (integer) 0
            # Items that do not fit a non-scaling filter: the whole command is refused.
            BF.MADD n b c -> (error) ERR non scaling filter is full
            BF.ADD n b -> (integer) 1
            BF.ADD n c -> (error) ERR non scaling filter is full
            BF.RESERVE n 0.01 10 -> (error) ERR item exists
            BF.SCANDUMP n 0 -> (error) ERR valkey-bloom filters (type bloomfltr) have no SCANDUMP chunks: use DUMP and RESTORE, or BF.LOAD
            BF.LOAD n x -> (error) BUSYKEY Target key name already exists.
            BF.LOAD str x -> (wrongtype)
            BF.LOAD new x -> (error) ERR bloom object decoding failed. Unsupported version
            BF.INSERT v TIGHTENING 1 ITEMS a -> (error) ERR (0 < tightening ratio range < 1)
            BF.INSERT v TIGHTENING x ITEMS a -> (error) ERR bad tightening ratio
            BF.INSERT v SEED short ITEMS a -> (error) ERR invalid seed
            BF.INSERT v TIGHTENING 0.5 ERROR 2 ITEMS a -> (error) ERR (0 < error rate range < 1)
            BF.INSERT v TIGHTENING 0.5 ERROR x ITEMS a -> (error) ERR bad error rate
            BF.INSERT v TIGHTENING 0.5 CAPACITY 0 ITEMS a -> (error) ERR (capacity should be larger than 0)
            BF.INSERT v TIGHTENING 0.5 CAPACITY -1 ITEMS a -> (error) ERR bad capacity
            BF.INSERT v TIGHTENING 0.5 EXPANSION 0 ITEMS a -> (error) ERR bad expansion
            BF.INSERT v TIGHTENING 0.5 FOO ITEMS a -> (error) ERR unknown argument received
            BF.INSERT v TIGHTENING 0.5 NOCREATE ITEMS a -> (error) ERR not found
            BF.INSERT v VALIDATESCALETO 100 NONSCALING ITEMS a -> (error) ERR cannot use NONSCALING and VALIDATESCALETO options together
            BF.INSERT v VALIDATESCALETO 1000000000 ITEMS a -> (error) ERR provided VALIDATESCALETO causes bloom object to exceed memory limit
            BF.INSERT v VALIDATESCALETO x ITEMS a -> (error) ERR bad capacity
            BF.INSERT v TIGHTENING 0.5 CAPACITY 1000000000000 ITEMS a -> (error) ERR operation exceeds bloom object memory limit
            BF.INSERT v TIGHTENING 0.5 ITEMS -> (arity)
            BF.INSERT str TIGHTENING 0.5 ITEMS a -> (wrongtype)
        ",
    );
    assert_eq!(c.cmd("EXISTS v"), int(0), "failed creates change nothing");
    // A filter made without SEED has the fixed seed here; its info in RESP3 is an array.
    assert_eq!(
        c.cmd("BF.INSERT v VALIDATESCALETO 1000 ITEMS a"),
        ints(&[1])
    );
    let mut c3 = server.conn().resp3();
    let info = c3.cmd("BF.INFO v").array();
    assert_eq!(info.len(), 16);
    assert_eq!(info[14], simple("Max scaled capacity"));
    assert_eq!(info[9].text().parse::<f64>(), Ok(0.01));
    assert_eq!(c3.cmd("BF.EXISTS v a"), int(1));
    // On RedisBloom's filters nothing changes.
    assert_eq!(c.cmd("BF.ADD rb a"), int(1));
    assert_eq!(
        c.cmd("BF.INSERT rb TIGHTENING 0.5 ITEMS a"),
        err("Unknown argument received")
    );
}

const FILTERS: persist::Family = persist::Family {
    build: valkey_bloom::build,
    answers: valkey_bloom::answers,
    // Several items: one may be a false positive of a random-seeded filter, and then change
    // nothing (the copy's digest would stay its original's about once in a hundred runs).
    write: |c, key| {
        c.call(&[
            "BF.MADD",
            key,
            "written-1",
            "written-2",
            "written-3",
            "written-4",
        ]);
    },
};

#[test]
fn valkey_bloom_filters_survive_every_move() {
    persist::survives_every_move(&FILTERS);
}

/// A replica of redis-bf holds the same bytes: creations replicate as valkey-bloom's
/// `BF.INSERT` with every property, adds verbatim, an add that failed part way as the items
/// before the failure.
#[test]
fn replicas_hold_the_same_bytes() {
    let master = Server::start();
    let mut m = master.conn();
    let mut keys = valkey_bloom::build(&mut m);
    let (_replica, mut r) = Server::synced_replica_of(&master);
    valkey_bloom::build(&mut m);
    m.cmd("BF.INSERT late TIGHTENING 0.3 CAPACITY 5 EXPANSION 3 ITEMS a b c d e f g h");
    m.call_bytes(&[b"BF.LOAD", b"loaded", &valkey_bloom::golden_payload()]);
    // A scale-out the limit refuses part way: 600 bytes hold one sub-filter of 10 items.
    if feature::module_configs() {
        let limit = config_name(&mut m, "bf-memory-usage-limit");
        m.call(&["CONFIG", "SET", &limit, "600"]);
        m.cmd("BF.INSERT part TIGHTENING 0.5 CAPACITY 10");
        let items: Vec<String> = (0..40).map(|i| format!("p{i}")).collect();
        let mut madd: Vec<&str> = vec!["BF.MADD", "part"];
        madd.extend(items.iter().map(String::as_str));
        let reply = m.call(&madd).array();
        assert_eq!(
            reply.last(),
            Some(&err("ERR operation exceeds bloom object memory limit"))
        );
        // The same where the insert creates the filter: its creation replicates the items
        // tried, not the one refused.
        let mut insert = vec![
            "BF.INSERT",
            "made",
            "TIGHTENING",
            "0.5",
            "CAPACITY",
            "10",
            "ITEMS",
        ];
        insert.extend(items.iter().map(String::as_str));
        let reply = m.call(&insert).array();
        assert_eq!(
            reply.last(),
            Some(&err("ERR operation exceeds bloom object memory limit"))
        );
        m.call(&["CONFIG", "SET", &limit, "0"]);
        keys.extend(["part", "made"]);
    }
    keys.extend(["late", "loaded"]);
    wait_in_sync(&mut m, &mut r);
    for key in keys {
        assert_eq!(m.call(&["DUMP", key]), r.call(&["DUMP", key]), "{key}");
        assert_eq!(
            m.call(&["BF.INFO", key]),
            r.call(&["BF.INFO", key]),
            "{key}"
        );
    }
}

#[test]
fn keyspace_events_are_valkey_bloom_s() {
    let Some((events, _)) = keyspace_events_of(&[
        "BF.INSERT v TIGHTENING 0.5 ITEMS a",
        "BF.ADD v b",
        // Nothing added: no event.
        "BF.ADD v b",
        "BF.MADD v c",
    ]) else {
        return;
    };
    // A creation that adds raises both, `bloom.add` first (valkey-bloom's
    // `replicate_and_notify_events`).
    assert_eq!(
        events,
        ["bloom.add", "bloom.reserve", "bloom.add", "bloom.add"]
    );
}

/// Under `bf-flavour valkey-bloom`, BF.ADD, BF.MADD, BF.RESERVE and BF.INSERT on an empty key
/// make the filter valkey-bloom makes, of its configs (here a fixed seed and a capacity of
/// 50): byte for byte the one its own options make on a server of the default flavour. Our
/// options still make ours; an empty key reads as valkey-bloom's integer 0.
#[test]
fn the_valkey_bloom_flavour_makes_its_filters() {
    let flavoured = Server::with(Module::RedisBf)
        .setting("bf-flavour", "valkey-bloom")
        .setting("bloom-use-random-seed", "no")
        .setting("bloom-capacity", "50")
        .start();
    let plain = Server::with_setting("bloom-use-random-seed", "no");
    let (mut c, mut p) = (flavoured.conn(), plain.conn());
    for (made, reply, same) in [
        (
            "BF.ADD a x",
            int(1),
            "BF.INSERT a CAPACITY 50 TIGHTENING 0.5 ITEMS x",
        ),
        (
            "BF.MADD m x y x",
            ints(&[1, 1, 0]),
            "BF.INSERT m CAPACITY 50 TIGHTENING 0.5 ITEMS x y x",
        ),
        (
            "BF.RESERVE r 0.001 1000 NONSCALING",
            ok(),
            "BF.INSERT r CAPACITY 1000 ERROR 0.001 NONSCALING TIGHTENING 0.5",
        ),
        (
            "BF.RESERVE e 0.1 7 expansion 4",
            ok(),
            "BF.INSERT e CAPACITY 7 ERROR 0.1 EXPANSION 4 TIGHTENING 0.5",
        ),
        (
            "BF.INSERT i EXPANSION 3 ITEMS a b",
            ints(&[1, 1]),
            "BF.INSERT i EXPANSION 3 CAPACITY 50 TIGHTENING 0.5 ITEMS a b",
        ),
    ] {
        assert_eq!(c.cmd(made), reply, "{made}");
        assert!(!p.cmd(same).is_error(), "{same}");
        let key = made.split(' ').nth(1).unwrap();
        assert_eq!(c.call(&["TYPE", key]), simple("bloomfltr"), "{made}");
        assert_eq!(c.call(&["DUMP", key]), p.call(&["DUMP", key]), "{made}");
    }
    expect_replies(
        &mut c,
        "
            BF.RESERVE k 0.01 100 FOO -> (error) ERROR
            BF.RESERVE k 0.01 100 EXPANSION -> (error) ERROR
            BF.RESERVE k 0.01 100 NONSCALING 3 -> (error) ERROR
            BF.RESERVE k 0.01 100 EXPANSION 0 -> (error) ERR bad expansion
            BF.RESERVE k abc 100 -> (error) ERR bad error rate
            BF.RESERVE k 1 100 -> (error) ERR (0 < error rate range < 1)
            BF.RESERVE k 0.01 0 -> (error) ERR (capacity should be larger than 0)
            BF.RESERVE a 0.01 100 -> (error) ERR item exists
            BF.INSERT k BOGUS 1 -> (error) ERR unknown argument received
            BF.EXISTS none x -> (integer) 0
            BF.CARD none -> (integer) 0
            BF.INSERT k HELLO -> (error) ERR unknown argument received
            BF.INSERT k CAPACITY -> (error) ERR wrong number of arguments for 'BF.INSERT' command
            SET str x -> OK
            BF.EXISTS str x -> (wrongtype)
            BF.MEXISTS str x y -> (wrongtype)
            BF.ADD str x -> (wrongtype)
            BF.RESERVE w 0.01 100 WINDOW -> OK
            BF.RESERVE f 0.01 100 LAYOUT FAST -> OK
        ",
    );
    assert_eq!(c.cmd("TYPE w"), simple("bf-window"));
    assert_eq!(c.cmd("TYPE f"), simple("bfblocked"));
    assert_eq!(c.cmd("TYPE k"), simple("none"));
    // Its command names, in capitals as valkey-bloom registers them: where the server names
    // the registered command in arity errors (Redis 7, Valkey), and in COMMAND.
    let name = if feature::lowercase_arity_errors() {
        "BF.ADD"
    } else {
        "bf.add"
    };
    let arity = format!("ERR wrong number of arguments for '{name}' command");
    assert_eq!(c.cmd("bf.add k"), err(&arity));
    assert_eq!(p.cmd("bf.add k"), arity_error("bf.add k"));
    // `BF.INSERT key` alone makes an empty filter; COMMAND INFO shows valkey-bloom's flags
    // and arity (-1: each command checks its own).
    assert_eq!(c.cmd("BF.INSERT empty"), Value::Array(vec![]));
    assert_eq!(c.cmd("BF.CARD empty"), int(0));
    let info = c.cmd("COMMAND INFO bf.exists").array()[0].array();
    assert_eq!(info[1], int(-1));
    assert!(info[2].array().contains(&simple("fast")), "{info:?}");
    // Ours that valkey-bloom has not keep their own flags.
    let scandump = c.cmd("COMMAND INFO bf.scandump").array()[0].array();
    assert!(
        !scandump[2].array().contains(&simple("fast")),
        "{scandump:?}"
    );
    let mut c3 = flavoured.conn().resp3();
    assert_eq!(c3.cmd("BF.EXISTS none x"), int(0));
    assert_eq!(c3.cmd("BF.MEXISTS none x y"), ints(&[0, 0]));
}

/// valkey-bloom's default, a random seed per filter, drawn on the primary and replicated with
/// the creation: a replica of the other flavour and configs holds the same bytes.
#[test]
fn random_seeds_travel_with_the_creation() {
    let master = Server::with(Module::RedisBf)
        .setting("bf-flavour", "valkey-bloom")
        .setting("bloom-fp-rate", "0.001")
        .start();
    let mut m = master.conn();
    let (_replica, mut r) = Server::synced_replica_of(&master);
    let keys = ["a", "b", "m", "r", "i"];
    for line in [
        "BF.ADD a x",
        "BF.ADD b x",
        "BF.MADD m x y",
        "BF.RESERVE r 0.01 10",
        "BF.INSERT i ITEMS q",
    ] {
        assert!(!m.cmd(line).is_error(), "{line}");
    }
    assert_ne!(m.cmd("DUMP a"), m.cmd("DUMP b"), "two random seeds");
    assert_eq!(m.cmd("BF.INFO a ERROR"), bulk(b"0.001"));
    wait_in_sync(&mut m, &mut r);
    for key in keys {
        assert_eq!(m.call(&["DUMP", key]), r.call(&["DUMP", key]), "{key}");
    }
}

/// valkey-bloom's configs (`bf.bloom-*`) are set and read as on valkey-bloom, with its
/// defaults, ranges and errors, and decide what later creations make.
#[test]
fn valkey_bloom_s_configs() {
    if !feature::module_configs() {
        return;
    }
    let server = Server::with_setting("bf-flavour", "valkey-bloom");
    let mut c = server.conn();
    let name = |c: &mut Conn, short: &str| config_name(c, short);
    for (config, default) in [
        ("bloom-capacity", "100"),
        ("bloom-expansion", "2"),
        ("bloom-fp-rate", "0.01"),
        ("bloom-tightening-ratio", "0.5"),
        ("bloom-use-random-seed", "yes"),
        ("bloom-memory-usage-limit", "134217728"),
        ("bloom-defrag-enabled", "yes"),
        ("bf-flavour", "valkey-bloom"),
    ] {
        let full = name(&mut c, config);
        assert_eq!(
            c.call(&["CONFIG", "GET", &full]).array()[1],
            bulk(default.as_bytes())
        );
    }
    for (config, value, error) in [
        ("bloom-fp-rate", "1.1", "ERR (0 < error rate range < 1)"),
        ("bloom-fp-rate", "abc", "Invalid floating-point value"),
        (
            "bloom-tightening-ratio",
            "1.75",
            "ERR (0 < tightening ratio range < 1)",
        ),
        (
            "bloom-capacity",
            "0",
            "argument must be between 1 and 9223372036854775807 inclusive",
        ),
        (
            "bloom-capacity",
            "x",
            "argument couldn't be parsed into an integer",
        ),
        (
            "bloom-expansion",
            "-1",
            "argument must be between 0 and 4294967295 inclusive",
        ),
        (
            "bloom-use-random-seed",
            "maybe",
            "argument must be 'yes' or 'no'",
        ),
    ] {
        let full = name(&mut c, config);
        let reply = c.call(&["CONFIG", "SET", &full, value]);
        assert!(
            reply.is_error() && reply.text().ends_with(error),
            "{config} {value}: {reply:?}"
        );
    }
    let flavour = name(&mut c, "bf-flavour");
    assert!(c
        .call(&["CONFIG", "SET", &flavour, "redisbloom"])
        .is_error());
    for (config, value) in [
        ("bloom-capacity", "10000"),
        ("bloom-expansion", "0"),
        ("bloom-fp-rate", "0.75"),
        ("bloom-tightening-ratio", "0.4"),
    ] {
        let full = name(&mut c, config);
        assert_eq!(c.call(&["CONFIG", "SET", &full, value]), ok());
    }
    // valkey-bloom's test_bloom_config_set_changes_default_creations.
    assert_eq!(c.cmd("BF.ADD changed item"), int(1));
    assert_eq!(c.cmd("BF.INFO changed CAPACITY"), int(10000));
    assert_eq!(c.cmd("BF.INFO changed ERROR"), bulk(b"0.75"));
    assert_eq!(c.cmd("BF.INFO changed EXPANSION"), Value::Nil);
    // The per-object limit: 100 bytes hold no filter.
    let limit = name(&mut c, "bloom-memory-usage-limit");
    assert_eq!(c.call(&["CONFIG", "SET", &limit, "100"]), ok());
    assert_eq!(
        c.cmd("BF.ADD small item"),
        err("ERR operation exceeds bloom object memory limit")
    );
}

/// A valkey-bloom filter is bounded by its object limit and the machine, not by `maxmemory`,
/// which valkey-bloom leaves to eviction (its `test_large_allocation_when_below_maxmemory`);
/// RedisBloom's kind keeps redis-bf's bound.
#[test]
fn valkey_bloom_filters_may_pass_maxmemory() {
    let server = Server::with_setting("bf-flavour", "valkey-bloom");
    let mut c = server.conn();
    assert_eq!(c.cmd("CONFIG SET maxmemory-policy volatile-lru"), ok());
    assert_eq!(c.cmd("CONFIG SET maxmemory 4mb"), ok());
    assert_eq!(
        c.cmd("BF.RESERVE ours 0.001 10000000 LAYOUT CLASSIC"),
        err("ERR Insufficient memory to create filter")
    );
    assert_eq!(c.cmd("BF.RESERVE theirs 0.001 10000000"), ok());
    assert_eq!(c.cmd("TYPE theirs"), simple("bloomfltr"));
}
