//! Real client libraries against a real server, in RESP2 and RESP3: redis-py's `r.bf()`,
//! `r.cf()` and `r.tdigest()` APIs (tests/clients/redis_py.py) and its `r.cms()` and `r.topk()`
//! ones (tests/clients/redis_py_sketches.py); node-redis's `client.bf`, `client.cf`,
//! `client.cms`, `client.topK` and `client.tDigest`, every command of each
//! (tests/clients/node_redis.cjs). `make test` installs redis-py into target/python and
//! node-redis into target/node, where the scripts look by default; `PYTHONPATH` and `NODE_PATH`
//! (a `node_modules` directory), where set, say where else they are installed.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

/// A client library the scripts drive: what runs them, and where they find the library.
struct Client {
    name: &'static str,
    interpreter: &'static str,
    /// The variable that tells the interpreter where libraries are.
    path_var: &'static str,
    /// Where `make test` installs the library, in the repository.
    installed: &'static str,
}

const REDIS_PY: Client = Client {
    name: "redis-py",
    interpreter: "python3",
    path_var: "PYTHONPATH",
    installed: "target/python",
};

const NODE_REDIS: Client = Client {
    name: "node-redis",
    interpreter: "node",
    path_var: "NODE_PATH",
    installed: "target/node/node_modules",
};

#[test]
fn redis_py_bloom_and_cuckoo_apis() {
    run_script(&REDIS_PY, "redis_py.py");
}

#[test]
fn redis_py_count_min_and_top_k_apis() {
    run_script(&REDIS_PY, "redis_py_sketches.py");
}

#[test]
fn node_redis_apis() {
    run_script(&NODE_REDIS, "node_redis.cjs");
}

/// Runs tests/clients/`name` with `client`'s interpreter against a fresh server.
fn run_script(client: &Client, name: &str) {
    let server = Server::start();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("tests/clients").join(name);
    // Before Redis 7.0 modules have no map reply: RESP3 clients get BF.INFO as a flat array
    // (from RedisBloom too), which the script then expects.
    let maps = if feature::module_resp3() {
        "maps"
    } else {
        "flat"
    };
    let mut command = Command::new(client.interpreter);
    command.arg(&script).arg(server.port.to_string()).arg(maps);
    if std::env::var_os(client.path_var).is_none() {
        command.env(client.path_var, root.join(client.installed));
    }
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{} is needed for the client tests: {e}", client.interpreter));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{} check failed (is {} installed? `make test` installs it):\n{stderr}\n{}",
        client.name,
        client.name,
        server.log()
    );
}
