//! Every Cuckoo-filter command's replies and error strings, byte for byte as RedisBloom sends
//! them, in RESP2 and RESP3 (RedisBloom 8's `src/rebloom.c` and its `tests/flow/test_cuckoo.py`
//! and `test_resp3.py`): the key-state matrix, arity, keyspace events, command info and ACL.
//! Sizing and growth are `cf_growth`'s, SCANDUMP and LOADCHUNK `cf_scandump`'s.

mod common;

use common::*;

/// The server's wrong-arity error for `command`, typed in upper case as these tests type it
/// (`arity_error`: Redis 6.x echoes the name as typed, later servers give it in lower case).
fn arity(command: &str) -> Value {
    arity_error(&command.to_uppercase())
}

#[test]
fn reserve_validates_in_redisbloom_8_order() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    expect_replies(
        &mut c,
        "
            CF.RESERVE cf 1000 -> OK
            CF.RESERVE cf 1000 -> (error) ERR item exists
            CF.RESERVE str 100 -> (wrongtype)
            # Arguments come before the key.
            CF.RESERVE str abc -> (error) Bad capacity
            CF.RESERVE x 1.5 -> (error) Bad capacity
            CF.RESERVE x 100 MAXITERATIONS x -> (error) Couldn't parse MAXITERATIONS
            CF.RESERVE x 100 MAXITERATIONS 0 -> (error) MAXITERATIONS: value must be in the range [1, 65535]
            CF.RESERVE x 100 MAXITERATIONS 65536 -> (error) MAXITERATIONS: value must be in the range [1, 65535]
            CF.RESERVE x 100 BUCKETSIZE x -> (error) Couldn't parse BUCKETSIZE
            CF.RESERVE x 100 BUCKETSIZE 0 -> (error) BUCKETSIZE: value must be in the range [1, 255]
            CF.RESERVE x 100 BUCKETSIZE 33554432 -> (error) BUCKETSIZE: value must be in the range [1, 255]
            CF.RESERVE x 100 EXPANSION two -> (error) Couldn't parse EXPANSION
            CF.RESERVE x 100 EXPANSION -1 -> (error) EXPANSION: value must be in the range [0, 32768]
            CF.RESERVE x 100 EXPANSION 327695 -> (error) EXPANSION: value must be in the range [0, 32768]
            # MAXITERATIONS is checked first, then BUCKETSIZE, then EXPANSION, then the capacity.
            CF.RESERVE x 1 EXPANSION -1 BUCKETSIZE 0 MAXITERATIONS 0 -> (error) MAXITERATIONS: value must be in the range [1, 65535]
            CF.RESERVE x 1 EXPANSION -1 BUCKETSIZE 0 -> (error) BUCKETSIZE: value must be in the range [1, 255]
            CF.RESERVE x 1 EXPANSION -1 -> (error) EXPANSION: value must be in the range [0, 32768]
            CF.RESERVE tooSmall 1 -> (error) Capacity must be in the range [2 * BUCKETSIZE, 1073741824]
            CF.RESERVE x -5 -> (error) Capacity must be in the range [2 * BUCKETSIZE, 1073741824]
            CF.RESERVE x 7 BUCKETSIZE 4 -> (error) Capacity must be in the range [2 * BUCKETSIZE, 1073741824]
            CF.RESERVE x 1073741825 -> (error) Capacity must be in the range [2 * BUCKETSIZE, 1073741824]
            # An option word with no value is a parse error (RedisBloom crashes on it).
            CF.RESERVE x 100 FOO BUCKETSIZE -> (error) Couldn't parse BUCKETSIZE
            CF.RESERVE x 100 FOO MAXITERATIONS -> (error) Couldn't parse MAXITERATIONS
            CF.RESERVE x 100 FOO EXPANSION -> (error) Couldn't parse EXPANSION
            CF.RESERVE -> (arity)
            CF.RESERVE x -> (arity)
            CF.RESERVE x 100 BUCKETSIZE -> (arity)
            CF.RESERVE x 100 BUCKETSIZE 2 EXPANSION -> (arity)
        ",
    );
    assert_eq!(
        c.cmd("EXISTS x tooSmall"),
        int(0),
        "failed RESERVEs change nothing"
    );
    assert_eq!(c.cmd("GET str"), bulk(b"x"));
    // Unknown words are ignored, options in any case, the first of a repeat wins.
    assert_eq!(c.cmd("CF.RESERVE u 100 FOO 3"), ok());
    assert_eq!(
        c.cmd("CF.RESERVE o 100 expansion 3 maxiterations 7 EXPANSION 1"),
        ok()
    );
    assert_eq!(
        c.cmd("CF.DEBUG o"),
        bulk(b"bktsize:2 buckets:64 items:0 deletes:0 filters:1 max_iterations:7 expansion:4")
    );
    // A key named like an option is just a key (RedisBloom would read it as the option).
    assert_eq!(c.cmd("CF.RESERVE expansion 100"), ok());
    assert_eq!(c.cmd("CF.RESERVE bucketsize 100"), ok());
    assert_eq!(
        c.cmd("CF.DEBUG expansion"),
        bulk(b"bktsize:2 buckets:64 items:0 deletes:0 filters:1 max_iterations:20 expansion:1")
    );
}

#[test]
fn add_count_del_resp2() {
    let (_server, mut c) = Server::start_with_conn();
    // test_count and test_setnx.
    c.cmd("CF.RESERVE cf 1000");
    assert_eq!(c.cmd("CF.EXISTS cf k1"), int(0));
    assert_eq!(c.cmd("CF.ADD cf k1"), int(1));
    assert_eq!(c.cmd("CF.ADD cf k1"), int(1), "duplicates are added");
    expect_replies(
        &mut c,
        "
            CF.EXISTS cf k1 -> (integer) 1
            CF.COUNT cf k1 -> (integer) 2
            CF.DEL cf k1 -> (integer) 1
            CF.COUNT cf k1 -> (integer) 1
            CF.DEL cf k1 -> (integer) 1
            CF.COUNT cf k1 -> (integer) 0
            CF.DEL cf k1 -> (integer) 0
            CF.ADDNX nx k1 -> (integer) 1
            CF.ADDNX nx k1 -> (integer) 0
            CF.COUNT nx k1 -> (integer) 1
            CF.ADD nx k1 -> (integer) 1
            CF.COUNT nx k1 -> (integer) 2
        ",
    );
    assert_eq!(c.cmd("CF.MEXISTS nx k1 k2 k1"), ints(&[1, 0, 1]));
    // Auto-created as CF.RESERVE nx 1024 would be, and INFO shows the counters.
    assert_eq!(
        c.cmd("CF.INFO nx"),
        Value::Array(vec![
            simple("Size"),
            int(1080),
            simple("Number of buckets"),
            int(512),
            simple("Number of filters"),
            int(1),
            simple("Number of items inserted"),
            int(2),
            simple("Number of items deleted"),
            int(0),
            simple("Bucket size"),
            int(2),
            simple("Expansion rate"),
            int(1),
            simple("Max iterations"),
            int(20),
        ])
    );
    // Binary-safe items; the empty item has fingerprint 1 in bucket 0.
    assert_eq!(c.call_bytes(&[b"CF.ADD", b"bin", b"\x00\xff\r\n"]), int(1));
    assert_eq!(
        c.call_bytes(&[b"CF.EXISTS", b"bin", b"\x00\xff\r\n"]),
        int(1)
    );
    assert_eq!(c.call_bytes(&[b"CF.ADD", b"bin", b""]), int(1));
    assert_eq!(c.call_bytes(&[b"CF.COUNT", b"bin", b""]), int(1));
    // The worked example: item1 lands in bucket 2, slot 0 of a 4-bucket filter.
    c.cmd("CF.RESERVE w 8");
    c.cmd("CF.ADD w item1");
    assert_eq!(
        c.cmd("CF.SCANDUMP w 1"),
        Value::Array(vec![int(9), bulk(&[0, 0, 0, 0, 7, 0, 0, 0])])
    );
    // A 2-bucket filter: "3" has an even fingerprint, so both its buckets are one, counted twice.
    c.cmd("CF.RESERVE c2 4");
    c.cmd("CF.ADD c2 3");
    expect_replies(
        &mut c,
        "
            CF.COUNT c2 3 -> (integer) 2
            CF.EXISTS c2 3 -> (integer) 1
            CF.DEL c2 3 -> (integer) 1
            CF.COUNT c2 3 -> (integer) 0
        ",
    );
}

#[test]
fn resp3_reply_types() {
    let server = Server::start();
    let mut c = server.conn().resp3();
    // test_resp3's CF part.
    assert_eq!(c.cmd("CF.RESERVE a 9 EXPANSION 0"), ok());
    for item in ["1", "2", "3", "4", "5"] {
        assert_eq!(c.call(&["CF.ADD", "a", item]), resp3_bool(true));
    }
    assert_eq!(c.cmd("CF.ADDNX a 1"), resp3_bool(false));
    assert_eq!(c.cmd("CF.EXISTS a 1"), resp3_bool(true));
    assert_eq!(c.cmd("CF.EXISTS a 9"), resp3_bool(false));
    assert_eq!(c.cmd("CF.MEXISTS a 1 9"), bools(&[true, false]));
    assert_eq!(c.cmd("CF.COUNT a 1"), int(1), "COUNT stays an integer");
    assert_eq!(c.cmd("CF.ADD a 6"), resp3_bool(true));
    assert_eq!(c.cmd("CF.DEL a 6"), resp3_bool(true));
    assert_eq!(c.cmd("CF.DEL a 6"), resp3_bool(false));
    assert_eq!(c.cmd("CF.INSERTNX a ITEMS 4 6"), ints(&[0, 1]));
    assert_eq!(c.cmd("CF.DEL a 6"), resp3_bool(true));
    // Before Redis 7.0: integers for booleans, flat arrays for maps (`resp3_bool`, `resp3_map`).
    assert_eq!(
        c.cmd("CF.INFO a"),
        resp3_map(vec![
            (simple("Size"), int(64)),
            (simple("Number of buckets"), int(4)),
            (simple("Number of filters"), int(1)),
            (simple("Number of items inserted"), int(5)),
            (simple("Number of items deleted"), int(2)),
            (simple("Bucket size"), int(2)),
            (simple("Expansion rate"), int(0)),
            (simple("Max iterations"), int(20)),
        ])
    );
    assert_eq!(
        c.cmd("CF.DEBUG a"),
        bulk(b"bktsize:2 buckets:4 items:5 deletes:2 filters:1 max_iterations:20 expansion:0")
    );
    // A full filter: #f in CF.INSERT, -1 in CF.INSERTNX, an error for CF.ADD.
    c.cmd("CF.RESERVE full 4 EXPANSION 0");
    c.cmd("CF.INSERT full ITEMS 1 2 3 4");
    // Where modules cannot tell RESP3 clients (before Redis 7.0), RESP2's -1, as from RedisBloom.
    let no_room = if feature::module_resp3() {
        bools(&[false, false])
    } else {
        ints(&[-1, -1])
    };
    assert_eq!(c.cmd("CF.INSERT full ITEMS 5 6"), no_room);
    assert_eq!(c.cmd("CF.INSERTNX full ITEMS 5 1"), ints(&[-1, 0]));
    assert_eq!(c.cmd("CF.ADD full 5"), err("Filter is full"));
    assert_eq!(c.cmd("CF.INSERT fresh ITEMS x y"), bools(&[true, true]));
    // SCANDUMP of an empty filter: [0, null] at every iterator.
    c.cmd("CF.RESERVE empty 100");
    for cursor in ["0", "1", "7"] {
        assert_eq!(
            c.call(&["CF.SCANDUMP", "empty", cursor]),
            Value::Array(vec![int(0), Value::Null])
        );
    }
    assert_eq!(c.cmd("CF.COMPACT a"), ok());
}

#[test]
fn full_filters_without_expansion() {
    let (_server, mut c) = Server::start_with_conn();
    // test_expansion_0.
    c.cmd("CF.RESERVE a 4 EXPANSION 0");
    for item in ["1", "2", "3", "4"] {
        assert_eq!(c.call(&["CF.ADD", "a", item]), int(1));
    }
    assert_eq!(c.cmd("CF.INSERT a ITEMS 5 6"), ints(&[-1, -1]));
    assert_eq!(c.cmd("CF.INSERTNX a ITEMS 5 6 1"), ints(&[-1, -1, 0]));
    assert_eq!(c.cmd("CF.ADD a 5"), err("Filter is full"));
    assert_eq!(c.cmd("CF.ADDNX a 5"), err("Filter is full"));
    assert_eq!(c.cmd("CF.ADDNX a 1"), int(0));
    assert_eq!(
        c.cmd("CF.DEBUG a"),
        bulk(b"bktsize:2 buckets:2 items:4 deletes:0 filters:1 max_iterations:20 expansion:0")
    );
}

#[test]
fn insert_options_and_replies() {
    let (_server, mut c) = Server::start_with_conn();
    // test_insert.
    assert_eq!(c.cmd("CF.ADD f1 foo"), int(1));
    assert_eq!(c.cmd("CF.INSERT f2 ITEMS foo"), ints(&[1]));
    assert_eq!(
        c.cmd("CF.DEBUG f1"),
        c.cmd("CF.DEBUG f2"),
        "the same auto-created filter"
    );
    assert_eq!(c.cmd("CF.INSERTNX f1 items foo"), ints(&[0]));
    assert_eq!(c.cmd("CF.INSERT f3 CAPACITY 10000 ITEMS foo"), ints(&[1]));
    assert_eq!(
        c.cmd("CF.DEBUG f3"),
        bulk(b"bktsize:2 buckets:8192 items:1 deletes:0 filters:1 max_iterations:20 expansion:1")
    );
    assert_eq!(c.cmd("CF.INSERTNX f3 ITEMS foo bar baz"), ints(&[0, 1, 1]));
    assert_eq!(
        c.cmd("CF.INSERTNX f3 ITEMS new new other"),
        ints(&[1, 0, 1])
    );
    assert_eq!(
        c.cmd("CF.INSERT f4 nocreate items foo"),
        err("ERR not found")
    );
    assert_eq!(c.cmd("EXISTS f4"), int(0));
    assert_eq!(c.cmd("CF.INSERT f4 items foo"), ints(&[1]));
    assert_eq!(c.cmd("CF.INSERT f4 nocreate items foo"), ints(&[1]));
    // Options by first letter, the last CAPACITY wins, the word after ITEMS is an item.
    assert_eq!(c.cmd("CF.INSERT g CAT 100 c 40 IX a b"), ints(&[1, 1]));
    assert_eq!(
        c.cmd("CF.DEBUG g"),
        bulk(b"bktsize:2 buckets:32 items:2 deletes:0 filters:1 max_iterations:20 expansion:1")
    );
    assert_eq!(c.cmd("CF.INSERT h ITEMS NOCREATE"), ints(&[1]));
    assert_eq!(c.cmd("CF.EXISTS h NOCREATE"), int(1));
    // CAPACITY is ignored on an existing filter, but still checked.
    assert_eq!(c.cmd("CF.INSERT f3 CAPACITY 4 ITEMS x"), ints(&[1]));
    expect_replies(
        &mut c,
        "
            CF.INSERT f3 CAPACITY -1 ITEMS k0 -> (error) Capacity must be in the range [cf-bucket-size * 2, 1073741824]
            CF.INSERTNX f3 CAPACITY 3 ITEMS k0 -> (error) Capacity must be in the range [cf-bucket-size * 2, 1073741824]
            CF.INSERT e CAPACITY 1073741825 ITEMS k0 -> (error) Capacity must be in the range [cf-bucket-size * 2, 1073741824]
            CF.INSERT f3 NOCREATE CAPACITY str ITEMS x -> (error) Bad capacity
            CF.INSERT f3 NOCREATE DONTEXIST -> (error) Unknown argument received
            CF.INSERT f3 element x -> (error) Unknown argument received
            CF.INSERT f3 '' ITEMS x -> (error) Unknown argument received
            CF.INSERT f3 NOCREATE CAPACITY -> (arity)
            CF.INSERT f3 NOCREATE ITEMS -> (arity)
            CF.INSERT f3 NOCREATE NOCREATE -> (arity)
            CF.INSERT err element -> (arity)
            CF.INSERTNX err element -> (arity)
        ",
    );
    assert_eq!(
        c.call(&["CF.INSERT", "f3", "", "ITEMS", "x"]),
        err("Unknown argument received")
    );
    assert_eq!(c.cmd("EXISTS e"), int(0));
}

#[test]
fn missing_and_wrong_type_keys() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    c.cmd("BF.ADD bf x");
    for key in ["missing", "str", "bf"] {
        assert_eq!(c.call(&["CF.EXISTS", key, "x"]), int(0), "{key}");
        assert_eq!(
            c.call(&["CF.MEXISTS", key, "x", "y"]),
            ints(&[0, 0]),
            "{key}"
        );
        assert_eq!(c.call(&["CF.COUNT", key, "x"]), int(0), "{key}");
        assert_eq!(c.call(&["CF.DEL", key, "x"]), err("Not found"), "{key}");
        assert_eq!(
            c.call(&["CF.COMPACT", key]),
            err("Cuckoo filter was not found"),
            "{key}"
        );
    }
    for key in ["str", "bf"] {
        for command in [
            vec!["CF.INFO", key],
            vec!["CF.DEBUG", key],
            vec!["CF.SCANDUMP", key, "0"],
            vec!["CF.RESERVE", key, "100"],
            vec!["CF.ADD", key, "x"],
            vec!["CF.ADDNX", key, "x"],
            vec!["CF.INSERT", key, "ITEMS", "x"],
            vec!["CF.INSERTNX", key, "NOCREATE", "ITEMS", "x"],
            vec!["CF.LOADCHUNK", key, "1", "x"],
            vec!["CF.LOADCHUNK", key, "9", "x"],
        ] {
            assert_eq!(c.call(&command), err(WRONGTYPE), "{command:?}");
        }
        // And BF commands refuse Cuckoo filters.
    }
    c.cmd("CF.ADD cf x");
    assert_eq!(c.cmd("BF.ADD cf x"), err(WRONGTYPE));
    assert_eq!(c.cmd("BF.SCANDUMP cf 0"), err(WRONGTYPE));
    assert_eq!(c.cmd("BF.EXISTS cf x"), int(0));
    for command in [
        "CF.INFO missing",
        "CF.DEBUG missing",
        "CF.SCANDUMP missing 0",
    ] {
        assert_eq!(c.cmd(command), err("ERR not found"), "{command}");
    }
    assert_eq!(c.cmd("CF.LOADCHUNK missing 9 abcd"), err("ERR not found"));
    assert_eq!(
        c.cmd("CF.INSERT missing NOCREATE ITEMS x"),
        err("ERR not found")
    );
    assert_eq!(
        c.cmd("GET str"),
        bulk(b"x"),
        "wrong-type writes leave the key alone"
    );
    assert_eq!(c.cmd("EXISTS missing"), int(0));
    assert_eq!(c.cmd("TYPE cf"), simple("MBbloomCF"));
}

#[test]
fn arity_errors_name_the_lowercase_command() {
    let (_server, mut c) = Server::start_with_conn();
    for (line, name) in [
        ("CF.RESERVE", "cf.reserve"),
        ("CF.RESERVE k", "cf.reserve"),
        ("CF.ADD", "cf.add"),
        ("CF.ADD k", "cf.add"),
        ("CF.ADD k a b", "cf.add"),
        ("CF.ADDNX k", "cf.addnx"),
        ("CF.INSERT", "cf.insert"),
        ("CF.INSERT k", "cf.insert"),
        ("CF.INSERT k ITEMS", "cf.insert"),
        ("CF.INSERTNX k ITEMS", "cf.insertnx"),
        ("CF.EXISTS k", "cf.exists"),
        ("CF.EXISTS k a b", "cf.exists"),
        ("CF.MEXISTS k", "cf.mexists"),
        ("CF.COUNT k", "cf.count"),
        ("CF.DEL k", "cf.del"),
        ("CF.COMPACT", "cf.compact"),
        ("CF.COMPACT a b", "cf.compact"),
        ("CF.INFO", "cf.info"),
        ("CF.INFO k x", "cf.info"),
        ("CF.DEBUG", "cf.debug"),
        ("CF.SCANDUMP k", "cf.scandump"),
        ("CF.LOADCHUNK k", "cf.loadchunk"),
        ("CF.LOADCHUNK k 1", "cf.loadchunk"),
    ] {
        assert_eq!(c.cmd(line), arity(name), "{line}");
    }
}

#[test]
fn keyspace_notifications_for_writes() {
    let Some(server) = Server::with_keyspace_events() else {
        return;
    };
    let mut c = server.conn();
    let mut psub = server.conn();
    psub.cmd("PSUBSCRIBE __keyspace@0__:*");
    let header = {
        c.cmd("CF.RESERVE tmp 4");
        c.cmd("CF.ADD tmp x");
        let h = c.cmd("CF.SCANDUMP tmp 0").array()[1].bulk();
        c.cmd("DEL tmp");
        for _ in 0..3 {
            psub.read();
        }
        h
    };
    for line in [
        "CF.RESERVE k 100",
        "CF.ADD k a",
        "CF.ADDNX k a",
        "CF.INSERT k ITEMS b",
        "CF.INSERTNX k ITEMS b",
        "CF.DEL k a",
        "CF.COMPACT k",
    ] {
        assert!(!c.cmd(line).is_error(), "{line}");
    }
    c.call_bytes(&[b"CF.LOADCHUNK", b"l", b"1", &header]);
    // Reads and failures raise nothing.
    for line in [
        "CF.EXISTS k a",
        "CF.INFO k",
        "CF.RESERVE k 100",
        "CF.DEL missing a",
    ] {
        c.cmd(line);
    }
    c.cmd("SET marker 1");
    let events: Vec<Value> = (0..9).map(|_| psub.read().array()[3].clone()).collect();
    let expected = [
        "cf.reserve",
        "cf.add",
        "cf.add",
        "cf.add",
        "cf.add",
        "cf.del",
        "cf.compact",
        "cf.loadchunk",
        "set",
    ];
    assert_eq!(events, expected.map(|e| bulk(e.as_bytes())));
}

#[test]
fn command_info_docs_and_acl() {
    let (server, mut c) = Server::start_with_conn();
    for (command, arity, flags) in [
        ("cf.reserve", -3, vec!["denyoom", "module", "write"]),
        ("cf.add", 3, vec!["denyoom", "module", "write"]),
        ("cf.insertnx", -4, vec!["denyoom", "module", "write"]),
        ("cf.exists", 3, vec!["fast", "module", "readonly"]),
        ("cf.mexists", -3, vec!["fast", "module", "readonly"]),
        ("cf.count", 3, vec!["fast", "module", "readonly"]),
        ("cf.del", 3, vec!["fast", "module", "write"]),
        ("cf.compact", 2, vec!["module", "write"]),
        ("cf.scandump", 3, vec!["module", "readonly"]),
        ("cf.loadchunk", 4, vec!["denyoom", "module", "write"]),
        ("cf.info", 2, vec!["fast", "module", "readonly"]),
        ("cf.debug", 2, vec!["fast", "module", "readonly"]),
    ] {
        let info = c.call(&["COMMAND", "INFO", command]).array()[0].array();
        if feature::command_docs() {
            assert_eq!(info[1], int(arity), "{command}");
            assert_eq!(info[2].sorted_texts(), flags, "{command}");
        } else {
            // Before Redis 7.0 a module sets no arity and Redis adds no `module` flag (as for
            // RedisBloom).
            assert_eq!(info[1], int(-1), "{command}");
            let flags: Vec<&str> = flags.into_iter().filter(|&f| f != "module").collect();
            assert_eq!(info[2].sorted_texts(), flags, "{command}");
        }
        assert_eq!((info[3].int(), info[4].int(), info[5].int()), (1, 1, 1));
    }
    assert_eq!(
        c.cmd("COMMAND GETKEYS CF.INSERT mykey ITEMS a b"),
        Value::Array(vec![bulk(b"mykey")])
    );
    if !feature::command_docs() {
        // No COMMAND DOCS, COMMAND LIST, nor module ACL categories before Redis 7.0.
        return;
    }
    let docs = CommandDoc::read(&mut c, "cf.reserve");
    assert_eq!(docs.field("summary"), bulk(b"Creates a new Cuckoo Filter"));
    assert_eq!(docs.field("complexity"), bulk(b"O(1)"));
    assert_eq!(docs.field("since"), bulk(b"1.0.0"));
    // RedisBloom's test_docs_help: the argument names and types.
    let expected = [
        ("key", "key"),
        ("capacity", "integer"),
        ("bucketsize", "block"),
        ("maxiterations", "block"),
        ("expansion", "block"),
    ];
    assert_eq!(docs.args(), named(&expected));
    let listed = c.cmd("COMMAND LIST FILTERBY MODULE bf").array();
    let cf = listed
        .iter()
        .filter(|name| name.text().starts_with("cf."))
        .count();
    // RedisBloom's fourteen and CF.MERGE (ours).
    assert_eq!(cf, 15, "{listed:?}");
    family_acl_category(&server, "cuckoo", "cf.", "CF.RESERVE k 100", "BF.ADD b x");
}

#[test]
fn watch_is_not_disturbed_by_reads() {
    let server = Server::start();
    server.conn().cmd("CF.ADD k x");
    for (line, touches) in [
        ("CF.EXISTS k x", false),
        ("CF.MEXISTS k x", false),
        ("CF.COUNT k x", false),
        ("CF.INFO k", false),
        ("CF.DEBUG k", false),
        ("CF.SCANDUMP k 0", false),
        ("CF.DEL missing x", false),
        ("CF.DEL k x", true),
    ] {
        assert_eq!(touches_key(&server, "k", line).0, touches, "{line}");
    }
}
