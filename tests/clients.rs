//! Real client libraries against a real server: redis-py's `r.bf()` and `r.cf()` APIs
//! (tests/clients/redis_py.py), and its `r.cms()` and `r.topk()` ones
//! (tests/clients/redis_py_sketches.py), in RESP2 and RESP3. `make test` installs redis-py into
//! target/python; elsewhere set `PYTHONPATH` to where it is installed.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

#[test]
fn redis_py_bloom_and_cuckoo_apis() {
    run_script("redis_py.py");
}

#[test]
fn redis_py_count_min_and_top_k_apis() {
    run_script("redis_py_sketches.py");
}

/// Runs tests/clients/`name` against a fresh server.
fn run_script(name: &str) {
    let server = Server::start();
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/clients")
        .join(name);
    // Before Redis 7.0 modules have no map reply: RESP3 clients get BF.INFO as a flat array
    // (from RedisBloom too), which the script then expects.
    let maps = if feature::module_resp3() {
        "maps"
    } else {
        "flat"
    };
    let output = Command::new("python3")
        .arg(&script)
        .arg(server.port.to_string())
        .arg(maps)
        .output()
        .expect("python3 is needed for the client tests");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "redis-py check failed (is redis-py installed? `make test` installs it):\n{stderr}\n{}",
        server.log()
    );
}
