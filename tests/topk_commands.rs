//! Every Top-K command's replies and error strings, byte for byte as RedisBloom 8 sends them,
//! in RESP2 and RESP3 (its `src/rm_topk.c`, `tests/flow/test_topk.py`, `test_resp3.py` and
//! redis-py's `test_topk*`): the key-state matrix, arity, the checks before any write, memory
//! limits, keyspace events, command info and ACL; binary items; and Top-Ks surviving every
//! way Redis persists and moves values, with the same bytes on replicas and after replays at
//! any decay.

mod common;

use common::*;

/// The server's wrong-arity error for `command` (see `arity_error`).
fn arity(command: &str) -> Value {
    arity_error(&command.to_uppercase())
}

fn bulks(items: &[&str]) -> Value {
    Value::Array(items.iter().map(|i| bulk(i.as_bytes())).collect())
}

/// A flat `TOPK.LIST … WITHCOUNT` reply.
fn counted(pairs: &[(&str, i64)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .flat_map(|(item, n)| [bulk(item.as_bytes()), int(*n)])
            .collect(),
    )
}

const BAD_INCREMENT: &str = "TopK: increment must be an integer greater or equal to 0                            and smaller or equal to 100,000";

#[test]
fn reserve_validates_in_redisbloom_8_order() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    expect_replies(
        &mut c,
        "
            TOPK.RESERVE t 20 50 5 0.9 -> OK
            # The key is checked first, whatever its type and the arguments.
            TOPK.RESERVE t 20 50 5 0.9 -> (error) TopK: key already exists
            TOPK.RESERVE str x -> (error) TopK: key already exists
            TOPK.RESERVE foo bar 50 5 0.9 -> (error) TopK: invalid k
            TOPK.RESERVE foo 0.9 50 5 0.9 -> (error) TopK: invalid k
            TOPK.RESERVE foo 0 -> (error) TopK: invalid k
            TOPK.RESERVE foo 20 bar 5 0.9 -> (error) TopK: invalid width
            TOPK.RESERVE foo 20 0.9 5 0.9 -> (error) TopK: invalid width
            TOPK.RESERVE foo 20 50 bar 0.9 -> (error) TopK: invalid depth
            TOPK.RESERVE foo 20 50 0.9 0.9 -> (error) TopK: invalid depth
            TOPK.RESERVE foo 20 50 5 bar -> (error) TopK: invalid decay value. must be '<= 1' & '> 0'
            TOPK.RESERVE foo 20 50 5 42 -> (error) TopK: invalid decay value. must be '<= 1' & '> 0'
            TOPK.RESERVE foo 20 50 5 0 -> (error) TopK: invalid decay value. must be '<= 1' & '> 0'
            # test_overflow_k_width_depth: RedisBloom 2.8.2 aborts the server on the first.
            TOPK.RESERVE poc 4294967296 1 1 0.1 -> (error) TopK: invalid k
            TOPK.RESERVE poc 1 4294967296 1 0.1 -> (error) TopK: invalid width
            TOPK.RESERVE poc 1 1 4294967296 0.1 -> (error) TopK: invalid depth
            # test_insufficient_memory, on every server: the size is checked before allocating.
            TOPK.RESERVE x 3 2000000000 200000000 1 -> (error) ERR Insufficient memory to create topk data structure
            TOPK.RESERVE -> (arity)
            TOPK.RESERVE foo -> (arity)
            TOPK.RESERVE foo bar baz -> (arity)
            TOPK.RESERVE foo bar baz qux -> (arity)
            TOPK.RESERVE foo 1 2 3 0.5 6 -> (arity)
        ",
    );
    assert_eq!(
        c.cmd("EXISTS foo poc x"),
        int(0),
        "failed creates change nothing"
    );
    // The per-value limit counts MEMORY USAGE's bytes: 2088 + 8 × width × depth + 24 × k.
    if feature::module_configs() {
        let limit = config_name(&mut c, "bf-memory-usage-limit");
        assert_eq!(c.call(&["CONFIG", "SET", &limit, "3000"]), ok());
        assert_eq!(c.cmd("TOPK.RESERVE fits 2 54 2 0.9"), ok());
        assert_eq!(
            c.cmd("TOPK.RESERVE over 3 54 2 0.9"),
            err("ERR operation exceeds topk object memory limit")
        );
        assert_eq!(c.call(&["CONFIG", "SET", &limit, "0"]), ok());
    }
    // test_no_init_params: defaults 8, 7, 0.9.
    assert_eq!(c.cmd("TOPK.RESERVE d 3"), ok());
    let info = c.cmd("TOPK.INFO d").array();
    assert_eq!(
        info[..7],
        [
            simple("k"),
            int(3),
            simple("width"),
            int(8),
            simple("depth"),
            int(7),
            simple("decay")
        ]
    );
    assert_eq!(info[7].text().parse::<f64>().unwrap(), 0.9);
}

#[test]
fn redisbloom_s_flow_tests() {
    let (_server, mut c) = Server::start_with_conn();
    // test_simple, test_add_query_count.
    c.cmd("TOPK.RESERVE topk 20 50 5 0.9");
    assert_eq!(c.cmd("TOPK.ADD topk a"), Value::Array(vec![Value::Nil]));
    assert_eq!(
        c.cmd("TOPK.ADD topk a b"),
        Value::Array(vec![Value::Nil; 2])
    );
    assert_eq!(c.cmd("TOPK.QUERY topk a c"), ints(&[1, 0]));
    c.cmd("FLUSHALL");
    c.cmd("TOPK.RESERVE topk 20 50 5 0.9");
    c.cmd("TOPK.ADD topk bar baz 42");
    assert_eq!(c.cmd("TOPK.QUERY topk foo bar baz"), ints(&[0, 1, 1]));
    assert_eq!(c.cmd("TOPK.COUNT topk foo bar baz"), ints(&[0, 1, 1]));
    c.cmd("TOPK.ADD topk bar baz");
    assert_eq!(c.cmd("TOPK.COUNT topk foo bar baz 42"), ints(&[0, 2, 2, 1]));
    assert_eq!(
        c.cmd("TOPK.ADD topk foo 1 bar 1"),
        Value::Array(vec![Value::Nil; 4])
    );
    // test_incrby.
    c.cmd("TOPK.RESERVE inc 3 10 3 1");
    assert_eq!(
        c.cmd("TOPK.INCRBY inc bar 3 baz 6 42 2"),
        Value::Array(vec![Value::Nil; 3])
    );
    assert_eq!(
        c.cmd("TOPK.INCRBY inc 42 8 xyzzy 4"),
        Value::Array(vec![Value::Nil, bulk(b"bar")])
    );
    assert_eq!(
        c.cmd("TOPK.COUNT inc bar baz 42 xyzzy 4"),
        ints(&[3, 6, 10, 4, 0])
    );
    // test_lookup_table.
    c.cmd("TOPK.RESERVE lt 1 3 3 .9");
    c.cmd("TOPK.INCRBY lt bar 300 baz 600 42 200");
    c.cmd("TOPK.INCRBY lt 42 80 xyzzy 400");
    assert_eq!(c.cmd("TOPK.LIST lt"), bulks(&["baz"]));
    // test_list_info.
    c.cmd("TOPK.RESERVE li 2 50 5 0.9");
    c.cmd("TOPK.ADD li foo bar baz 42 foo bar baz");
    c.cmd("TOPK.ADD li foo baz 42 foo baz");
    c.cmd("TOPK.ADD li foo bar baz foo baz");
    assert_eq!(c.cmd("TOPK.LIST li"), bulks(&["foo", "baz"]));
    assert_eq!(
        c.cmd("TOPK.ADD li bar bar bar bar bar"),
        Value::Array(vec![
            Value::Nil,
            Value::Nil,
            bulk(b"foo"),
            Value::Nil,
            Value::Nil
        ])
    );
    assert_eq!(c.cmd("TOPK.LIST li"), bulks(&["bar", "baz"]));
    // test_no_init_params, test_list_with_count.
    c.cmd("TOPK.RESERVE np 3");
    c.cmd("TOPK.ADD np foo bar baz 42 foo bar baz foo foo foo foo");
    c.cmd("TOPK.ADD np foo baz 42 foo baz foo foo foo foo foo");
    c.cmd("TOPK.ADD np foo bar baz foo baz baz baz baz");
    assert_eq!(c.cmd("TOPK.LIST np"), bulks(&["foo", "baz", "bar"]));
    c.cmd("TOPK.RESERVE wc 3");
    c.cmd("TOPK.ADD wc foo bar baz 42 foo bar baz");
    c.cmd("TOPK.ADD wc foo baz 42 foo");
    c.cmd("TOPK.ADD wc foo bar baz foo");
    assert_eq!(
        c.cmd("TOPK.LIST wc WITHCOUNT"),
        counted(&[("foo", 6), ("baz", 4), ("bar", 3)])
    );
    // test_list_no_duplicates.
    c.cmd("TOPK.RESERVE nd 10 8 7 1");
    c.cmd("TOPK.ADD nd j h d j h h j g e g i f g f a j c i a d");
    let listed = c.cmd("TOPK.LIST nd").sorted_texts();
    let mut unique = listed.clone();
    unique.dedup();
    assert_eq!(listed, unique);
    // The equal count expels the minimum (k = 2).
    c.cmd("TOPK.RESERVE k2 2 8 7 1");
    assert_eq!(
        c.cmd("TOPK.ADD k2 a b c"),
        Value::Array(vec![Value::Nil, Value::Nil, bulk(b"a")])
    );
    // test_results_after_rdb_reload: the same with and without a reload in between.
    let mut results = vec![];
    for reload in [true, false] {
        c.cmd("DEL r");
        c.cmd("TOPK.RESERVE r 1 1 1 0.99999");
        for i in 0..2 {
            if reload {
                assert_eq!(c.cmd("DEBUG RELOAD"), ok());
            }
            c.call(&["TOPK.ADD", "r", &i.to_string()]);
        }
        results.push(c.cmd("TOPK.LIST r"));
    }
    assert_eq!(results[0], results[1]);
}

#[test]
fn incrby_checks_every_increment_before_the_first() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    c.cmd("TOPK.RESERVE t 3 10 3 1");
    c.cmd("TOPK.INCRBY t a 5");
    let bad = || err(BAD_INCREMENT);
    for (line, reply) in [
        // One pair: a well-formed `[error]`, as RedisBloom and redis-py's tests expect.
        ("TOPK.INCRBY t foo -5", Value::Array(vec![bad()])),
        ("TOPK.INCRBY t foo 123456", Value::Array(vec![bad()])),
        ("TOPK.INCRBY t foo x", Value::Array(vec![bad()])),
        ("TOPK.INCRBY t foo 100001", Value::Array(vec![bad()])),
        // Several: every element the error, nothing applied (RedisBloom applies `a 1`, then
        // sends one nil and the error in an array of three and stops).
        (
            "TOPK.INCRBY t a 1 b -1 c 2",
            Value::Array(vec![bad(), bad(), bad()]),
        ),
        ("TOPK.INCRBY missing a -1", err("TopK: key does not exist")),
        ("TOPK.INCRBY str a -1", err(WRONGTYPE)),
        ("TOPK.INCRBY t a", arity("topk.incrby")),
        ("TOPK.INCRBY t a 1 b", arity("topk.incrby")),
    ] {
        assert_eq!(c.cmd(line), reply, "{line}");
    }
    assert_eq!(c.cmd("TOPK.COUNT t a b c foo"), ints(&[5, 0, 0, 0]));
    assert_eq!(
        c.cmd("TOPK.INCRBY t a 100000 b 0"),
        Value::Array(vec![Value::Nil; 2])
    );
    assert_eq!(c.cmd("TOPK.COUNT t a"), ints(&[100005]));
    // An item taken in with count 0: QUERY sees it, LIST does not.
    assert_eq!(c.cmd("TOPK.QUERY t b"), ints(&[1]));
    assert_eq!(c.cmd("TOPK.LIST t WITHCOUNT"), counted(&[("a", 100005)]));
}

#[test]
fn keys_lists_and_both_protocols() {
    let (server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    c.cmd("TOPK.RESERVE t 3 8 7 1");
    for (line, reply) in [
        // The keyword is checked before the key: any prefix of WITHCOUNT, in any case.
        ("TOPK.LIST nokey x", err("WITHCOUNT keyword expected")),
        ("TOPK.LIST t WITHCOUNTS", err("WITHCOUNT keyword expected")),
        ("TOPK.LIST t _topk_", err("WITHCOUNT keyword expected")),
        ("TOPK.LIST t", Value::Array(vec![])),
        ("TOPK.LIST t w", Value::Array(vec![])),
        ("TOPK.LIST nokey WiThCoUnT", err("TopK: key does not exist")),
        ("TOPK.LIST str", err(WRONGTYPE)),
        ("TOPK.ADD missing a", err("TopK: key does not exist")),
        ("TOPK.ADD str a", err(WRONGTYPE)),
        ("TOPK.QUERY missing a", err("TopK: key does not exist")),
        ("TOPK.QUERY str a", err(WRONGTYPE)),
        ("TOPK.COUNT missing a", err("TopK: key does not exist")),
        ("TOPK.INFO str", err(WRONGTYPE)),
        ("TOPK.INFO missing", err("TopK: key does not exist")),
        ("TOPK.ADD t", arity("topk.add")),
        ("TOPK.QUERY t", arity("topk.query")),
        ("TOPK.COUNT t", arity("topk.count")),
        ("TOPK.LIST", arity("topk.list")),
        ("TOPK.LIST t WITHCOUNT x", arity("topk.list")),
        ("TOPK.INFO t x", arity("topk.info")),
    ] {
        assert_eq!(c.cmd(line), reply, "{line}");
    }
    assert_eq!(c.call(&["TOPK.LIST", "t", ""]), Value::Array(vec![]));
    // test_cstring, test_empty_string.
    c.call(&["TOPK.ADD", "t", "Lets\nCrash"]);
    assert_eq!(c.cmd("TOPK.LIST t"), bulks(&["Lets\nCrash"]));
    c.cmd("DEL t");
    c.cmd("TOPK.RESERVE t 3");
    c.call(&["TOPK.ADD", "t", ""]);
    assert_eq!(c.cmd("TOPK.LIST t WITHCOUNT"), counted(&[("", 1)]));
    assert_eq!(c.call(&["TOPK.QUERY", "t", ""]), ints(&[1]));
    c.call(&["TOPK.INCRBY", "t", "", "100"]);
    c.cmd("TOPK.ADD t foo bar baz");
    c.call(&["TOPK.ADD", "t", "foo", "bar", "baz", ""]);
    c.call(&["TOPK.ADD", "t", "foo", "bar", ""]);
    c.call(&["TOPK.ADD", "t", "foo", ""]);
    assert_eq!(
        c.cmd("TOPK.LIST t WITHCOUNT"),
        counted(&[("", 104), ("foo", 4), ("bar", 3)])
    );
    c.cmd("TOPK.INCRBY t foo 500 bar 500 baz 500");
    assert_eq!(
        c.cmd("TOPK.LIST t WITHCOUNT"),
        counted(&[("foo", 504), ("bar", 503), ("baz", 502)])
    );
    // RESP3 (test_resp3): booleans, nulls, a map with a double.
    let mut c3 = server.conn().resp3();
    c3.cmd("TOPK.RESERVE r3 2 50 5 0.9");
    // Nulls are RESP3's on every server (the module API had them before maps and booleans).
    let null = Value::Null;
    assert_eq!(
        c3.cmd("TOPK.ADD r3 a b a"),
        Value::Array(vec![null.clone(); 3])
    );
    assert_eq!(
        c3.cmd("TOPK.QUERY r3 a x b y"),
        bools(&[true, false, true, false])
    );
    assert_eq!(c3.cmd("TOPK.COUNT r3 a b x"), ints(&[2, 1, 0]));
    assert_eq!(
        c3.cmd("TOPK.LIST r3 WITHCOUNT"),
        counted(&[("a", 2), ("b", 1)])
    );
    let info = c3.cmd("TOPK.INFO r3");
    let decay = if feature::module_resp3() {
        let Value::Map(pairs) = &info else {
            panic!("{info:?}")
        };
        assert_eq!(
            pairs[..3],
            [
                (simple("k"), int(2)),
                (simple("width"), int(50)),
                (simple("depth"), int(5))
            ]
        );
        assert_eq!(pairs[3].0, simple("decay"));
        pairs[3].1.clone()
    } else {
        info.array()[7].clone()
    };
    assert_eq!(decay.text().parse::<f64>().unwrap(), 0.9);
}

#[test]
fn binary_items_are_kept_whole_and_replied_as_c_strings() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("TOPK.RESERVE t 3 8 7 1");
    for (item, n) in [(&b""[..], "1"), (b"x\x00y", "2"), (b"abc", "1")] {
        c.call_bytes(&[b"TOPK.INCRBY", b"t", item, n.as_bytes()]);
    }
    let listed = counted(&[("x", 2), ("", 1), ("abc", 1)]);
    let probes: [&[u8]; 5] = [b"", b"x\x00y", b"x", b"abc", b"x\x00z"];
    let query = |c: &mut Conn| {
        let mut args: Vec<&[u8]> = vec![b"TOPK.QUERY", b"t"];
        args.extend(probes);
        c.call_bytes(&args)
    };
    assert_eq!(c.cmd("TOPK.LIST t WITHCOUNT"), listed);
    assert_eq!(query(&mut c), ints(&[1, 1, 0, 1, 0]));
    // RedisBloom loses `x\0y` from the heap and lists `""` as nil after a reload; not here.
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(c.cmd("TOPK.LIST t WITHCOUNT"), listed);
    assert_eq!(query(&mut c), ints(&[1, 1, 0, 1, 0]));
    let payload = c.cmd("DUMP t").bulk();
    assert_eq!(c.call_bytes(&[b"RESTORE", b"copy", b"0", &payload]), ok());
    assert_eq!(c.cmd("TOPK.LIST copy WITHCOUNT"), listed);
    // An expelled item comes back cut at its NUL.
    c.cmd("TOPK.RESERVE one 1 4 2 1");
    c.call_bytes(&[b"TOPK.ADD", b"one", b"p\x00q"]);
    assert_eq!(
        c.call_bytes(&[b"TOPK.INCRBY", b"one", b"other", b"5"]),
        Value::Array(vec![bulk(b"p")])
    );
}

#[test]
fn memory_usage_info_totals_events_and_watch() {
    let (server, mut c) = Server::start_with_conn();
    c.cmd("TOPK.RESERVE t 2 50 5 0.9");
    c.cmd("TOPK.RESERVE u 10");
    // RedisBloom's TopKMemUsage, 2088 + 8 × width × depth + 24 × k, plus the server's share.
    let share = c.cmd("MEMORY USAGE t").int() - 4136;
    assert!((0..=64).contains(&share), "{share}");
    assert_eq!(c.cmd("MEMORY USAGE u").int(), 2088 + 8 * 56 + 240 + share);
    let info = c.cmd("INFO bf_topk_core_metrics").text();
    for field in [
        "bf_topk_num_objects:2",
        "bf_topk_total_memory_bytes:6912",
        "bf_topk_sum_k_across_objects:12",
        "bf_topk_num_buckets_across_objects:306",
    ] {
        assert!(info.contains(field), "{field} in {info}");
    }
    c.cmd("UNLINK u");
    let info = c.cmd("INFO bf_topk_core_metrics").text();
    assert!(info.contains("bf_topk_sum_k_across_objects:2"), "{info}");
    // Writes touch the key (WATCH), reads do not.
    for (line, touches) in [
        ("TOPK.QUERY t a", false),
        ("TOPK.COUNT t a", false),
        ("TOPK.LIST t", false),
        ("TOPK.INFO t", false),
        ("TOPK.ADD t a", true),
        ("TOPK.INCRBY t a 2", true),
    ] {
        assert_eq!(touches_key(&server, "t", line).0, touches, "{line}");
    }
    let Some((events, _)) = keyspace_events_of(&[
        "TOPK.RESERVE k 3",
        "TOPK.ADD k a b",
        "TOPK.INCRBY k a 3",
        // Reads and failures raise nothing.
        "TOPK.QUERY k a",
        "TOPK.LIST k",
        "TOPK.INCRBY k a -1",
        "TOPK.RESERVE k 3",
    ]) else {
        return;
    };
    assert_eq!(events, ["topk.reserve", "topk.add", "topk.incrby"]);
}

#[test]
fn command_info_docs_and_acl() {
    let (server, mut c) = Server::start_with_conn();
    for (command, arity, flags) in [
        ("topk.reserve", -3, vec!["denyoom", "module", "write"]),
        ("topk.add", -3, vec!["denyoom", "module", "write"]),
        ("topk.incrby", -4, vec!["denyoom", "module", "write"]),
        ("topk.query", -3, vec!["module", "readonly"]),
        // RedisBloom 2.8 flagged it `write`; 8.x `readonly`.
        ("topk.count", -3, vec!["module", "readonly"]),
        ("topk.list", -2, vec!["module", "readonly"]),
        ("topk.info", 2, vec!["module", "readonly"]),
    ] {
        let info = c.call(&["COMMAND", "INFO", command]).array()[0].array();
        if feature::command_docs() {
            assert_eq!(info[1], int(arity), "{command}");
            assert_eq!(info[2].sorted_texts(), flags, "{command}");
        } else {
            let flags: Vec<&str> = flags.into_iter().filter(|&f| f != "module").collect();
            assert_eq!(info[2].sorted_texts(), flags, "{command}");
        }
        assert_eq!((info[3].int(), info[4].int(), info[5].int()), (1, 1, 1));
    }
    if !feature::command_docs() {
        return;
    }
    let docs = CommandDoc::read(&mut c, "topk.list");
    assert_eq!(
        docs.field("summary"),
        bulk(b"Return the full list of items in Top-K sketch.")
    );
    assert_eq!(
        docs.field("complexity"),
        bulk(b"O(k*log(k)) where k is the value of top-k")
    );
    family_acl_category(&server, "topk", "topk.", "TOPK.RESERVE k 3", "BF.ADD b x");
}

#[test]
fn top_ks_survive_every_move() {
    // Decay 0.9 among the keys: every copy draws the same decay as the original.
    persist::survives_every_move(&persist::Family {
        build: topk::build,
        answers: topk::answers,
        write: |c, key| {
            c.call(&["TOPK.INCRBY", key, "new", "1000"]);
        },
    });
}

/// A stream that collides often (narrow Top-Ks) at decay 0.9 and 0.5, heavy increments
/// included, so decay decides much of what is kept.
fn decaying_stream(c: &mut Conn, rng: &mut Rng) {
    for _ in 0..1500 {
        let key = ["d9", "d5"][rng.below(2) as usize];
        let item = format!("i{}", rng.below(40) * rng.below(40) / 40);
        if rng.below(4) == 0 {
            c.call(&["TOPK.INCRBY", key, &item, &rng.below(500).to_string()]);
        } else {
            c.call(&["TOPK.ADD", key, &item, "x", &item]);
        }
    }
}

#[test]
fn decay_below_one_gives_the_same_bytes_on_replicas_and_after_reloads() {
    let master = Server::start();
    let mut m = master.conn();
    m.cmd("TOPK.RESERVE d9 8 4 3 0.9");
    m.cmd("TOPK.RESERVE d5 8 4 3 0.5");
    let (_replica, mut r) = Server::synced_replica_of(&master);
    let mut rng = Rng(0x5eed);
    decaying_stream(&mut m, &mut rng);
    // A reload in the middle changes nothing either (RedisBloom 2.8.2's loaded Top-Ks never
    // decay again; 8.x's draw other numbers).
    assert_eq!(m.cmd("DEBUG RELOAD"), ok());
    decaying_stream(&mut m, &mut rng);
    wait_in_sync(&mut m, &mut r);
    for key in ["d9", "d5"] {
        let dump = m.call(&["DUMP", key]);
        assert_eq!(dump, r.call(&["DUMP", key]), "{key}");
        assert_eq!(
            topk::answers(&mut m, key),
            topk::answers(&mut r, key),
            "{key}"
        );
    }
    // And the same stream on a fresh server, without the reload, gives the same bytes.
    let fresh = Server::start();
    let mut f = fresh.conn();
    f.cmd("TOPK.RESERVE d9 8 4 3 0.9");
    f.cmd("TOPK.RESERVE d5 8 4 3 0.5");
    let mut rng = Rng(0x5eed);
    decaying_stream(&mut f, &mut rng);
    decaying_stream(&mut f, &mut rng);
    for key in ["d9", "d5"] {
        assert_eq!(f.call(&["DUMP", key]), m.call(&["DUMP", key]), "{key}");
    }
}

#[test]
fn hostile_payloads_are_refused_and_the_server_lives() {
    if !feature::survives_refused_restore() {
        return;
    }
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CONFIG SET rdbcompression no");
    c.cmd("TOPK.RESERVE t 2 3 2 1");
    c.cmd("TOPK.ADD t ab cd ab");
    let good = c.cmd("DUMP t").bulk();
    // The fields: k, width, depth (02 nn), decay (04 + 8), buckets (05 30 + 48), heap
    // (05 30 + 48), items (05 03 "ab\0", 05 03 "cd\0"), EOF.
    let body = &good[10..good.len() - 11];
    assert_eq!(body.len(), 6 + 9 + 50 + 50 + 5 + 5);
    let reseal = |body: &[u8]| {
        let mut p = good[..10].to_vec();
        p.extend_from_slice(body);
        p.extend_from_slice(&good[good.len() - 11..good.len() - 8]);
        let crc = crc64(&p);
        p.extend_from_slice(&crc.to_le_bytes());
        p
    };
    assert_eq!(reseal(body), good);
    let patched = |at: usize, bytes: &[u8]| {
        let mut b = body.to_vec();
        b[at..at + bytes.len()].copy_from_slice(bytes);
        reseal(&b)
    };
    let bad_data = err("ERR Bad data format");
    for (what, payload) in [
        ("k 0", patched(1, &[0])),
        ("width 0", patched(3, &[0])),
        ("depth 0", patched(5, &[0])),
        ("decay 2", patched(7, &2f64.to_le_bytes())),
        ("decay NaN", patched(7, &f64::NAN.to_le_bytes())),
        ("a short bucket array", patched(16, &[0x2f])),
        ("an item without its NUL", patched(119, b"x")),
        ("k 3 with two items", patched(1, &[3])),
        ("a truncated payload", reseal(&body[..100])),
    ] {
        assert_eq!(
            c.call_bytes(&[b"RESTORE", b"bad", b"0", &payload]),
            bad_data,
            "{what}"
        );
    }
    // test_topk_restore_corrupt_rdb: an inflated itemlen or pointer in the heap is not
    // trusted; the item's own string says how long it is.
    let inflated = patched(67 + 4, &u32::MAX.to_le_bytes());
    assert_eq!(
        c.call_bytes(&[b"RESTORE", b"inflated", b"0", &inflated]),
        ok()
    );
    assert_eq!(c.cmd("TOPK.QUERY inflated ab cd"), ints(&[1, 1]));
    let pointer = patched(67 + 8, &[0xde; 8]);
    assert_eq!(
        c.call_bytes(&[b"RESTORE", b"pointer", b"0", &pointer]),
        ok()
    );
    assert_eq!(
        c.cmd("DUMP pointer").bulk(),
        good,
        "pointers are written as 0"
    );
    assert_eq!(c.cmd("EXISTS bad"), int(0));
    assert_eq!(c.cmd("PING"), simple("PONG"));
}
