//! Every Count-Min sketch command's replies and error strings, byte for byte as RedisBloom
//! sends them as Redis 8.12 ships it, in RESP2 and RESP3 (its `src/rm_cms.c`,
//! `tests/flow/test_cms.py` and `test_resp3.py`): the key-state matrix, arity, cell sizes,
//! signed increments, the checks before any write, memory limits, keyspace events, command
//! info and ACL; sketches surviving every way Redis persists and moves values; and the way
//! back to RedisBloom before 8.12 (`cms-rdb-encoding 0`).

mod common;

use common::*;

#[test]
fn init_validates_in_redisbloom_order() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    expect_replies(
        &mut c,
        "
            CMS.INITBYDIM cms 20 5 -> OK
            # The key is checked first, whatever its type and the arguments.
            CMS.INITBYDIM cms 20 5 -> (error) CMS: key already exists
            CMS.INITBYPROB cms x y -> (error) CMS: key already exists
            CMS.INITBYDIM str 0 0 -> (error) CMS: key already exists
            CMS.INITBYDIM x 0 5 -> (error) CMS: invalid width
            CMS.INITBYDIM x 0 y -> (error) CMS: invalid width
            CMS.INITBYDIM x 1.5 5 -> (error) CMS: invalid width
            CMS.INITBYDIM x +5 5 -> (error) CMS: invalid width
            CMS.INITBYDIM x 5 -1 -> (error) CMS: invalid depth
            CMS.INITBYDIM x 5 y -> (error) CMS: invalid depth
            CMS.INITBYDIM x 8589934592 8589934592 -> (error) CMS: invalid init arguments
            CMS.INITBYPROB x 0 0.5 -> (error) CMS: invalid overestimation value
            CMS.INITBYPROB x 1 0.5 -> (error) CMS: invalid overestimation value
            CMS.INITBYPROB x nan 0.5 -> (error) CMS: invalid overestimation value
            CMS.INITBYPROB x 0.1 x -> (error) CMS: invalid prob value
            CMS.INITBYPROB x 0.1 1 -> (error) CMS: invalid prob value
            CMS.INITBYPROB x 0.1 -inf -> (error) CMS: invalid prob value
            # The probability rounds to 1 in f32 (depth 0); a width of 2^63 or more.
            CMS.INITBYPROB x 0.9 0.9999999999999999 -> (error) CMS: invalid init arguments
            CMS.INITBYPROB x 0.1 1e-300 -> (error) CMS: invalid init arguments
            CMS.INITBYPROB x 1e-19 0.9 -> (error) CMS: invalid init arguments
            CMS.INITBYDIM x 5 -> (arity)
            CMS.INITBYDIM x 5 5 5 -> (arity)
            CMS.INITBYDIM x 5 5 CELL_SIZE 4 4 -> (arity)
            CMS.INITBYPROB x 0.1 -> (arity)
            CMS.INITBYPROB x 0.1 0.1 CELL_SIZE -> (arity)
            # CELL_SIZE last (test_cell_size_validation).
            CMS.INITBYDIM str 5 5 CELL_SIZE 3 -> (error) CMS: key already exists
            CMS.INITBYDIM x 0 5 CELL_SIZE 1 -> (error) CMS: invalid width
            CMS.INITBYPROB x 2 0.01 CELL_SIZE 1 -> (error) CMS: invalid overestimation value
            CMS.INITBYDIM x 5 5 CELLSIZE 1 -> (error) CMS: unknown argument
            CMS.INITBYDIM x 5 5 OOR 1 -> (error) CMS: unknown argument
        ",
    );
    for bad in [
        "0", "3", "5", "6", "7", "9", "16", "-1", "-4", "blah", "", "4.5", "04",
    ] {
        for command in [
            ["CMS.INITBYDIM", "x", "5", "5", "CELL_SIZE", bad],
            ["CMS.INITBYPROB", "x", "0.1", "0.1", "CELL_SIZE", bad],
        ] {
            assert_eq!(
                c.call(&command),
                err("CMS: CELL_SIZE must be 1, 2, 4 or 8"),
                "{command:?}"
            );
        }
    }
    // test_cell_size_create: every size, by either command, the keyword in any case.
    for (i, bytes) in [1, 2, 4, 8].into_iter().enumerate() {
        let size = bytes.to_string();
        c.call(&[
            "CMS.INITBYDIM",
            &format!("d{i}"),
            "20",
            "5",
            "cell_size",
            &size,
        ]);
        c.call(&[
            "CMS.INITBYPROB",
            &format!("e{i}"),
            "0.1",
            "0.1",
            "CELL_SIZE",
            &size,
        ]);
        for key in [format!("d{i}"), format!("e{i}")] {
            assert_eq!(c.call(&["CMS.INFO", &key]).array()[7], int(bytes), "{key}");
        }
    }
    assert_eq!(c.cmd("EXISTS x"), int(0), "failed creates change nothing");
    assert_eq!(c.cmd("GET str"), bulk(b"x"));
    // RedisBloom's arithmetic: width ⌈2/error⌉ in f64, depth in f32 (test_cms.py, and the
    // values RedisBloom 2.8.2 gives).
    for (i, (error, probability, width, depth)) in [
        ("0.001", "0.01", 2000, 7),
        ("0.1", "0.1", 20, 4),
        ("0.01", "0.5", 200, 1),
        ("0.3", "0.25", 7, 2),
        ("0.5", "0.125", 4, 3),
        ("0.0003", "0.001", 6667, 10),
        ("0.22", "0.249999999", 10, 2),
        ("0.2", "0.00781249999", 10, 7),
        ("0.1", "1e-45", 20, 149),
        ("5e-1", "0x1p-3", 4, 3),
    ]
    .into_iter()
    .enumerate()
    {
        let key = format!("p{i}");
        assert_eq!(c.call(&["CMS.INITBYPROB", &key, error, probability]), ok());
        assert_eq!(
            c.call(&["CMS.INFO", &key]),
            Value::Array(vec![
                simple("width"),
                int(width),
                simple("depth"),
                int(depth),
                simple("count"),
                int(0),
                simple("cell_size"),
                int(4),
            ]),
            "{error} {probability}"
        );
    }
}

#[test]
fn incrby_checks_every_pair_first_and_refuses_what_a_counter_cannot_take() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    c.cmd("CMS.INITBYDIM cms 20 5");
    assert_eq!(c.cmd("CMS.INCRBY cms a 5 b 3 a 2"), ints(&[5, 3, 7]));
    assert_eq!(c.cmd("CMS.QUERY cms a b c"), ints(&[7, 3, 0]));
    expect_replies(
        &mut c,
        "
            CMS.INCRBY cms a x -> (error) CMS: Cannot parse number
            CMS.INCRBY cms a 1 b 1.0 -> (error) CMS: Cannot parse number
            CMS.INCRBY cms a 1 b +1 -> (error) CMS: Cannot parse number
            CMS.INCRBY cms a 1 b 01 -> (error) CMS: Cannot parse number
            CMS.INCRBY cms a 1 b -0 -> (error) CMS: Cannot parse number
            CMS.INCRBY cms a 1 b 9223372036854775808 -> (error) CMS: Cannot parse number
            CMS.INCRBY cms a 1 b -9223372036854775808 -> (error) CMS: invalid increment
            # The key comes before the pairs.
            CMS.INCRBY missing a x -> (error) CMS: key does not exist
            CMS.INCRBY str a x -> (wrongtype)
            CMS.INCRBY cms a -> (arity)
            CMS.INCRBY cms a 1 b -> (arity)
        ",
    );
    assert_eq!(c.cmd("CMS.QUERY cms a b"), ints(&[7, 3]), "nothing applied");
    // A counter reaches its maximum; a pair that would pass it is refused and changes
    // nothing, the pairs around it still apply (test_overflow, test_cell_size_max_value).
    let overflow = err("CMS: INCRBY overflow");
    c.cmd("CMS.INITBYDIM big 20 5");
    assert_eq!(
        c.cmd("CMS.INCRBY big c 4294967294 c 1 c 1 c 0"),
        Value::Array(vec![
            int(4294967294),
            int(4294967295),
            overflow.clone(),
            int(4294967295)
        ])
    );
    assert_eq!(
        c.cmd("CMS.INCRBY big d 4294967296 e 0"),
        Value::Array(vec![overflow.clone(), int(0)])
    );
    assert_eq!(c.cmd("CMS.QUERY big c d"), ints(&[4294967295, 0]));
    assert_eq!(c.cmd("CMS.INFO big").array()[5], int(4294967295));
    // Decrements (test_decrby, test_decrby_underflow).
    assert_eq!(
        c.cmd("CMS.INCRBY cms a -100 b 3 a -4"),
        Value::Array(vec![err("CMS: INCRBY underflow"), int(6), int(3)])
    );
    let count = |c: &mut Conn| c.cmd("CMS.INFO big").array()[5].int();
    assert_eq!(c.cmd("CMS.INFO cms").array()[5], int(9));
    // The total stops at 2^63 - 1 (test_total_count_overflow).
    assert_eq!(
        c.cmd("CMS.INCRBY big f 9223372036854775807"),
        Value::Array(vec![overflow])
    );
    assert_eq!(count(&mut c), 4294967295);
    // Each size's range: one byte counts to 255.
    c.cmd("CMS.INITBYDIM small 1 1 CELL_SIZE 1");
    assert_eq!(c.cmd("CMS.INCRBY small x 255"), ints(&[255]));
    assert_eq!(
        c.cmd("CMS.INCRBY small x 1 x -55"),
        Value::Array(vec![err("CMS: INCRBY overflow"), int(200)])
    );
    // Binary-safe items, the empty one included.
    assert_eq!(
        c.call_bytes(&[b"CMS.INCRBY", b"cms", b"", b"4"]),
        ints(&[4])
    );
    assert_eq!(
        c.call_bytes(&[b"CMS.INCRBY", b"cms", b"\x00\xff", b"6"]),
        ints(&[6])
    );
    assert_eq!(
        c.call_bytes(&[b"CMS.QUERY", b"cms", b"", b"\x00\xff", b"\x00"]),
        ints(&[4, 6, 0])
    );
}

#[test]
fn query_and_info_in_both_protocols() {
    let (server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    c.cmd("CMS.INITBYDIM cms 3 2");
    // `a` lands in cells 1 and 5 of a 3 × 2 sketch, as in RedisBloom's DUMP.
    assert_eq!(c.cmd("CMS.INCRBY cms a 1"), ints(&[1]));
    expect_replies(
        &mut c,
        "
            CMS.QUERY missing a -> (error) CMS: key does not exist
            CMS.QUERY str a -> (wrongtype)
            CMS.INFO missing -> (error) CMS: key does not exist
            CMS.INFO str -> (wrongtype)
            CMS.MERGE missing 1 cms -> (error) CMS: key does not exist
            CMS.MERGE str 1 cms -> (wrongtype)
            CMS.QUERY cms -> (arity)
            CMS.INFO -> (arity)
            CMS.INFO cms x -> (arity)
            CMS.MERGE cms 1 -> (arity)
        ",
    );
    let mut c3 = server.conn().resp3();
    assert_eq!(c3.cmd("CMS.QUERY cms a b"), ints(&[1, 0]));
    assert_eq!(
        c3.cmd("CMS.INFO cms"),
        resp3_map(vec![
            (simple("width"), int(3)),
            (simple("depth"), int(2)),
            (simple("count"), int(1)),
            (simple("cell_size"), int(4)),
        ])
    );
    // test_resp3's CMS part.
    c3.cmd("CMS.INITBYPROB prob 0.001 0.01");
    c3.cmd("CMS.INCRBY prob foo 5");
    assert_eq!(
        c3.cmd("CMS.INFO prob"),
        resp3_map(vec![
            (simple("width"), int(2000)),
            (simple("depth"), int(7)),
            (simple("count"), int(5)),
            (simple("cell_size"), int(4)),
        ])
    );
    assert_eq!(
        c3.cmd("CMS.INCRBY prob bar 4294967296 foo -6"),
        Value::Array(vec![
            err("CMS: INCRBY overflow"),
            err("CMS: INCRBY underflow")
        ])
    );
}

#[test]
fn merge_follows_redisbloom_s_rules() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    for key in ["a", "b", "d", "e"] {
        c.call(&["CMS.INITBYDIM", key, "20", "5"]);
    }
    c.cmd("CMS.INITBYDIM narrow 10 5");
    c.cmd("CMS.INITBYDIM bytes 20 5 CELL_SIZE 2");
    c.cmd("CMS.INCRBY a x 5");
    c.cmd("CMS.INCRBY b x 7 y 1");
    let info = |c: &mut Conn, key: &str| c.call(&["CMS.INFO", key]).array()[5].int();
    assert_eq!(c.cmd("CMS.MERGE d 2 a b"), ok());
    assert_eq!(
        (info(&mut c, "d"), c.cmd("CMS.QUERY d x y")),
        (13, ints(&[12, 1]))
    );
    assert_eq!(c.cmd("CMS.MERGE d 2 a b WEIGHTS 3 1"), ok());
    assert_eq!(
        (info(&mut c, "d"), c.cmd("CMS.QUERY d x y")),
        (23, ints(&[22, 1]))
    );
    // The destination among the sources, in place; a source twice; in any case.
    assert_eq!(c.cmd("CMS.MERGE d 3 d a a weights 1 -1 -1"), ok());
    assert_eq!(
        (info(&mut c, "d"), c.cmd("CMS.QUERY d x y")),
        (13, ints(&[12, 1]))
    );
    assert_eq!(c.cmd("CMS.MERGE d 1 d WEIGHTS 2"), ok());
    assert_eq!(c.cmd("CMS.QUERY d x y"), ints(&[24, 2]));
    assert_eq!(c.cmd("CMS.MERGE d 1 a WEIGHTS 0"), ok());
    assert_eq!(
        (info(&mut c, "d"), c.cmd("CMS.QUERY d x y")),
        (0, ints(&[0, 0]))
    );
    c.cmd("CMS.MERGE d 1 b");
    expect_replies(
        &mut c,
        "
            CMS.MERGE d x a -> (error) CMS: invalid numkeys
            CMS.MERGE d 0 a -> (error) CMS: Number of keys must be positive
            CMS.MERGE d -1 a -> (error) CMS: Number of keys must be positive
            CMS.MERGE d 2 a -> (error) CMS: wrong number of keys
            CMS.MERGE d 1 a b -> (error) CMS: wrong number of keys
            CMS.MERGE d 1 a WEIGHTS -> (error) CMS: wrong number of keys/weights
            CMS.MERGE d 1 a WEIGHTS 1 2 -> (error) CMS: wrong number of keys/weights
            CMS.MERGE d 2 a WEIGHTS b 1 -> (error) CMS: wrong number of keys/weights
            CMS.MERGE d 1 a WEIGHTS 1.5 -> (error) CMS: invalid weight value
            CMS.MERGE d 1 a WEIGHTS +1 -> (error) CMS: invalid weight value
            # Source by source: weight, key, dimensions.
            CMS.MERGE d 2 missing a WEIGHTS 1 x -> (error) CMS: key does not exist
            CMS.MERGE d 2 a missing WEIGHTS 1 x -> (error) CMS: invalid weight value
            CMS.MERGE d 2 a str -> (wrongtype)
            CMS.MERGE d 2 narrow missing -> (error) CMS: width/depth is not equal
            CMS.MERGE d 2 missing narrow -> (error) CMS: key does not exist
            CMS.MERGE d 1 bytes -> (error) CMS: cell_size is not equal
            CMS.MERGE d 2 bytes missing -> (error) CMS: cell_size is not equal
            CMS.MERGE bytes 1 a -> (error) CMS: cell_size is not equal
            # Sums outside [0, 2^32 - 1] for a cell, or a negative total.
            CMS.MERGE d 2 a b WEIGHTS 2 -1 -> (error) CMS: MERGE overflow
            CMS.MERGE d 1 a WEIGHTS 858993460 -> (error) CMS: MERGE overflow
            CMS.MERGE d 1 a WEIGHTS 9223372036854775807 -> (error) CMS: MERGE overflow
        ",
    );
    assert_eq!(
        (info(&mut c, "d"), c.cmd("CMS.QUERY d x y")),
        (8, ints(&[7, 1])),
        "failed merges change nothing"
    );
    // A key named like the keyword is the keyword (RedisBloom searches for it).
    c.cmd("CMS.INITBYDIM weights 20 5");
    assert_eq!(
        c.cmd("CMS.MERGE d 1 weights"),
        err("CMS: wrong number of keys/weights")
    );
    assert_eq!(c.cmd("CMS.MERGE d 1 a WEIGHTS 858993459"), ok());
    assert_eq!(c.cmd("CMS.QUERY d x"), ints(&[4294967295]));
    // Merging into two-byte cells: their range, not four bytes', bounds the sums.
    c.cmd("CMS.INITBYDIM bytes2 20 5 CELL_SIZE 2");
    c.cmd("CMS.INCRBY bytes2 x 5");
    assert_eq!(
        c.cmd("CMS.MERGE bytes 1 bytes2 WEIGHTS 13108"),
        err("CMS: MERGE overflow")
    );
    assert_eq!(c.cmd("CMS.MERGE bytes 1 bytes2 WEIGHTS 13107"), ok());
    assert_eq!(c.cmd("CMS.QUERY bytes x"), ints(&[65535]));
}

#[test]
fn sizes_are_checked_before_anything_is_allocated() {
    let (_server, mut c) = Server::start_with_conn();
    // More counters than this machine's memory: refused at once, nothing allocated.
    assert_eq!(
        c.cmd("CMS.INITBYDIM huge 4294967296 65536"),
        err("CMS: Insufficient memory to create the key")
    );
    assert_eq!(
        c.cmd("CMS.INITBYPROB huge 1e-18 0.5"),
        err("CMS: Insufficient memory to create the key")
    );
    assert_eq!(c.cmd("EXISTS huge"), int(0));
    if !feature::module_configs() {
        return;
    }
    // The per-value limit counts MEMORY USAGE's bytes: 40 + cell size × width × depth.
    let limit = config_name(&mut c, "bf-memory-usage-limit");
    assert_eq!(c.call(&["CONFIG", "SET", &limit, "1000"]), ok());
    assert_eq!(c.cmd("CMS.INITBYDIM fits 240 1"), ok());
    assert_eq!(c.cmd("CMS.INITBYDIM fits1 960 1 CELL_SIZE 1"), ok());
    let over = err("ERR operation exceeds count-min sketch object memory limit");
    assert_eq!(c.cmd("CMS.INITBYDIM over 241 1"), over);
    assert_eq!(c.cmd("CMS.INITBYDIM over 121 1 CELL_SIZE 8"), over);
    assert_eq!(c.call(&["CONFIG", "SET", &limit, "0"]), ok());
    assert_eq!(c.cmd("CMS.INITBYDIM over 241 1"), ok());
}

#[test]
fn memory_usage_and_info_totals() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CMS.INITBYDIM cms1 20 5");
    c.cmd("CMS.INITBYDIM cms2 100 3");
    c.cmd("CMS.INCRBY cms2 a 7");
    // RedisBloom 8.12's CMSMemUsage, 40 + cell size × width × depth, plus the server's share
    // for the key.
    let share = c.cmd("MEMORY USAGE cms1").int() - (40 + 4 * 100);
    assert!((0..=64).contains(&share), "{share}");
    assert_eq!(c.cmd("MEMORY USAGE cms2").int(), 40 + 4 * 300 + share);
    c.cmd("CMS.INITBYDIM cms3 100 3 CELL_SIZE 8");
    assert_eq!(c.cmd("MEMORY USAGE cms3").int(), 40 + 8 * 300 + share);
    c.cmd("DEL cms3");
    let info = c.cmd("INFO bf_cms_core_metrics").text();
    for field in [
        "bf_cms_num_objects:2",
        "bf_cms_total_memory_bytes:1680",
        "bf_cms_num_counters_across_objects:400",
        "bf_cms_total_count_across_objects:7",
    ] {
        assert!(info.contains(field), "{field} in {info}");
    }
    c.cmd("DEL cms1");
    c.cmd("CMS.MERGE cms2 1 cms2 WEIGHTS 3");
    let info = c.cmd("INFO bf_cms_core_metrics").text();
    assert!(info.contains("bf_cms_num_objects:1"), "{info}");
    assert!(
        info.contains("bf_cms_total_count_across_objects:21"),
        "{info}"
    );
}

#[test]
fn keyspace_events_and_watch() {
    let lines = [
        "CMS.INITBYDIM k 10 2",
        "CMS.INITBYPROB p 0.1 0.1",
        "CMS.INCRBY k a 1",
        "CMS.MERGE k 1 k",
        // Reads and failures raise nothing.
        "CMS.QUERY k a",
        "CMS.INFO k",
        "CMS.INCRBY k a x",
        "CMS.MERGE k 1 p",
    ];
    if let Some((events, _)) = keyspace_events_of(&lines) {
        let expected = ["cms.initbydim", "cms.initbyprob", "cms.incrby", "cms.merge"];
        assert_eq!(events, expected);
    }
    // RedisBloom 8's test_watch: CMS.INCRBY touches the key, reads do not.
    let server = Server::start();
    server.conn().cmd("CMS.INITBYDIM k 10 2");
    for (line, touches) in [
        ("CMS.QUERY k a", false),
        ("CMS.INFO k", false),
        ("CMS.INCRBY k a 1", true),
    ] {
        assert_eq!(touches_key(&server, "k", line).0, touches, "{line}");
    }
}

#[test]
fn command_info_docs_and_acl() {
    let (server, mut c) = Server::start_with_conn();
    for (command, arity, flags) in [
        ("cms.initbydim", -4, vec!["denyoom", "module", "write"]),
        ("cms.initbyprob", -4, vec!["denyoom", "module", "write"]),
        ("cms.incrby", -4, vec!["denyoom", "module", "write"]),
        ("cms.query", -3, vec!["module", "readonly"]),
        // Its sources are counted by an argument: `movablekeys`, from the key specs and from the
        // command answering the server for its keys (`getkeys-api`), which Redis 6 shows too.
        (
            "cms.merge",
            -4,
            vec!["denyoom", "module", "movablekeys", "write"],
        ),
        ("cms.info", 2, vec!["module", "readonly"]),
    ] {
        let info = c.call(&["COMMAND", "INFO", command]).array()[0].array();
        if feature::command_docs() {
            assert_eq!(info[1], int(arity), "{command}");
            assert_eq!(info[2].sorted_texts(), flags, "{command}");
        } else {
            // Before Redis 7.0: no arity, no key specs, no `module` flag (as for RedisBloom).
            let flags: Vec<&str> = flags.into_iter().filter(|&f| f != "module").collect();
            assert_eq!(info[2].sorted_texts(), flags, "{command}");
        }
        assert_eq!((info[3].int(), info[4].int(), info[5].int()), (1, 1, 1));
    }
    if !feature::command_docs() {
        return;
    }
    // The sources of CMS.MERGE are keys too (RedisBloom declares only the destination).
    assert_eq!(
        c.cmd("COMMAND GETKEYS CMS.MERGE d 2 a b WEIGHTS 1 2"),
        Value::Array(vec![bulk(b"d"), bulk(b"a"), bulk(b"b")])
    );
    let docs = CommandDoc::read(&mut c, "cms.initbyprob");
    assert_eq!(
        docs.field("summary"),
        bulk(b"Initializes a Count-Min Sketch to accommodate requested tolerances.")
    );
    assert_eq!(docs.field("since"), bulk(b"2.0.0"));
    family_acl_category(&server, "cms", "cms.", "CMS.INITBYDIM k 2 2", "BF.ADD b x");
}

const SKETCHES: persist::Family = persist::Family {
    build: cms::build,
    answers: cms::answers,
    write: |c, key| {
        c.call(&["CMS.INCRBY", key, "new", "1"]);
    },
};

#[test]
fn sketches_survive_every_move() {
    persist::survives_every_move(&SKETCHES);
}

const SIZED_SKETCHES: persist::Family = persist::Family {
    build: cms::build_cell_sizes,
    answers: cms::answers,
    write: |c, key| {
        c.call(&["CMS.INCRBY", key, "new", "1", "item2", "-1"]);
    },
};

#[test]
fn sketches_of_every_cell_size_survive_every_move() {
    persist::survives_every_move(&SIZED_SKETCHES);
}

#[test]
fn sketches_that_differ_by_one_counter_have_different_digests() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CMS.INITBYDIM x 10 2");
    c.cmd("CMS.INITBYDIM y 10 2");
    let digest = |c: &mut Conn, k: &str| c.call(&["DEBUG", "DIGEST-VALUE", k]);
    assert_eq!(digest(&mut c, "x"), digest(&mut c, "y"));
    c.cmd("CMS.INCRBY y a 1");
    assert_ne!(digest(&mut c, "x"), digest(&mut c, "y"));
}

/// The type byte and type id of a `CMSk-TYPE` DUMP payload of encoding 0 (the last byte is
/// the encoding).
const HEADER: [u8; 10] = [0x07, 0x81, 0x08, 0xc4, 0xa4, 0xf9, 0x36, 0x0f, 0x10, 0x00];

/// An encoding-0 payload of width, depth and count, then an array of `array` bytes (none if
/// `None`), sealed as Redis 7.0 seals DUMP payloads.
fn payload(width: u64, depth: u64, count: u64, array: Option<&[u8]>) -> Vec<u8> {
    sized_payload(None, width, depth, count, array)
}

/// An encoding-1 payload (Redis 8.12's) when `cell_size` is given, encoding 0 otherwise.
fn sized_payload(
    cell_size: Option<u64>,
    width: u64,
    depth: u64,
    count: u64,
    array: Option<&[u8]>,
) -> Vec<u8> {
    let mut payload = HEADER.to_vec();
    let mut fields = vec![width, depth, count];
    if let Some(cell_size) = cell_size {
        payload[9] = 1;
        fields.push(cell_size);
    }
    for n in fields {
        payload.extend(rdb_unsigned(n));
    }
    if let Some(array) = array {
        payload.extend(rdb_buffer(array));
    }
    payload.extend_from_slice(&[0x00, 0x0a, 0x00]);
    let crc = crc64(&payload);
    payload.extend_from_slice(&crc.to_le_bytes());
    payload
}

#[test]
fn payloads_load_byte_for_byte_and_hostile_ones_are_refused() {
    // The payloads are framed as Redis 7 frames them (RDB version 10), which 6.x refuses.
    if !feature::survives_refused_restore() || !server_at_least((7, 0, 0)) {
        return;
    }
    let (_server, mut c) = Server::start_with_conn();
    // `CMS.INITBYDIM k 3 2; CMS.INCRBY k a 1` as RedisBloom 2.8.2 dumps it on Redis 7.0.15
    // with `rdbcompression no`: `a` in cells 1 and 5.
    let mut counters = [0u8; 24];
    counters[4] = 1;
    counters[20] = 1;
    let good = payload(3, 2, 1, Some(&counters));
    assert_eq!(c.call_bytes(&[b"RESTORE", b"good", b"0", &good]), ok());
    assert_eq!(c.cmd("CMS.QUERY good a b"), ints(&[1, 0]));
    c.cmd("CMS.INITBYDIM ours 3 2");
    c.cmd("CMS.INCRBY ours a 1");
    c.cmd("CONFIG SET rdbcompression no");
    // Written in encoding 1, the cell size after the count (RedisBloom 8.12's).
    let ours = sized_payload(Some(4), 3, 2, 1, Some(&counters));
    if server_version().is_some_and(|v| v.0 == 7 && v.1 == 0) {
        assert_eq!(c.cmd("DUMP ours"), Value::Bulk(ours.clone()));
    }
    assert_eq!(c.call_bytes(&[b"RESTORE", b"again", b"0", &ours]), ok());
    assert_eq!(c.cmd("CMS.QUERY again a b"), ints(&[1, 0]));
    let two = sized_payload(Some(2), 3, 2, 1, Some(&counters[..12]));
    assert_eq!(c.call_bytes(&[b"RESTORE", b"two", b"0", &two]), ok());
    assert_eq!(c.cmd("CMS.INFO two").array()[7], int(2));
    let bad_data = err("ERR Bad data format");
    for (what, bad) in [
        // RedisBloom's test_rdb_load_overflow and its issues #950 and #1003.
        ("width 0", payload(0, 2, 0, Some(&[]))),
        ("depth 0", payload(3, 0, 0, Some(&[]))),
        ("a short array", payload(3, 2, 1, Some(&counters[..20]))),
        ("a long array", payload(3, 2, 1, Some(&[0; 28]))),
        ("2^62 × 4 counters", payload(1 << 62, 4, 0, Some(&[]))),
        ("no array", payload(3, 2, 1, None)),
        (
            "cell size 3",
            sized_payload(Some(3), 3, 2, 1, Some(&[0; 18])),
        ),
        ("cell size 0", sized_payload(Some(0), 3, 2, 1, Some(&[]))),
        (
            "an eight-byte cell of 2^63",
            sized_payload(Some(8), 1, 1, 1, Some(&(1u64 << 63).to_le_bytes())),
        ),
        (
            "cell size 2, 4-byte array",
            sized_payload(Some(2), 3, 2, 1, Some(&counters)),
        ),
    ] {
        assert_eq!(
            c.call_bytes(&[b"RESTORE", b"bad", b"0", &bad]),
            bad_data,
            "{what}"
        );
    }
    assert_eq!(c.cmd("EXISTS bad"), int(0));
    assert_eq!(c.cmd("PING"), simple("PONG"));
}

#[test]
fn replicas_hold_the_same_bytes() {
    let master = Server::start();
    let mut m = master.conn();
    let keys = cms::build(&mut m);
    let (_replica, mut r) = Server::synced_replica_of(&master);
    m.cmd("CMS.INCRBY wide item1 5 fresh 3");
    m.cmd("CMS.MERGE merged 2 merged wide WEIGHTS 1 1");
    m.cmd("CMS.INITBYPROB late 0.01 0.1");
    m.cmd("CMS.INCRBY small c 1 a 2");
    wait_in_sync(&mut m, &mut r);
    for key in keys.iter().chain(&["late"]) {
        assert_eq!(m.call(&["DUMP", key]), r.call(&["DUMP", key]), "{key}");
    }
}

/// The way back (`cms-rdb-encoding 0`): RedisBloom before 8.12 reads only encoding 0, whose
/// cells are four bytes. What is written then is that; CELL_SIZE other than 4 is refused, and
/// sketches of other sizes that arrive are widened.
#[test]
fn the_way_back_writes_encoding_0() {
    let server = Server::with_setting("cms-rdb-encoding", "0");
    let mut c = server.conn();
    assert_eq!(
        c.cmd("CMS.INITBYDIM k 3 2 CELL_SIZE 1"),
        err("CMS: CELL_SIZE must be 4 while cms-rdb-encoding is 0 (RedisBloom before Redis 8.12)")
    );
    assert_eq!(c.cmd("CMS.INITBYDIM k 3 2 CELL_SIZE 4"), ok());
    assert_eq!(c.cmd("CMS.INCRBY k a 1"), ints(&[1]));
    c.cmd("CONFIG SET rdbcompression no");
    let dumped = c.cmd("DUMP k").bulk();
    assert_eq!(&dumped[..10], &HEADER[..], "encoding 0");
    // A one-byte sketch from a server that writes encoding 1 widens to four bytes, counters
    // kept; the same holds through a reload.
    let mut counters = [0u8; 6];
    counters[1] = 200;
    counters[5] = 9;
    let one = sized_payload(Some(1), 3, 2, 209, Some(&counters));
    if feature::survives_refused_restore() && server_at_least((7, 0, 0)) {
        assert_eq!(c.call_bytes(&[b"RESTORE", b"one", b"0", &one]), ok());
        assert_eq!(c.cmd("CMS.INFO one").array()[7], int(4));
        let before = c.cmd("CMS.QUERY one a b");
        c.cmd("DEBUG RELOAD");
        assert_eq!(c.cmd("CMS.QUERY one a b"), before);
        assert!(!c.cmd("CMS.INCRBY one a 300").array()[0].is_error());
    }
    if feature::module_configs() {
        let name = config_name(&mut c, "cms-rdb-encoding");
        assert_eq!(c.call(&["CONFIG", "GET", &name]).array()[1], bulk(b"0"));
        assert!(c.call(&["CONFIG", "SET", &name, "1"]).is_error());
        // As a config directive (the config file), before the data type is registered.
        let directive = Server::with(Module::RedisBf)
            .arg(&format!("--{name} 0"))
            .start();
        let mut d = directive.conn();
        d.cmd("CMS.INITBYDIM k 3 2");
        assert_eq!(&d.cmd("DUMP k").bulk()[..10], &HEADER[..]);
    }
    // Only 0 or 1 load.
    let refused = Server::with(Module::RedisBf)
        .setting("cms-rdb-encoding", "2")
        .try_start();
    assert!(refused.is_err());
}
