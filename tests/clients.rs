//! Real client libraries against a real server, in RESP2 and RESP3: redis-py's `r.bf()`,
//! `r.cf()` and `r.tdigest()` APIs (tests/clients/redis_py.py) and its `r.cms()` and `r.topk()`
//! ones (tests/clients/redis_py_sketches.py); node-redis's `client.bf`, `client.cf`,
//! `client.cms`, `client.topK` and `client.tDigest`, every command of each
//! (tests/clients/node_redis.cjs); both libraries' cluster clients on a real cluster
//! (tests/clients/redis_py_cluster.py, tests/clients/node_redis_cluster.cjs); and redis-py's
//! own tests of these modules. `make test`
//! installs redis-py into target/python, node-redis into target/node and redis-py's tests with
//! pytest into target/redis-py-suite, where the tests look by default; `PYTHONPATH`,
//! `NODE_PATH` (a `node_modules` directory) and `REDIS_PY_SUITE`, where set, say where else
//! they are installed.

mod common;

use std::path::{Path, PathBuf};
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

/// redis-py's cluster client (`RedisCluster`) drives every family on a cluster of three
/// primaries, in RESP2 and (where modules send RESP3) RESP3.
#[test]
fn redis_py_cluster_client() {
    let protocols = if feature::module_resp3() { "2,3" } else { "2" };
    run_on_cluster(&REDIS_PY, "redis_py_cluster.py", &[protocols]);
}

/// node-redis's cluster client (`createCluster`) drives every family on a cluster of three
/// primaries.
#[test]
fn node_redis_cluster_client() {
    run_on_cluster(&NODE_REDIS, "node_redis_cluster.cjs", &[]);
}

/// Tests of redis-py's `tests/test_bloom.py` (the release the Makefile's `REDIS_PY_VERSION`
/// names, 8.1.0): every one, those it gates on a `bf` module of version 2.4 or later included
/// (`MODULE LIST` shows RedisBloom's version, 2.8.2).
const REDIS_PY_SUITE_TESTS: usize = 25;

/// redis-py's own tests of these modules, `tests/test_bloom.py` of its source release (every
/// family through `r.bf()`, `r.cf()`, `r.cms()`, `r.topk()` and `r.tdigest()`), run with
/// pytest as redis-py's CI runs them against RedisBloom: in RESP2, and in RESP3 where modules
/// can send maps (before Redis 7.0 no module's `BF.INFO` is the map its RESP3 checks expect).
/// They must all pass, and none may be skipped.
#[test]
fn redis_py_own_module_suite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = std::env::var_os("REDIS_PY_SUITE")
        .map_or_else(|| root.join("target/redis-py-suite"), PathBuf::from);
    let source = suite.join("source");
    assert!(
        source.join("tests/test_bloom.py").is_file(),
        "redis-py's tests are not in {} (`make test` installs them)",
        suite.display()
    );
    // pytest, then redis-py's installation for what it needs on this Python (`async-timeout`
    // before 3.11.3).
    let python_path = std::env::join_paths([suite.join("site"), library_path(&REDIS_PY)]).unwrap();
    let server = Server::start();
    let url = format!("redis://127.0.0.1:{}", server.port);
    let protocols: &[&str] = if feature::module_resp3() {
        &["2", "3"]
    } else {
        &["2"]
    };
    for protocol in protocols {
        // From the release's root: its conftest imports `tests.*`, and the `redis` package
        // beside it is the release the tests were written for.
        let output = Command::new(REDIS_PY.interpreter)
            .current_dir(&source)
            .args([
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "-W",
                "ignore",
            ])
            .arg("tests/test_bloom.py")
            .arg(format!("--redis-url={url}"))
            .arg(format!("--redis-mod-url={url}"))
            .arg(format!("--protocol={protocol}"))
            .env("PYTHONPATH", &python_path)
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "{} is needed for redis-py's tests: {e}",
                    REDIS_PY.interpreter
                )
            });
        let stdout = String::from_utf8_lossy(&output.stdout);
        let passed = stdout
            .lines()
            .rev()
            .find_map(|line| {
                let words: Vec<&str> = line.split_whitespace().collect();
                let at = words
                    .iter()
                    .position(|w| w.trim_end_matches(',') == "passed")?;
                words.get(at.checked_sub(1)?)?.parse::<usize>().ok()
            })
            .unwrap_or(0);
        let skipped = stdout
            .lines()
            .rev()
            .find(|line| line.contains(" passed"))
            .is_some_and(|line| line.contains("skipped"));
        assert!(
            output.status.success() && passed == REDIS_PY_SUITE_TESTS && !skipped,
            "redis-py's tests/test_bloom.py in RESP{protocol}: {passed} passed, \
             {REDIS_PY_SUITE_TESTS} expected:\n{stdout}\n{}\n{}",
            String::from_utf8_lossy(&output.stderr),
            server.log()
        );
    }
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
    command.env(client.path_var, library_path(client));
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

/// Runs tests/clients/`name` with `client`'s interpreter against a fresh cluster of three
/// primaries, given a node's port and then `args`.
fn run_on_cluster(client: &Client, name: &str, args: &[&str]) {
    let cluster = common::cluster::Cluster::start(3, 0);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(client.interpreter)
        .arg(root.join("tests/clients").join(name))
        .arg(cluster.nodes[0].port.to_string())
        .args(args)
        .env(client.path_var, library_path(client))
        .output()
        .unwrap_or_else(|e| panic!("{} is needed for the client tests: {e}", client.interpreter));
    assert!(
        output.status.success(),
        "{} cluster check failed:\n{}{}",
        client.name,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Where `client`'s library is: its variable's value where set, else where `make test` puts it.
fn library_path(client: &Client) -> PathBuf {
    std::env::var_os(client.path_var).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(client.installed),
        PathBuf::from,
    )
}
