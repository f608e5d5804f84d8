//! Test harness: a real server with the module loaded (`server`), a client that keeps every
//! RESP distinction (`resp`), the server features tests depend on (`feature`), differential
//! tests against RedisBloom (`diff`), COMMAND DOCS read as RedisBloom's flow tests read it
//! (`docs`), the persistence checks every family shares (`persist`) and every value that forgets
//! (`forgetting`), a random stream of every
//! family's writes (`mixed`), and helpers per family (`bf`, `cf`, `cms`, `topk`, `tdigest`,
//! and `valkey_bloom` for valkey-bloom's filters).
//!
//! Environment: `BF_TEST_SERVER` picks the server binary for the module under test
//! (default `redis-server`; set it to a `valkey-server` to run the suite there, or to a
//! launcher `scripts/fetch-servers.sh` prints, as `make test-matrix` does);
//! `REDISBLOOM_SO` points at RedisBloom's module for the differential tests
//! (`scripts/fetch-anchors.sh` fetches it; `make test` does so); `VALKEY_BLOOM_SO` and
//! `VALKEY_SERVER` point at a build of valkey-bloom and a valkey-server, for its differential
//! tests, which are skipped without them.

#![allow(dead_code)] // each test binary uses a different part of the harness

pub mod bf;
pub mod cf;
pub mod cluster;
pub mod cms;
mod diff;
mod docs;
pub mod feature;
pub mod forgetting;
pub mod mixed;
pub mod persist;
mod resp;
mod server;
pub mod tdigest;
pub mod topk;
pub mod valkey_bloom;

// Only the differential suites use it.
#[allow(unused_imports)]
pub use diff::*;
// Only the command suites use it.
#[allow(unused_imports)]
pub use docs::*;
pub use resp::*;
pub use server::*;

use std::time::{Duration, Instant};

/// What the server answers a command on a key of another type.
pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";

/// Polls `f` until it returns true (replication, background rewrites).
pub fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until `replica` is linked to `master` and has applied all it has sent.
pub fn wait_in_sync(master: &mut Conn, replica: &mut Conn) {
    wait_for("the replica link", || {
        info_field(replica, "replication", "master_link_status") == "up"
    });
    wait_for("the replica to catch up", || {
        let offset = info_field(master, "replication", "master_repl_offset");
        info_field(replica, "replication", "slave_repl_offset") == offset
    });
}

/// Whether the command `line`, sent by another client, touches `key` as WATCH sees it (a
/// write does, a read must not), with its reply.
pub fn touches_key(server: &Server, key: &str, line: &str) -> (bool, Value) {
    let mut c = server.conn();
    c.cmd(&format!("WATCH {key}"));
    let reply = server.conn().cmd(line);
    c.cmd("MULTI");
    c.cmd("PING");
    let exec = c.cmd("EXEC");
    if exec != Value::Nil {
        assert_eq!(exec, Value::Array(vec![simple("PONG")]), "{line}");
    }
    (exec == Value::Nil, reply)
}

/// Rewrites the AOF and waits until the rewrite, and any one it scheduled, is done.
pub fn rewrite_aof(c: &mut Conn) {
    assert!(!c.cmd("BGREWRITEAOF").is_error());
    wait_for("the AOF rewrite", || {
        info_field(c, "persistence", "aof_rewrite_in_progress") == "0"
            && info_field(c, "persistence", "aof_rewrite_scheduled") == "0"
    });
}

/// The keyspace events the command `lines` raise, in order, and their replies; `None` where
/// module types' events cannot be had (`Server::with_keyspace_events`).
pub fn keyspace_events_of(lines: &[&str]) -> Option<(Vec<String>, Vec<Value>)> {
    let server = Server::with_keyspace_events()?;
    let mut c = server.conn();
    let mut psub = server.conn();
    psub.cmd("PSUBSCRIBE __keyspace@0__:*");
    let replies = lines.iter().map(|line| c.cmd(line)).collect();
    // Marks the end: the events before it are the lines'.
    c.cmd("SET keyspace-events-of-end 1");
    let mut events = Vec::new();
    loop {
        match psub.read().array()[3].text().as_str() {
            "set" => return Some((events, replies)),
            event => events.push(event.to_string()),
        }
    }
}

/// Each line of `table` answered with its reply, none of them changing the `DUMP` of any of
/// `keys`; then, where the server has module configs, `over_limit` refused with `limit_error`
/// once `bf-memory-usage-limit` is 1 KiB, changing nothing either (the merges' refusals).
pub fn refusals_change_nothing(
    c: &mut Conn,
    keys: &[&str],
    table: &[(&str, Value)],
    (over_limit, limit_error): (&str, &str),
) {
    let snapshot =
        |c: &mut Conn| -> Vec<Value> { keys.iter().map(|k| c.call(&["DUMP", k])).collect() };
    let before = snapshot(c);
    for (line, reply) in table {
        assert_eq!(&c.cmd(line), reply, "{line}");
        assert_eq!(snapshot(c), before, "{line} changed something");
    }
    if !feature::module_configs() {
        return;
    }
    let limit = config_name(c, "bf-memory-usage-limit");
    assert_eq!(c.call(&["CONFIG", "SET", &limit, "1kb"]), ok());
    assert_eq!(c.cmd(over_limit), err(limit_error));
    assert_eq!(c.call(&["CONFIG", "SET", &limit, "0"]), ok());
    assert_eq!(snapshot(c), before, "{over_limit} changed something");
}

/// Sends `command key <prefix><i>` for each `i` below `count`, replies unread: how tests fill
/// (or empty) a filter with distinct items.
pub fn send_numbered(c: &mut Conn, command: &str, key: &str, prefix: &str, count: usize) {
    for i in 0..count {
        c.call(&[command, key, &format!("{prefix}{i}")]);
    }
}

/// The value of `field` in `INFO <section>`.
pub fn info_field(conn: &mut Conn, section: &str, field: &str) -> String {
    let info = conn.call(&["INFO", section]).text();
    info.lines()
        .find_map(|l| {
            l.strip_prefix(&format!("{field}:"))
                .map(|v| v.trim().to_string())
        })
        .unwrap_or_default()
}

/// The full name of one of our configs on this server (`bf.bf-error-rate` where the server
/// prefixes module configs, `bf-error-rate` where it does not).
pub fn config_name(conn: &mut Conn, name: &str) -> String {
    let reply = conn.call(&["CONFIG", "GET", &format!("*{name}")]);
    let found = match &reply {
        Value::Map(pairs) => pairs.first().map(|(k, _)| k.text()),
        Value::Array(items) => items.first().map(Value::text),
        _ => None,
    };
    found.unwrap_or_else(|| panic!("config {name} not found: {reply:?}"))
}

/// A deterministic pseudo-random generator (xorshift), so failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A family's own ACL category (`bloom`, `cuckoo`, `cms`, `topk`, `tdigest`), where the server
/// lets modules add categories (Redis ≥ 7.4, Valkey): `ACL CAT` lists it; where the server lists
/// a category's module commands, it holds exactly the family's (the module's commands named
/// `<prefix>…`); and a user granted it alone may run `allowed` and not `refused` (another
/// family's command). Whether the server has module categories.
pub fn family_acl_category(
    server: &Server,
    category: &str,
    prefix: &str,
    allowed: &str,
    refused: &str,
) -> bool {
    let mut c = server.conn();
    let has_categories = server_at_least((7, 4, 0));
    let categories = c.cmd("ACL CAT").array();
    let listed = categories.contains(&bulk(category.as_bytes()));
    assert_eq!(listed, has_categories, "{category} in {categories:?}");
    if !has_categories {
        return false;
    }
    if feature::acl_cat_lists_module_commands() {
        let module = c.cmd("COMMAND LIST FILTERBY MODULE bf").sorted_texts();
        let family: Vec<&String> = module.iter().filter(|n| n.starts_with(prefix)).collect();
        let commands = c.call(&["ACL", "CAT", category]).sorted_texts();
        assert_eq!(
            commands.iter().collect::<Vec<_>>(),
            family,
            "ACL CAT {category}"
        );
    }
    let user = format!("{category}-only");
    let grant = format!("+@{category}");
    let line = ["ACL", "SETUSER", &user, "on", ">pw", "~*", &grant];
    assert_eq!(c.call(&line), ok());
    let mut granted = server.conn();
    assert_eq!(granted.call(&["AUTH", &user, "pw"]), ok());
    let denied = |reply: &Value| matches!(reply, Value::Error(e) if e.starts_with("NOPERM"));
    let reply = granted.cmd(allowed);
    assert!(!denied(&reply), "{allowed} under +@{category}: {reply:?}");
    let reply = granted.cmd(refused);
    assert!(denied(&reply), "{refused} under +@{category}: {reply:?}");
    true
}

/// Redis's CRC-64 (Jones polynomial, reflected), which seals DUMP payloads. The tests are the
/// server's clients and link none of the module's code, so the payloads they forge are sealed
/// independently of the module's own CRC (`core::dump`), and the server's `RESTORE` checks them.
pub fn crc64(data: &[u8]) -> u64 {
    const POLY: u64 = 0x95ac_9329_ac4b_c9b5;
    let mut crc = 0u64;
    for &byte in data {
        crc ^= u64::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ POLY
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// An RDB length, as Redis encodes it, for the DUMP payloads tests build by hand.
pub fn rdb_len(n: u64) -> Vec<u8> {
    match n {
        0..=63 => vec![n as u8],
        64..=16383 => vec![0x40 | (n >> 8) as u8, n as u8],
        16384..=0xffff_ffff => [&[0x80][..], &(n as u32).to_be_bytes()].concat(),
        _ => [&[0x81][..], &n.to_be_bytes()].concat(),
    }
}

/// A module value's unsigned field as `RedisModule_SaveUnsigned` writes it.
pub fn rdb_unsigned(n: u64) -> Vec<u8> {
    [vec![2], rdb_len(n)].concat()
}

/// A module value's buffer field as `RedisModule_SaveStringBuffer` writes it.
pub fn rdb_buffer(data: &[u8]) -> Vec<u8> {
    [vec![5], rdb_len(data.len() as u64), data.to_vec()].concat()
}

/// Sends each command of `table` on `c` and checks its reply. One command a line, written
/// `COMMAND ARGS -> REPLY`, the reply as redis-cli shows a simple one: `OK`, `(integer) N`,
/// `(error) TEXT`, `(wrongtype)` (the server's WRONGTYPE error), `(arity)` (the server's
/// wrong-arity error for the command as typed). Blank lines and `#` comments are skipped.
pub fn expect_replies(c: &mut Conn, table: &str) {
    for line in table.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (command, reply) = line
            .rsplit_once(" -> ")
            .unwrap_or_else(|| panic!("no ` -> ` in {line:?}"));
        let expected = match reply {
            "OK" => ok(),
            "(wrongtype)" => err(WRONGTYPE),
            "(arity)" => arity_error(command),
            _ => match (
                reply.strip_prefix("(error) "),
                reply.strip_prefix("(integer) "),
            ) {
                (Some(text), _) => err(text),
                (_, Some(n)) => int(n.parse().unwrap_or_else(|_| panic!("{line:?}"))),
                _ => panic!("unknown reply in {line:?}"),
            },
        };
        assert_eq!(c.cmd(command), expected, "{command}");
    }
}

/// Every (iterator, chunk) pair `<family>.SCANDUMP` gives for `key` (`family` is `BF` or `CF`),
/// and the second element of its last reply (`None` for a missing key); no pair for a missing
/// key or a filter without data.
pub fn scandump_of(c: &mut Conn, family: &str, key: &str) -> (Vec<(i64, Vec<u8>)>, Option<Value>) {
    let command = format!("{family}.SCANDUMP");
    let mut out = Vec::new();
    let mut iter = 0i64;
    loop {
        let reply = c.call(&[&command, key, &iter.to_string()]);
        if reply.is_error() {
            return (out, None);
        }
        let parts = reply.array();
        let next = parts[0].int();
        if next == 0 {
            return (out, Some(parts[1].clone()));
        }
        out.push((next, parts[1].bulk()));
        iter = next;
    }
}

/// Replays SCANDUMP pairs with `<family>.LOADCHUNK`, as a client restoring a filter does.
pub fn loadchunks_of(c: &mut Conn, family: &str, key: &str, chunks: &[(i64, Vec<u8>)]) {
    let command = format!("{family}.LOADCHUNK");
    for (iter, data) in chunks {
        let reply = c.call_bytes(&[
            command.as_bytes(),
            key.as_bytes(),
            iter.to_string().as_bytes(),
            data,
        ]);
        assert_eq!(reply, ok(), "{command} {key} {iter}");
    }
}
