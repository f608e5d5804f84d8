//! The bf-* and cf-* configs: module arguments (RedisBloom's names and the new ones), CONFIG
//! SET/GET with validation (the coupled CF ranges included), config files written for
//! RedisBloom or for redis-bf, refusal of bad load arguments, and the per-filter memory limit.
//! They shape only new filters, except the CF limits. Before Redis 7.0 servers have no module
//! configs: there only module arguments are tested (README, "Tested servers").

mod common;

use common::*;

/// The BF.DEBUG line of the first link of an auto-created filter.
fn auto_created(c: &mut Conn) -> Vec<Value> {
    c.cmd("DEL auto");
    c.cmd("BF.ADD auto x");
    c.cmd("BF.DEBUG auto").array()
}

#[test]
fn redisbloom_module_arguments() {
    let server = Server::with(Module::RedisBf)
        .setting("ERROR_RATE", "0.02")
        .setting("INITIAL_SIZE", "200")
        .start();
    let mut c = server.conn();
    assert_eq!(
        auto_created(&mut c)[1].text(),
        "bytes:240 bits:1920 hashes:7 hashwidth:64 capacity:200 size:1 ratio:0.01"
    );
    assert!(
        server.log().contains("deprecated"),
        "legacy names are accepted with a warning"
    );
}

#[test]
fn new_module_argument_names() {
    let server = Server::with(Module::RedisBf)
        .setting("bf-error-rate", "0.001")
        .setting("BF-INITIAL-SIZE", "1000")
        .setting("bf-expansion-factor", "0")
        .setting("CF_MAX_EXPANSIONS", "32")
        .start();
    let mut c = server.conn();
    let debug = auto_created(&mut c);
    assert_eq!(
        debug[1].text(),
        "bytes:1800 bits:14400 hashes:10 hashwidth:64 capacity:1000 size:1 ratio:0.001"
    );
    assert_eq!(
        c.cmd("BF.INFO auto EXPANSION"),
        Value::Array(vec![Value::Nil]),
        "expansion 0: non-scaling"
    );
    // With expansion 0 configured, an explicit EXPANSION conflicts, as in RedisBloom.
    assert_eq!(
        c.cmd("BF.RESERVE r 0.01 10 EXPANSION 2"),
        err("Nonscaling filters cannot expand")
    );
}

/// Loading the module with `args` fails, and the server's log says `message`.
fn assert_load_refused(args: &[&str], message: &str) {
    let mut builder = Server::with(Module::RedisBf);
    for arg in args {
        builder = builder.module_arg(arg);
    }
    let log = match builder.try_start() {
        Ok(_) => panic!("{args:?} loaded"),
        Err(log) => log,
    };
    assert!(log.contains(message), "{args:?}: {log}");
}

#[test]
fn bad_module_arguments_fail_the_load() {
    for (args, message) in [
        (vec!["ERROR_RATE"], "Invalid number of arguments passed"),
        (vec!["NOPE", "1"], "Unrecognized option"),
        (vec!["ERROR_RATE", "2"], "bf-error-rate"),
        (vec!["ERROR_RATE", "abc"], "bf-error-rate"),
        (vec!["INITIAL_SIZE", "0"], "bf-initial-size"),
        (vec!["bf-expansion-factor", "40000"], "bf-expansion-factor"),
    ] {
        assert_load_refused(&args, message);
    }
}

#[test]
fn config_set_and_get() {
    let (_server, mut c) = Server::start_with_conn();
    if !feature::module_configs() {
        assert_eq!(c.cmd("CONFIG GET *bf-*"), Value::Array(vec![]));
        return;
    }
    let rate = config_name(&mut c, "bf-error-rate");
    let size = config_name(&mut c, "bf-initial-size");
    let expansion = config_name(&mut c, "bf-expansion-factor");
    let get = |c: &mut Conn, name: &str| match c.call(&["CONFIG", "GET", name]) {
        Value::Array(items) => items[1].text(),
        Value::Map(pairs) => pairs[0].1.text(),
        other => panic!("{other:?}"),
    };
    assert_eq!(get(&mut c, &rate), "0.01");
    assert_eq!(get(&mut c, &size), "100");
    assert_eq!(get(&mut c, &expansion), "2");
    c.cmd("BF.ADD before x");
    assert_eq!(c.call(&["CONFIG", "SET", &rate, "0.05"]), ok());
    assert_eq!(c.call(&["CONFIG", "SET", &size, "500"]), ok());
    assert_eq!(c.call(&["CONFIG", "SET", &expansion, "4"]), ok());
    assert_eq!(get(&mut c, &rate), "0.05");
    let debug = auto_created(&mut c);
    assert_eq!(
        debug[1].text(),
        "bytes:480 bits:3840 hashes:6 hashwidth:64 capacity:500 size:1 ratio:0.025"
    );
    assert_eq!(c.cmd("BF.INFO auto EXPANSION"), ints(&[4]));
    assert_eq!(
        c.cmd("BF.INFO before CAPACITY"),
        ints(&[100]),
        "existing filters keep their shape"
    );
    // Bad values are refused with a clear error and leave the old value.
    for (name, value, message) in [
        (&rate, "0", "must be in the range (0.000000, 1.000000)"),
        (&rate, "1", "must be in the range (0.000000, 1.000000)"),
        (&rate, "x", "Invalid value for `bf-error-rate`"),
        (&size, "0", "must be in the range [1, 1073741824]"),
        (&size, "1073741825", "must be in the range [1, 1073741824]"),
        (&expansion, "-1", "must be in the range [0, 32768]"),
    ] {
        let reply = c.call(&["CONFIG", "SET", name, value]);
        assert!(
            reply.is_error() && reply.text().contains(message),
            "{name} {value}: {reply:?}"
        );
    }
    assert_eq!(get(&mut c, &rate), "0.05");
    assert_eq!(get(&mut c, &size), "500");
    assert_eq!(get(&mut c, &expansion), "4");
    // Above 0.25 is stored as 0.25, as RedisBloom does.
    assert_eq!(c.call(&["CONFIG", "SET", &rate, "0.5"]), ok());
    assert_eq!(get(&mut c, &rate), "0.25");
}

#[test]
fn default_layout() {
    let server = Server::with_setting("bf-layout", "fast");
    let mut c = server.conn();
    c.cmd("BF.ADD auto x");
    assert_eq!(c.cmd("TYPE auto"), simple("bfblocked"));
    if !feature::module_configs() {
        return;
    }
    let layout = config_name(&mut c, "bf-layout");
    assert_eq!(c.call(&["CONFIG", "SET", &layout, "CLASSIC"]), ok());
    c.cmd("BF.ADD later x");
    assert_eq!(c.cmd("TYPE later"), simple("MBbloom--"));
    let reply = c.call(&["CONFIG", "SET", &layout, "slow"]);
    assert!(
        reply.is_error() && reply.text().contains("must be classic or fast"),
        "{reply:?}"
    );
}

#[test]
fn config_directive_at_startup() {
    if !feature::module_configs() {
        return;
    }
    let probe = Server::start();
    let name = config_name(&mut probe.conn(), "bf-initial-size");
    drop(probe);
    let server = Server::with(Module::RedisBf)
        .arg(&format!("--{name} 300"))
        .start();
    let mut c = server.conn();
    assert_eq!(
        auto_created(&mut c)[1].text(),
        "bytes:416 bits:3328 hashes:8 hashwidth:64 capacity:300 size:1 ratio:0.005"
    );
}

/// redis.conf.example spells the settings `bf.bf-…`, as Redis 7 and Valkey require; Redis 8
/// takes that spelling too (an alias of RedisBloom's unprefixed names).
#[test]
fn example_config_starts_a_working_server() {
    if !feature::module_configs() {
        return; // Its bf.bf-* lines are config directives: Redis ≥ 7.0.
    }
    // The example loads the module from a path relative to the repository, where `make run`
    // starts; the harness runs servers in their own directory, so that one line is made absolute.
    let example = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("redis.conf.example"),
    )
    .unwrap();
    let relative = "loadmodule ./target/release/libredis_bf.so";
    assert!(example.contains(relative));
    let conf = std::env::temp_dir().join(format!("redis-bf-example-{}.conf", std::process::id()));
    std::fs::write(
        &conf,
        example.replace(relative, &format!("loadmodule {}", module_path().display())),
    )
    .unwrap();
    let server = Server::with(Module::None).config_file(&conf).start();
    let mut c = server.conn();
    assert_eq!(c.cmd("BF.ADD k v"), int(1));
    assert_eq!(c.cmd("BF.EXISTS k v"), int(1));
}

/// A config file of its own for one test, holding `lines` after the module's loadmodule line.
fn config_file(lines: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "redis-bf-{}-{}.conf",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let text = format!("loadmodule {}\n{lines}\n", module_path().display());
    std::fs::write(&path, text).unwrap();
    path
}

/// CONFIG GET of one name, in either protocol's shape.
fn get_config(c: &mut Conn, name: &str) -> String {
    match c.call(&["CONFIG", "GET", name]) {
        Value::Array(items) if items.len() == 2 => items[1].text(),
        Value::Map(pairs) if pairs.len() == 1 => pairs[0].1.text(),
        other => panic!("CONFIG GET {name}: {other:?}"),
    }
}

/// A config file written for RedisBloom 8 on Redis 8 — its unprefixed `bf-*` and `cf-*` lines
/// — starts redis-bf in RedisBloom's place; both spellings then answer CONFIG GET and SET.
#[test]
fn redisbloom_8_config_file_starts() {
    if server_is_valkey() || !server_at_least((8, 0, 0)) {
        return; // Unprefixed module configs are Redis 8's (where RedisBloom 8 runs).
    }
    let conf = config_file(
        "bf-error-rate 0.02\nbf-initial-size 200\nbf-expansion-factor 4\ncf-max-iterations 30\n",
    );
    let server = Server::with(Module::None).config_file(&conf).start();
    let mut c = server.conn();
    assert_eq!(
        auto_created(&mut c)[1].text(),
        "bytes:240 bits:1920 hashes:7 hashwidth:64 capacity:200 size:1 ratio:0.01"
    );
    assert_eq!(c.cmd("BF.INFO auto EXPANSION"), ints(&[4]));
    c.cmd("CF.ADD cuckoo x");
    assert!(c
        .cmd("CF.DEBUG cuckoo")
        .text()
        .contains("max_iterations:30"));
    assert_eq!(get_config(&mut c, "bf.cf-max-iterations"), "30");
    assert_eq!(get_config(&mut c, "bf-error-rate"), "0.02");
    assert_eq!(get_config(&mut c, "bf.bf-error-rate"), "0.02");
    assert_eq!(c.cmd("CONFIG SET bf.bf-initial-size 300"), ok());
    assert_eq!(get_config(&mut c, "bf-initial-size"), "300");
    assert_eq!(c.cmd("CONFIG SET bf-initial-size 400"), ok());
    assert_eq!(get_config(&mut c, "bf.bf-initial-size"), "400");
}

const OVER_LIMIT: &str = "ERR operation exceeds bloom object memory limit";

/// `bf-memory-usage-limit` refuses, before allocating anything, a filter that would hold more
/// than it allows: created by BF.RESERVE, BF.INSERT, BF.ADD or a BF.LOADCHUNK header, or
/// growing by a new sub-filter. As a module argument it works on every server.
#[test]
fn memory_limit_refuses_filters_that_would_exceed_it() {
    let limit = 64 * 1024;
    let server = Server::with_setting("bf-memory-usage-limit", "64kb");
    let mut c = server.conn();
    for line in [
        "BF.RESERVE big 0.01 100000",
        "BF.RESERVE big 0.01 100000 NONSCALING",
        "BF.INSERT big CAPACITY 100000 ITEMS a",
    ] {
        assert_eq!(c.cmd(line), err(OVER_LIMIT), "{line}");
        assert_eq!(c.cmd("EXISTS big"), int(0), "{line}");
    }
    assert_eq!(c.cmd("BF.RESERVE fits 0.01 10000"), ok());
    // Cuckoo filters too, with their own wording.
    assert_eq!(
        c.cmd("CF.RESERVE big 1000000"),
        err("ERR operation exceeds cuckoo object memory limit")
    );
    assert_eq!(c.cmd("EXISTS big"), int(0));

    // A scaling filter grows until its next sub-filter would cross the limit.
    assert_eq!(c.cmd("BF.RESERVE grows 0.01 1000 EXPANSION 2"), ok());
    let mut added = 0;
    let refused = loop {
        assert!(added < 200_000, "the filter never reached the limit");
        let batch: Vec<String> = (added..added + 500).map(|i| format!("item{i}")).collect();
        let mut args = vec!["BF.MADD", "grows"];
        args.extend(batch.iter().map(String::as_str));
        let replies = c.call(&args).array();
        if let Some(error) = replies.iter().find(|r| r.is_error()) {
            break error.clone();
        }
        added += 500;
    };
    assert_eq!(refused, err(OVER_LIMIT));
    assert!(
        c.cmd("BF.INFO grows FILTERS").array()[0].int() >= 3,
        "it grew first"
    );
    let size = c.cmd("BF.INFO grows SIZE").array()[0].int();
    assert!(size <= limit, "{size} bytes");
    assert_eq!(c.cmd("BF.EXISTS grows item0"), int(1));
    assert_eq!(
        c.call(&["BF.EXISTS", "grows", &format!("item{}", added - 1)]),
        int(1)
    );
    assert_eq!(c.cmd("BF.ADD grows another"), err(OVER_LIMIT));

    // A BF.LOADCHUNK header describing a filter over the limit, from a server without one.
    let unlimited = Server::start();
    let mut u = unlimited.conn();
    u.cmd("BF.RESERVE big 0.01 100000");
    let chunks = bf::scandump(&mut u, "big");
    let (iterator, header) = &chunks[0];
    assert_eq!(
        bf::loadchunk(&mut c, "big", *iterator, header),
        err(OVER_LIMIT)
    );
    assert_eq!(c.cmd("EXISTS big"), int(0));

    // Filters created by BF.ADD with the configured defaults.
    let defaults = Server::with(Module::RedisBf)
        .setting("bf-memory-usage-limit", "1mb")
        .setting("bf-initial-size", "1000000")
        .start();
    let mut d = defaults.conn();
    assert_eq!(d.cmd("BF.ADD auto x"), err(OVER_LIMIT));
    assert_eq!(d.cmd("BF.MADD auto x y"), err(OVER_LIMIT));
    assert_eq!(d.cmd("EXISTS auto"), int(0));
}

/// The limit is a config like the others (Redis ≥ 7.0): memory units, 0 for none, bad values
/// refused. It binds clients' commands only: what the AOF replays is applied as it was.
#[test]
fn memory_limit_config_and_what_it_spares() {
    let server = Server::with_aof();
    let mut c = server.conn();
    assert_eq!(c.cmd("BF.RESERVE big 0.01 100000"), ok());
    c.cmd("BF.MADD big a b c");
    if feature::module_configs() {
        let name = config_name(&mut c, "bf-memory-usage-limit");
        assert_eq!(get_config(&mut c, &name), "0", "no limit by default");
        assert_eq!(c.call(&["CONFIG", "SET", &name, "64KB"]), ok());
        assert_eq!(get_config(&mut c, &name), "65536");
        assert_eq!(c.cmd("BF.RESERVE other 0.01 100000"), err(OVER_LIMIT));
        for bad in ["-1", "abc", "1.5mb", "1tb", "64 kb"] {
            let reply = c.call(&["CONFIG", "SET", &name, bad]);
            assert!(
                reply.is_error() && reply.text().contains("must be a size in bytes"),
                "{bad}: {reply:?}"
            );
        }
        assert_eq!(get_config(&mut c, &name), "65536");
        // A filter over the limit stays usable while it does not grow, and reloads.
        assert_eq!(c.cmd("BF.ADD big d"), int(1));
        assert_eq!(c.cmd("DEBUG RELOAD"), ok());
        assert_eq!(c.cmd("BF.CARD big"), int(4));
        assert_eq!(c.call(&["CONFIG", "SET", &name, "0"]), ok());
        assert_eq!(c.cmd("BF.RESERVE other 0.01 100000"), ok());
    }
    // Restarted with a limit, the server replays the AOF's writes in full.
    let dir = server.shutdown();
    let limited = Server::with(Module::RedisBf)
        .setting("bf-memory-usage-limit", "64kb")
        .arg("--appendonly yes")
        .dir(&dir)
        .start();
    let mut l = limited.conn();
    assert_eq!(l.cmd("BF.EXISTS big a"), int(1));
    assert_eq!(l.cmd("BF.INFO big CAPACITY"), ints(&[100000]));
    assert_eq!(l.cmd("BF.RESERVE again 0.01 100000"), err(OVER_LIMIT));
}

#[test]
fn cuckoo_configs_shape_new_filters() {
    if !feature::module_configs() {
        return; // No module configs before Redis 7.0.
    }
    let (_server, mut c) = Server::start_with_conn();
    let names: Vec<String> = [
        "cf-bucket-size",
        "cf-initial-size",
        "cf-max-iterations",
        "cf-expansion-factor",
        "cf-max-expansions",
    ]
    .iter()
    .map(|n| config_name(&mut c, n))
    .collect();
    let defaults: Vec<String> = names.iter().map(|n| get_config(&mut c, n)).collect();
    assert_eq!(defaults, ["2", "1024", "20", "1", "32"]);
    c.cmd("CF.ADD before x");
    // RedisBloom's test_config_set.
    for (name, value) in names.iter().zip(["3", "2048", "30", "2", "64"]) {
        assert_eq!(c.call(&["CONFIG", "SET", name, value]), ok(), "{name}");
        assert_eq!(get_config(&mut c, name), value);
    }
    c.cmd("CF.ADD auto x");
    assert_eq!(
        c.cmd("CF.DEBUG auto"),
        bulk(b"bktsize:3 buckets:1024 items:1 deletes:0 filters:1 max_iterations:30 expansion:2")
    );
    assert_eq!(
        c.cmd("CF.RESERVE r 100"),
        ok(),
        "RESERVE takes its option defaults from them too"
    );
    assert_eq!(
        c.cmd("CF.DEBUG r"),
        bulk(b"bktsize:3 buckets:64 items:0 deletes:0 filters:1 max_iterations:30 expansion:2")
    );
    assert_eq!(
        c.cmd("CF.DEBUG before"),
        bulk(b"bktsize:2 buckets:512 items:1 deletes:0 filters:1 max_iterations:20 expansion:1"),
        "existing filters keep their shape"
    );
    // RedisBloom's test_config_set_invalid; the old value stays.
    for (name, value) in [
        (&names[0], "0"),
        (&names[0], "256"),
        (&names[1], "0"),
        (&names[1], "4294967296"),
        (&names[2], "0"),
        (&names[2], "65536"),
        (&names[3], "-1"),
        (&names[3], "32769"),
        (&names[4], "0"),
        (&names[4], "65537"),
    ] {
        let reply = c.call(&["CONFIG", "SET", name, value]);
        assert!(
            reply.is_error() && reply.text().contains("must be in the range"),
            "{name} {value}: {reply:?}"
        );
    }
    let reply = c.call(&["CONFIG", "SET", &names[2], "many"]);
    assert!(
        reply
            .text()
            .contains("Invalid value for `cf-max-iterations`"),
        "{reply:?}"
    );
    assert_eq!(get_config(&mut c, &names[2]), "30");
}

#[test]
fn cuckoo_ranges_are_coupled() {
    if !feature::module_configs() {
        return; // No module configs before Redis 7.0.
    }
    let (_server, mut c) = Server::start_with_conn();
    let bucket = config_name(&mut c, "cf-bucket-size");
    let initial = config_name(&mut c, "cf-initial-size");
    let set = |c: &mut Conn, name: &str, value: &str| c.call(&["CONFIG", "SET", name, value]);
    // cf-bucket-size raises the least cf-initial-size (and CF.INSERT CAPACITY) to twice it.
    assert_eq!(set(&mut c, &bucket, "3"), ok());
    let reply = set(&mut c, &initial, "5");
    assert!(
        reply
            .text()
            .contains("Value for `cf-initial-size` must be in the range [6, 1073741824]"),
        "{reply:?}"
    );
    assert_eq!(
        c.cmd("CF.INSERT x CAPACITY 5 ITEMS a"),
        err("Capacity must be in the range [cf-bucket-size * 2, 1073741824]")
    );
    assert_eq!(c.cmd("CF.INSERT x CAPACITY 6 ITEMS a"), ints(&[1]));
    // cf-initial-size lowers the largest cf-bucket-size, BUCKETSIZE and header bucket size.
    assert_eq!(set(&mut c, &initial, "100"), ok());
    let reply = set(&mut c, &bucket, "51");
    assert!(
        reply
            .text()
            .contains("Value for `cf-bucket-size` must be in the range [1, 50]"),
        "{reply:?}"
    );
    assert_eq!(
        c.cmd("CF.RESERVE r 1000 BUCKETSIZE 51"),
        err("BUCKETSIZE: value must be in the range [1, 50]")
    );
    assert_eq!(c.cmd("CF.RESERVE r 1000 BUCKETSIZE 50"), ok());
    c.cmd("CF.ADD r x");
    let header = c.cmd("CF.SCANDUMP r 0").array()[1].bulk();
    c.cmd("DEL r");
    assert_eq!(c.call_bytes(&[b"CF.LOADCHUNK", b"r", b"1", &header]), ok());
    assert_eq!(set(&mut c, &initial, "98"), ok());
    c.cmd("DEL r");
    assert_eq!(
        c.call_bytes(&[b"CF.LOADCHUNK", b"r", b"1", &header]),
        err("Couldn't create filter!"),
        "a header of 50-slot buckets while at most 49 are allowed"
    );
    // The values themselves stay as they were set.
    assert_eq!(get_config(&mut c, &bucket), "3");
}

#[test]
fn cuckoo_module_arguments() {
    for (name, log) in [("cf-max-expansions", false), ("CF_MAX_EXPANSIONS", true)] {
        let server = Server::with(Module::RedisBf).setting(name, "3").start();
        let mut c = server.conn();
        if feature::module_configs() {
            let config = config_name(&mut c, "cf-max-expansions");
            assert_eq!(get_config(&mut c, &config), "3");
        }
        c.cmd("CF.RESERVE cf 4");
        let mut reply = ok();
        for i in 0..100 {
            reply = c.call(&["CF.ADD", "cf", &i.to_string()]);
            if reply.is_error() {
                break;
            }
        }
        assert_eq!(reply, err("Maximum expansions reached"));
        assert!(c.cmd("CF.DEBUG cf").text().contains("filters:3"));
        assert_eq!(server.log().contains("deprecated"), log, "{name}");
    }
    // The other cf-* configs are module arguments here too.
    let server = Server::with(Module::RedisBf)
        .setting("cf-bucket-size", "4")
        .setting("CF-MAX-ITERATIONS", "9")
        .start();
    let mut c = server.conn();
    c.cmd("CF.ADD auto x");
    assert_eq!(
        c.cmd("CF.DEBUG auto"),
        bulk(b"bktsize:4 buckets:256 items:1 deletes:0 filters:1 max_iterations:9 expansion:1")
    );
    for (args, message) in [
        (vec!["CF_MAX_EXPANSIONS", "0"], "cf-max-expansions"),
        (vec!["cf-max-expansions", "abc"], "cf-max-expansions"),
        (vec!["cf-max-expansions", "65537"], "cf-max-expansions"),
        (vec!["cf-bucket-size", "300"], "cf-bucket-size"),
    ] {
        assert_load_refused(&args, message);
    }
}

#[test]
fn cuckoo_config_directive_at_startup_and_legacy_rdb_values() {
    // Before Redis 7.0 module arguments are the only way to set it.
    let server = if feature::module_configs() {
        let probe = Server::start();
        let name = config_name(&mut probe.conn(), "cf-max-iterations");
        drop(probe);
        Server::with(Module::RedisBf)
            .arg(&format!("--{name} 7"))
            .start()
    } else {
        Server::with_setting("cf-max-iterations", "7")
    };
    let mut c = server.conn();
    c.cmd("CF.ADD auto x");
    assert!(c.cmd("CF.DEBUG auto").text().contains("max_iterations:7"));
    // A value saved by RedisBloom before 2.2 (encoding version 3) takes the configs for what
    // it lacks, as RedisBloom 8 does.
    c.cmd("CF.RESERVE t 4");
    let template = c.cmd("DUMP t").bulk();
    let mut body = template[..10].to_vec();
    body[9] = 3;
    body.extend_from_slice(&[2, 1, 2, 2, 2, 1, 5, 4, 0, 9, 0, 0, 0]);
    body.extend_from_slice(&template[template.len() - 10..template.len() - 8]);
    let crc = crc64(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    assert_eq!(c.call_bytes(&[b"RESTORE", b"old", b"0", &body]), ok());
    assert_eq!(
        c.cmd("CF.DEBUG old"),
        bulk(b"bktsize:2 buckets:2 items:1 deletes:0 filters:1 max_iterations:7 expansion:1")
    );
}
