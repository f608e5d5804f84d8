//! Real client libraries against a real server: redis-py's `r.bf()`, `r.cf()` and `r.tdigest()` APIs, in
//! RESP2 and RESP3 (tests/clients/redis_py.py). `make test` installs redis-py into
//! target/python; elsewhere set `PYTHONPATH` to where it is installed.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

#[test]
fn redis_py_bloom_and_cuckoo_apis() {
    let server = Server::start();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/redis_py.py");
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
