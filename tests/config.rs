//! The bf-* and cf-* configs: module arguments (RedisBloom's names and the new ones), CONFIG
//! SET/GET with validation (the coupled CF ranges included), and refusal of bad load
//! arguments. They shape only new filters, except the CF limits.

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
        .module_arg("ERROR_RATE")
        .module_arg("0.02")
        .module_arg("INITIAL_SIZE")
        .module_arg("200")
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
        .module_arg("bf-error-rate")
        .module_arg("0.001")
        .module_arg("BF-INITIAL-SIZE")
        .module_arg("1000")
        .module_arg("bf-expansion-factor")
        .module_arg("0")
        .module_arg("CF_MAX_EXPANSIONS")
        .module_arg("32")
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
        let mut builder = Server::with(Module::RedisBf);
        for arg in &args {
            builder = builder.module_arg(arg);
        }
        let log = match builder.try_start() {
            Ok(_) => panic!("{args:?} loaded"),
            Err(log) => log,
        };
        assert!(log.contains(message), "{args:?}: {log}");
    }
}

#[test]
fn config_set_and_get() {
    let server = Server::start();
    let mut c = server.conn();
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
    let server = Server::with(Module::RedisBf)
        .module_arg("bf-layout")
        .module_arg("fast")
        .start();
    let mut c = server.conn();
    c.cmd("BF.ADD auto x");
    assert_eq!(c.cmd("TYPE auto"), simple("bfblocked"));
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

#[test]
fn example_config_starts_a_working_server() {
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

/// The value of a config, whatever the protocol's shape of CONFIG GET.
fn config_get(c: &mut Conn, name: &str) -> String {
    match c.call(&["CONFIG", "GET", name]) {
        Value::Array(items) => items[1].text(),
        Value::Map(pairs) => pairs[0].1.text(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn cuckoo_configs_shape_new_filters() {
    let server = Server::start();
    let mut c = server.conn();
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
    let defaults: Vec<String> = names.iter().map(|n| config_get(&mut c, n)).collect();
    assert_eq!(defaults, ["2", "1024", "20", "1", "32"]);
    c.cmd("CF.ADD before x");
    // RedisBloom's test_config_set.
    for (name, value) in names.iter().zip(["3", "2048", "30", "2", "64"]) {
        assert_eq!(c.call(&["CONFIG", "SET", name, value]), ok(), "{name}");
        assert_eq!(config_get(&mut c, name), value);
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
    assert_eq!(config_get(&mut c, &names[2]), "30");
}

#[test]
fn cuckoo_ranges_are_coupled() {
    let server = Server::start();
    let mut c = server.conn();
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
    assert_eq!(config_get(&mut c, &bucket), "3");
}

#[test]
fn cuckoo_module_arguments() {
    for (name, log) in [("cf-max-expansions", false), ("CF_MAX_EXPANSIONS", true)] {
        let server = Server::with(Module::RedisBf)
            .module_arg(name)
            .module_arg("3")
            .start();
        let mut c = server.conn();
        let config = config_name(&mut c, "cf-max-expansions");
        assert_eq!(config_get(&mut c, &config), "3");
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
        .module_arg("cf-bucket-size")
        .module_arg("4")
        .module_arg("CF-MAX-ITERATIONS")
        .module_arg("9")
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
        let mut builder = Server::with(Module::RedisBf);
        for arg in &args {
            builder = builder.module_arg(arg);
        }
        let log = match builder.try_start() {
            Ok(_) => panic!("{args:?} loaded"),
            Err(log) => log,
        };
        assert!(log.contains(message), "{args:?}: {log}");
    }
}

#[test]
fn cuckoo_config_directive_at_startup_and_legacy_rdb_values() {
    let probe = Server::start();
    let name = config_name(&mut probe.conn(), "cf-max-iterations");
    drop(probe);
    let server = Server::with(Module::RedisBf)
        .arg(&format!("--{name} 7"))
        .start();
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
