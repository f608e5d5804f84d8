//! Every Bloom-filter command's replies and error strings, byte for byte as RedisBloom sends
//! them, in RESP2 and RESP3 (RedisBloom 8's `src/rebloom.c` and its `tests/flow` suites).
//! SCANDUMP and LOADCHUNK are `bf_scandump`'s.

mod common;

use common::*;

#[test]
fn reserve_creates_filters_and_validates_in_redisbloom_order() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE bf 0.01 1000"), ok());
    assert_eq!(c.cmd("BF.RESERVE bf 0.01 1000"), err("ERR item exists"));
    c.cmd("SET str x");
    assert_eq!(c.cmd("BF.RESERVE str 0.01 1000"), err(WRONGTYPE));
    // Argument errors come before key errors.
    assert_eq!(c.cmd("BF.RESERVE bf abc 1000"), err("ERR bad error rate"));
    for rate in ["0", "1", "-0.5", "1.5", "inf"] {
        assert_eq!(
            c.call(&["BF.RESERVE", "x", rate, "100"]),
            err("ERR error rate must be in the range (0.000000, 1.000000)")
        );
    }
    expect_replies(
        &mut c,
        "
            BF.RESERVE x 0.01 abc -> (error) ERR bad capacity
            BF.RESERVE x 0.01 1.5 -> (error) ERR bad capacity
            BF.RESERVE x 0.01 0 -> (error) ERR capacity must be in the range [1, 1073741824]
            BF.RESERVE x 0.01 1073741825 -> (error) ERR capacity must be in the range [1, 1073741824]
            BF.RESERVE x 0.01 100 EXPANSION -> (error) ERR no expansion
            BF.RESERVE x 0.01 100 EXPANSION two -> (error) ERR bad expansion
            BF.RESERVE x 0.01 100 EXPANSION 2 NONSCALING -> (error) Nonscaling filters cannot expand
            BF.RESERVE x 0.01 100 NONSCALING EXPANSION 3 -> (error) Nonscaling filters cannot expand
            BF.RESERVE x 0.01 100 EXPANSION 32769 -> (error) ERR expansion must be in the range [0, 32768]
            BF.RESERVE x 0.01 100 EXPANSION -1 -> (error) ERR expansion must be in the range [0, 32768]
        ",
    );
    assert_eq!(
        c.cmd("EXISTS x"),
        int(0),
        "a failed RESERVE changes nothing"
    );
    // Arity comes from Redis itself, with the lowercase name as RedisBloom registers it.
    for line in ["BF.RESERVE x 0.01", "BF.RESERVE x 0.01 100 a b c d"] {
        assert_eq!(c.cmd(line), arity_error(line));
    }
    // Unknown extra arguments are ignored, as RedisBloom does.
    assert_eq!(c.cmd("BF.RESERVE extra 0.01 100 whatever"), ok());
}

#[test]
fn reserve_options_shape_the_filter() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE e0 0.01 100 EXPANSION 0"), ok());
    assert_eq!(
        c.cmd("BF.INFO e0 EXPANSION"),
        Value::Array(vec![Value::Nil])
    );
    assert_eq!(c.cmd("BF.RESERVE e5 0.01 100 expansion 5"), ok());
    assert_eq!(c.cmd("BF.INFO e5 EXPANSION"), ints(&[5]));
    assert_eq!(c.cmd("BF.RESERVE ns 0.01 100 nonscaling"), ok());
    assert_eq!(
        c.cmd("BF.INFO ns EXPANSION"),
        Value::Array(vec![Value::Nil])
    );
    // Error rates above 0.25 are capped, silently: 0.25 · 0.5 per link → same size as 0.25.
    assert_eq!(c.cmd("BF.RESERVE high 0.9 100"), ok());
    assert_eq!(c.cmd("BF.RESERVE quarter 0.25 100"), ok());
    assert_eq!(c.cmd("BF.INFO high SIZE"), c.cmd("BF.INFO quarter SIZE"));
    // A key named like an option is just a key (RedisBloom would turn NONSCALING on).
    assert_eq!(c.cmd("BF.RESERVE nonscaling 0.01 100"), ok());
    assert_eq!(c.cmd("BF.INFO nonscaling EXPANSION"), ints(&[2]));
}

#[test]
fn add_and_exists_resp2() {
    let (_server, mut c) = Server::start_with_conn();
    expect_replies(
        &mut c,
        "
            BF.ADD bf item1 -> (integer) 1
            BF.ADD bf item1 -> (integer) 0
            BF.EXISTS bf item1 -> (integer) 1
            BF.EXISTS bf nope -> (integer) 0
        ",
    );
    assert_eq!(c.cmd("BF.MADD bf a b item1"), ints(&[1, 1, 0]));
    assert_eq!(c.cmd("BF.MEXISTS bf a b c"), ints(&[1, 1, 0]));
    // Auto-created with the defaults: capacity 100, error 0.01, expansion 2.
    assert_eq!(
        c.cmd("BF.INFO bf"),
        Value::Array(vec![
            simple("Capacity"),
            int(100),
            simple("Size"),
            int(240),
            simple("Number of filters"),
            int(1),
            simple("Number of items inserted"),
            int(3),
            simple("Expansion rate"),
            int(2),
        ])
    );
    // Binary-safe items.
    assert_eq!(c.call_bytes(&[b"BF.ADD", b"bf", b"\x00\xff\r\n"]), int(1));
    assert_eq!(
        c.call_bytes(&[b"BF.EXISTS", b"bf", b"\x00\xff\r\n"]),
        int(1)
    );
    assert_eq!(c.call_bytes(&[b"BF.ADD", b"bf", b""]), int(1));
    assert_eq!(c.call_bytes(&[b"BF.EXISTS", b"bf", b""]), int(1));
}

#[test]
fn add_and_exists_resp3_use_booleans() {
    let server = Server::start();
    let mut c = server.conn().resp3();
    // Before Redis 7.0 modules cannot send booleans: RESP3 clients get integers there, as
    // from RedisBloom (`resp3_bool`).
    assert_eq!(c.cmd("BF.ADD bf x"), resp3_bool(true));
    assert_eq!(c.cmd("BF.ADD bf x"), resp3_bool(false));
    assert_eq!(c.cmd("BF.EXISTS bf x"), resp3_bool(true));
    assert_eq!(c.cmd("BF.EXISTS missing x"), resp3_bool(false));
    assert_eq!(c.cmd("BF.MADD bf x y"), bools(&[false, true]));
    assert_eq!(c.cmd("BF.MEXISTS bf x y z"), bools(&[true, true, false]));
    assert_eq!(c.cmd("BF.INSERT bf ITEMS y w"), bools(&[false, true]));
    assert_eq!(c.cmd("BF.CARD bf"), int(3));
}

#[test]
fn missing_and_wrong_type_keys() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("SET str x");
    // EXISTS answers 0 for both, as RedisBloom.
    assert_eq!(c.cmd("BF.EXISTS missing x"), int(0));
    assert_eq!(c.cmd("BF.EXISTS str x"), int(0));
    assert_eq!(c.cmd("BF.MEXISTS missing x y"), ints(&[0, 0]));
    assert_eq!(c.cmd("BF.MEXISTS str x y"), ints(&[0, 0]));
    assert_eq!(c.cmd("BF.CARD missing"), int(0));
    assert_eq!(c.cmd("BF.CARD str"), err(WRONGTYPE));
    for command in ["BF.INFO", "BF.DEBUG"] {
        assert_eq!(c.call(&[command, "missing"]), err("ERR not found"));
        assert_eq!(c.call(&[command, "str"]), err(WRONGTYPE));
    }
    expect_replies(
        &mut c,
        "
            BF.SCANDUMP missing 0 -> (error) ERR not found
            BF.SCANDUMP str 0 -> (wrongtype)
            BF.ADD str x -> (wrongtype)
            BF.MADD str x -> (wrongtype)
            BF.INSERT str ITEMS x -> (wrongtype)
            BF.LOADCHUNK str 1 x -> (wrongtype)
        ",
    );
    assert_eq!(
        c.cmd("GET str"),
        bulk(b"x"),
        "wrong-type writes leave the key alone"
    );
    assert_eq!(
        c.cmd("BF.INSERT missing NOCREATE ITEMS x"),
        err("ERR not found")
    );
    assert_eq!(c.cmd("EXISTS missing"), int(0));
}

/// Redis ≥ 7.0 names the command in lower case; 6.x echoes it as typed (`arity_error`).
#[test]
fn arity_errors_name_the_lowercase_command() {
    let (_server, mut c) = Server::start_with_conn();
    for line in [
        "BF.ADD k",
        "BF.ADD k a b",
        "BF.MADD k",
        "BF.EXISTS k",
        "BF.MEXISTS k",
        "BF.INFO",
        "BF.CARD",
        "BF.CARD a b",
        "BF.DEBUG",
        "BF.SCANDUMP k",
        "BF.LOADCHUNK k 1",
        "BF.INSERT k ITEMS",
        "bf.Add k",
        // Arity the module checks itself (Redis only knows a minimum).
        "BF.INFO k CAPACITY extra",
    ] {
        assert_eq!(c.cmd(line), arity_error(line), "{line}");
    }
}

#[test]
fn nonscaling_filters_fill_up() {
    let (_server, mut c) = Server::start_with_conn();
    // RedisBloom's test_nonscaling_err: the array ends at the first "full" error.
    assert_eq!(
        c.cmd("BF.INSERT n CAPACITY 3 NONSCALING ITEMS a b c d e"),
        Value::Array(vec![
            int(1),
            int(1),
            int(1),
            err("ERR non scaling filter is full"),
        ])
    );
    assert_eq!(c.cmd("BF.ADD n d"), err("ERR non scaling filter is full"));
    assert_eq!(
        c.cmd("BF.MADD n a d e"),
        Value::Array(vec![int(0), err("ERR non scaling filter is full")])
    );
    assert_eq!(
        c.cmd("BF.ADD n a"),
        int(0),
        "existing items answer 0 even when full"
    );
    assert_eq!(
        c.cmd("BF.INFO n"),
        Value::Array(vec![
            simple("Capacity"),
            int(3),
            simple("Size"),
            int(104),
            simple("Number of filters"),
            int(1),
            simple("Number of items inserted"),
            int(3),
            simple("Expansion rate"),
            Value::Nil,
        ])
    );
}

#[test]
fn scaling_adds_sub_filters() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE s 0.01 10 EXPANSION 3");
    // 100 items fill the links of 10 and 30 and go on into the one of 90.
    let items: Vec<String> = (0..100).map(|i| format!("item{i}")).collect();
    let mut args = vec!["BF.MADD", "s"];
    args.extend(items.iter().map(String::as_str));
    let added = c
        .call(&args)
        .array()
        .iter()
        .filter(|v| **v == int(1))
        .count() as i64;
    assert_eq!(c.cmd("BF.CARD s"), int(added));
    assert_eq!(c.cmd("BF.INFO s FILTERS"), ints(&[3]));
    assert_eq!(c.cmd("BF.INFO s CAPACITY"), ints(&[10 + 30 + 90]));
    let mut check = vec!["BF.MEXISTS", "s"];
    check.extend(items.iter().map(String::as_str));
    assert!(
        c.call(&check).array().iter().all(|v| *v == int(1)),
        "no false negatives across links"
    );
    let debug = c.cmd("BF.DEBUG s").array();
    assert_eq!(debug.len(), 4);
    assert_eq!(
        debug[1],
        bulk(b"bytes:16 bits:128 hashes:8 hashwidth:64 capacity:10 size:10 ratio:0.005")
    );
    assert_eq!(
        debug[2],
        bulk(b"bytes:48 bits:384 hashes:9 hashwidth:64 capacity:30 size:30 ratio:0.0025")
    );
}

#[test]
fn insert_options() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(
        c.cmd("BF.INSERT a CAPACITY 50000 ERROR 0.001 ITEMS x"),
        ints(&[1])
    );
    // RedisBloom's test_insert debug line.
    assert_eq!(
        c.cmd("BF.DEBUG a").array()[1],
        bulk(b"bytes:98880 bits:791040 hashes:11 hashwidth:64 capacity:50000 size:1 ratio:0.0005")
    );
    // Prefixes, as RedisBloom reads them; the last repeat wins; EXPANSION 0 means non-scaling.
    assert_eq!(
        c.cmd("BF.INSERT b cap 7 cap 8 er 0.1 exp 4 items x y"),
        ints(&[1, 1])
    );
    assert_eq!(c.cmd("BF.INFO b CAPACITY"), ints(&[8]));
    assert_eq!(c.cmd("BF.INFO b EXPANSION"), ints(&[4]));
    assert_eq!(c.cmd("BF.INSERT c EXPANSION 0 ITEMS x"), ints(&[1]));
    assert_eq!(c.cmd("BF.INFO c EXPANSION"), Value::Array(vec![Value::Nil]));
    assert_eq!(
        c.cmd("BF.INSERT d NONSCALING EXPANSION 5 ITEMS x"),
        ints(&[1]),
        "NONSCALING wins"
    );
    assert_eq!(c.cmd("BF.INFO d EXPANSION"), Value::Array(vec![Value::Nil]));
    // Options are ignored once the filter exists.
    assert_eq!(c.cmd("BF.INSERT a CAPACITY 5 ITEMS y"), ints(&[1]));
    assert_eq!(c.cmd("BF.INFO a CAPACITY"), ints(&[50000]));
    assert_eq!(c.cmd("BF.INSERT a NOCREATE ITEMS z"), ints(&[1]));
    // Value errors carry no ERR, as RedisBloom's.
    for (line, error) in [
        ("BF.INSERT e ERROR 0 ITEMS x", "Bad error rate"),
        ("BF.INSERT e ERROR abc ITEMS x", "Bad error rate"),
        ("BF.INSERT e ERROR 1 ITEMS x", "Bad error rate"),
        ("BF.INSERT e CAPACITY 0 ITEMS x", "Bad capacity"),
        ("BF.INSERT e CAPACITY 1073741825 ITEMS x", "Bad capacity"),
        ("BF.INSERT e EXPANSION -1 ITEMS x", "Bad expansion"),
        ("BF.INSERT e EXPANSION 32769 ITEMS x", "Bad expansion"),
        ("BF.INSERT e FOO ITEMS x", "Unknown argument received"),
        ("BF.INSERT e CAPACITY 10 x", "Unknown argument received"),
    ] {
        assert_eq!(c.cmd(line), err(error), "{line}");
    }
    for line in ["BF.INSERT e CAPACITY", "BF.INSERT e CAPACITY 10 NONSCALING"] {
        assert_eq!(c.cmd(line), arity_error(line));
    }
    assert_eq!(c.cmd("EXISTS e"), int(0));
}

#[test]
fn info_fields_resp2_and_resp3() {
    let (server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE bf 0.001 100");
    c.cmd("BF.ADD bf x");
    for (field, value) in [
        ("CAPACITY", 100),
        ("size", 296),
        ("Filters", 1),
        ("ITEMS", 1),
        ("EXPANSION", 2),
    ] {
        assert_eq!(c.call(&["BF.INFO", "bf", field]), ints(&[value]), "{field}");
    }
    assert_eq!(c.cmd("BF.INFO bf NOPE"), err("Invalid information value"));
    assert_eq!(
        c.cmd("BF.INFO missing NOPE"),
        err("ERR not found"),
        "the key is checked first"
    );
    let mut c3 = server.conn().resp3();
    c3.cmd("BF.RESERVE ns 0.01 10 NONSCALING");
    let pairs = vec![
        (simple("Capacity"), int(100)),
        (simple("Size"), int(296)),
        (simple("Number of filters"), int(1)),
        (simple("Number of items inserted"), int(1)),
        (simple("Expansion rate"), int(2)),
    ];
    if feature::module_resp3() {
        assert_eq!(c3.cmd("BF.INFO bf"), Value::Map(pairs));
        assert_eq!(
            c3.cmd("BF.INFO bf ITEMS"),
            Value::Map(vec![(simple("Number of items inserted"), int(1))])
        );
        assert_eq!(
            c3.cmd("BF.INFO ns EXPANSION"),
            Value::Map(vec![(simple("Expansion rate"), Value::Null)])
        );
    } else {
        // Before Redis 7.0 modules have no map reply: RESP3 clients get RESP2's shapes (with
        // RESP3's null), byte for byte what RedisBloom sends there.
        let flat = pairs.into_iter().flat_map(|(k, v)| [k, v]).collect();
        assert_eq!(c3.cmd("BF.INFO bf"), Value::Array(flat));
        assert_eq!(c3.cmd("BF.INFO bf ITEMS"), ints(&[1]));
        assert_eq!(
            c3.cmd("BF.INFO ns EXPANSION"),
            Value::Array(vec![Value::Null])
        );
    }
}

#[test]
fn debug_lists_every_link() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("BF.ADD bf x");
    assert_eq!(
        c.cmd("BF.DEBUG bf"),
        Value::Array(vec![
            bulk(b"size:1"),
            bulk(b"bytes:144 bits:1152 hashes:8 hashwidth:64 capacity:100 size:1 ratio:0.005"),
        ])
    );
}

#[test]
fn keyspace_notifications_for_writes() {
    let Some(server) = Server::with_keyspace_events() else {
        return;
    };
    let mut c = server.conn();
    let mut sub = server.conn();
    assert_eq!(
        sub.cmd("SUBSCRIBE __keyevent@0__:bf.add").array()[0],
        bulk(b"subscribe")
    );
    c.cmd("BF.ADD k x");
    assert_eq!(
        sub.read(),
        Value::Array(vec![
            bulk(b"message"),
            bulk(b"__keyevent@0__:bf.add"),
            bulk(b"k")
        ])
    );
    let mut psub = server.conn();
    psub.cmd("PSUBSCRIBE __keyspace@0__:*");
    for line in ["BF.RESERVE r 0.01 10", "BF.MADD k a", "BF.INSERT k ITEMS b"] {
        c.cmd(line);
    }
    let events: Vec<Value> = (0..3).map(|_| psub.read().array()[3].clone()).collect();
    assert_eq!(
        events,
        vec![bulk(b"bf.reserve"), bulk(b"bf.add"), bulk(b"bf.add")]
    );
}

/// `MODULE LIST` names the module `bf`, as RedisBloom, with the version of RedisBloom whose
/// commands, replies and formats redis-bf reproduces (2.8.2), encoded as RedisBloom encodes its
/// own (major·10000 + minor·100 + patch): version gates in clients and tools read it. redis-bf's
/// own version is in `INFO bf` and the load log line.
#[test]
fn module_list_shows_the_name_and_the_redisbloom_version() {
    let (server, mut c) = Server::start_with_conn();
    // Redis 8 and Valkey 9 list built-in modules too (vectorset, lua).
    let modules = c.cmd("MODULE LIST").array();
    let field = |fields: &[Value], name: &str| {
        let at = fields.iter().position(|f| f.text() == name)?;
        fields.get(at + 1).cloned()
    };
    let ours = modules
        .iter()
        .map(Value::array)
        .find(|fields| field(fields, "name").is_some_and(|n| n.text() == "bf"))
        .unwrap_or_else(|| panic!("no module bf: {modules:?}"));
    assert_eq!(field(&ours, "ver"), Some(int(81200)));
    let info = c.cmd("INFO bf").text();
    let own = format!("bf_redis_bf_version:{}", env!("CARGO_PKG_VERSION"));
    assert!(info.lines().any(|line| line == own), "{info}");
    let log = server.log();
    let loaded = format!(
        "redis-bf {} loaded, answering as RedisBloom 8.12.0",
        env!("CARGO_PKG_VERSION")
    );
    assert!(log.contains(&loaded), "{log}");
}

#[test]
fn command_info_and_docs() {
    let (_server, mut c) = Server::start_with_conn();
    let info = c.cmd("COMMAND INFO bf.add").array()[0].array();
    assert_eq!(info[0], bulk(b"bf.add"));
    if !feature::command_docs() {
        // Before Redis 7.0 a module can set no metadata but flags and key positions: Redis
        // reports arity -1, no `module` flag, and has no COMMAND DOCS (as for RedisBloom).
        assert_eq!(info[1], int(-1));
        assert_eq!(info[2].sorted_texts(), ["denyoom", "write"]);
        assert_eq!((info[3].int(), info[4].int(), info[5].int()), (1, 1, 1));
        assert_eq!(
            c.cmd("COMMAND GETKEYS BF.MADD mykey a b"),
            Value::Array(vec![bulk(b"mykey")])
        );
        return;
    }
    assert_eq!(info[1], int(3));
    assert_eq!(info[2].sorted_texts(), ["denyoom", "module", "write"]);
    assert_eq!((info[3].int(), info[4].int(), info[5].int()), (1, 1, 1));
    let exists = c.cmd("COMMAND INFO bf.exists").array()[0].array();
    assert_eq!(exists[2].sorted_texts(), ["fast", "module", "readonly"]);
    assert_eq!(exists[1], int(3));
    assert_eq!(
        c.cmd("COMMAND GETKEYS BF.MADD mykey a b"),
        Value::Array(vec![bulk(b"mykey")])
    );
    let docs = CommandDoc::read(&mut c, "bf.add");
    assert_eq!(
        docs.field("summary"),
        bulk(b"Adds an item to a Bloom Filter")
    );
    // All thirteen BF commands are there (BF.LOAD is valkey-bloom's, BF.MERGE ours), beside
    // the other families' (each suite counts its own).
    let list = c.cmd("COMMAND LIST FILTERBY MODULE bf").array();
    let bf = list
        .iter()
        .filter(|name| name.text().starts_with("bf."))
        .count();
    assert_eq!(bf, 13, "{list:?}");
}

#[test]
fn watch_is_not_disturbed_by_reads() {
    let server = Server::start();
    server.conn().cmd("BF.ADD k x");
    for (line, touches) in [
        ("BF.EXISTS k x", false),
        ("BF.MEXISTS k x", false),
        ("BF.INFO k", false),
        ("BF.CARD k", false),
        ("BF.DEBUG k", false),
        ("BF.SCANDUMP k 0", false),
        ("BF.ADD k y", true),
    ] {
        let (touched, reply) = touches_key(&server, "k", line);
        assert_eq!(touched, touches, "{line}");
        assert!(!reply.is_error(), "{line}");
    }
}

#[test]
fn fast_layout_filters() {
    let (server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE f 0.01 1000 LAYOUT FAST"), ok());
    assert_eq!(c.cmd("TYPE f"), simple("bfblocked"));
    // LAYOUT beside every RedisBloom option: two arguments over RedisBloom's seven.
    assert_eq!(
        c.cmd("BF.RESERVE all-options 0.05 4 EXPANSION 4 LAYOUT FAST"),
        ok()
    );
    assert_eq!(
        c.cmd("BF.RESERVE all-options2 0.05 4 EXPANSION 4 NONSCALING LAYOUT FAST"),
        err("Nonscaling filters cannot expand")
    );
    let too_many = "BF.RESERVE all-options3 0.05 4 EXPANSION 4 LAYOUT FAST x y";
    assert_eq!(c.cmd(too_many), arity_error(too_many));
    assert_eq!(c.cmd("BF.MADD f a b a"), ints(&[1, 1, 0]));
    assert_eq!(c.cmd("BF.MEXISTS f a b c"), ints(&[1, 1, 0]));
    assert_eq!(c.cmd("BF.CARD f"), int(2));
    // 1000 items at 0.5% (the first link of a scaling filter): 12,288 bits in 24 blocks.
    let info = c.cmd("BF.INFO f").array();
    assert_eq!(info.len(), 12, "{info:?}");
    assert_eq!(&info[10..], &[simple("Layout"), bulk(b"fast")]);
    assert_eq!(c.cmd("BF.INFO f LAYOUT"), Value::Array(vec![bulk(b"fast")]));
    let debug = c.cmd("BF.DEBUG f").array();
    assert!(
        debug[1]
            .text()
            .contains("hashwidth:128 capacity:1000 size:2 ratio:0.005"),
        "{debug:?}"
    );
    assert_eq!(
        c.cmd("BF.INSERT g LAYOUT fast CAPACITY 3 NONSCALING ITEMS x y z w"),
        Value::Array(vec![
            int(1),
            int(1),
            int(1),
            err("ERR non scaling filter is full"),
        ])
    );
    assert_eq!(c.cmd("TYPE g"), simple("bfblocked"));
    // Classic filters are unchanged: no Layout pair in the full reply.
    c.cmd("BF.RESERVE classic 0.01 1000 LAYOUT CLASSIC");
    assert_eq!(c.cmd("TYPE classic"), simple("MBbloom--"));
    assert_eq!(c.cmd("BF.INFO classic").array().len(), 10);
    assert_eq!(
        c.cmd("BF.INFO classic LAYOUT"),
        Value::Array(vec![bulk(b"classic")])
    );
    for line in [
        "BF.RESERVE x 0.01 100 LAYOUT",
        "BF.RESERVE x 0.01 100 LAYOUT SLOW",
        "BF.INSERT x LAYOUT SLOW ITEMS a",
    ] {
        assert_eq!(
            c.cmd(line),
            err("ERR layout must be CLASSIC or FAST"),
            "{line}"
        );
    }
    assert_eq!(
        c.cmd("BF.RESERVE f 0.01 10 LAYOUT FAST"),
        err("ERR item exists")
    );
    // The RESP3 map gains the pair too (a flat array before Redis 7.0).
    let mut c3 = server.conn().resp3();
    match c3.cmd("BF.INFO f") {
        Value::Map(pairs) => assert_eq!(pairs.last(), Some(&(simple("Layout"), bulk(b"fast")))),
        Value::Array(items) if !feature::module_resp3() => {
            assert_eq!(&items[10..], &[simple("Layout"), bulk(b"fast")])
        }
        other => panic!("{other:?}"),
    }
}

/// Every command once, with arguments that pass its arity check.
const ONE_OF_EACH: [&str; 13] = [
    "BF.RESERVE acl 0.01 100",
    "BF.ADD acl a",
    "BF.MADD acl a",
    "BF.INSERT acl ITEMS a",
    "BF.EXISTS acl a",
    "BF.MEXISTS acl a",
    "BF.INFO acl",
    "BF.CARD acl",
    "BF.DEBUG acl",
    "BF.SCANDUMP acl 0",
    "BF.LOADCHUNK acl 1 x",
    "BF.LOAD acl2 x",
    "BF.MERGE acl3 1 acl",
];

/// Whether `user` (password `pw`) may run `line`: judged by what the server answers once
/// authenticated as that user (`ACL DRYRUN` exists only from Redis 7.0).
fn may_run(server: &Server, user: &str, line: &str) -> bool {
    let mut c = server.conn();
    assert_eq!(c.call(&["AUTH", user, "pw"]), ok());
    let reply = c.cmd(line);
    !matches!(&reply, Value::Error(e) if e.starts_with("NOPERM"))
}

/// ACL categories, judged by what they grant: the `bloom` category where the server lets
/// modules add one (Redis ≥ 7.4, Valkey), `read`/`write` where modules may set categories
/// (Redis ≥ 7.2); before that, module commands are granted by name only.
#[test]
fn acl_category_where_supported() {
    let (server, mut c) = Server::start_with_conn();
    let setuser = |c: &mut Conn, user: &str, rule: &str| {
        assert_eq!(
            c.call(&["ACL", "SETUSER", user, "on", ">pw", "~*", rule]),
            ok()
        );
    };
    setuser(&mut c, "reader", "+@read");
    setuser(&mut c, "writer", "+@write");
    setuser(&mut c, "byname", "+bf.exists");
    assert!(may_run(&server, "byname", "BF.EXISTS acl a"));
    assert!(!may_run(&server, "byname", "BF.ADD acl a"));
    let standard = server_at_least((7, 2, 0));
    assert_eq!(may_run(&server, "reader", "BF.EXISTS acl a"), standard);
    assert_eq!(may_run(&server, "writer", "BF.ADD acl a"), standard);
    assert!(!may_run(&server, "reader", "BF.ADD acl a"));
    assert!(!may_run(&server, "writer", "BF.EXISTS acl a"));

    if !family_acl_category(&server, "bloom", "bf.", "BF.ADD acl a", "GET acl") {
        return;
    }
    setuser(&mut c, "bloomer", "+@bloom");
    for line in ONE_OF_EACH {
        assert!(may_run(&server, "bloomer", line), "{line}");
    }
}
