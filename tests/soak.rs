//! The replica soak: a redis-bf master with a redis-bf replica and a RedisBloom replica takes
//! a million mixed writes of both filter families — adds that make filters scale, Cuckoo
//! deletes and compactions, whole-key deletes, TTLs that fire during the run — and then all
//! three hold the same values: every key's `DEBUG DIGEST-VALUE` equal between the redis-bf
//! servers and every key's DUMP payload equal on all three (RedisBloom registers no digest
//! callback, and equal DUMP bytes are the stronger claim: the same encoding of the same
//! state). A second RedisBloom replica attached after the writes loads the master's RDB.
//! Then every server rewrites its AOF (the redis-bf replica without the RDB preamble, so its
//! own AOF rewrite callback is what is replayed) and restarts, and all of it holds again.
//!
//! A second soak sends a million writes of every family — the sketches, the t-digest and the
//! filters that forget among them, whose time and decay RedisBloom has no way to follow — to a
//! redis-bf primary with a redis-bf replica: the replica and the primary restarted from its AOF
//! as the commands wrote it hold the primary's values, digest for digest; the replica restarted
//! from its own AOF rewrite saves every key as the primary does (its t-digests hold their merged
//! centroids instead of a buffer, docs/tdigest.md).
//!
//! All servers are Debian's redis-server, where RedisBloom 2.8.2 loads. `SOAK_WRITES`
//! overrides the number of writes of each soak (default one million).
// matrix: no — it needs RedisBloom's replicas, and runs long.

mod common;

use std::collections::BTreeMap;

use common::mixed::{self, Clock};
use common::*;

const KEYS_PER_FAMILY: u64 = 24;
const PIPELINE: usize = 1000;

fn writes() -> usize {
    std::env::var("SOAK_WRITES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000)
}

/// One write. Bloom items come from a large space, so filters keep filling and scaling;
/// Cuckoo items from a small pool per key, so deletes find what was added, counts go above
/// one, and some filters fill up and expand.
fn random_write(rng: &mut Rng) -> Vec<String> {
    let bf = format!("bf{}", rng.below(KEYS_PER_FAMILY));
    let cf = format!("cf{}", rng.below(KEYS_PER_FAMILY));
    let bf_item = |rng: &mut Rng| format!("u{}", rng.below(1 << 40));
    let cf_item = |rng: &mut Rng| format!("c{}", rng.below(3000));
    // Weights per thousand writes. Keys are deleted or expire rarely enough that a filter
    // lives for tens of thousands of writes, long enough to scale several times.
    let mut cmd: Vec<String> = match rng.below(1000) {
        0..=299 => vec!["BF.ADD".into(), bf, bf_item(rng)],
        300..=379 => {
            let mut c = vec!["BF.MADD".into(), bf];
            c.extend((0..5).map(|_| bf_item(rng)));
            c
        }
        // Creates small, fast-scaling filters where the key is missing.
        380..=399 => [
            "BF.INSERT",
            &bf,
            "CAPACITY",
            "50",
            "ERROR",
            "0.001",
            "EXPANSION",
            "2",
            "ITEMS",
        ]
        .map(String::from)
        .into(),
        400..=689 => vec!["CF.ADD".into(), cf, cf_item(rng)],
        690..=739 => vec!["CF.ADDNX".into(), cf, cf_item(rng)],
        // Small Cuckoo filters, which fill and expand.
        740..=759 => ["CF.RESERVE", &cf, "200", "EXPANSION", "2"]
            .map(String::from)
            .into(),
        760..=779 => ["CF.INSERT", &cf, "CAPACITY", "300", "ITEMS"]
            .map(String::from)
            .into(),
        780..=789 => ["CF.INSERTNX", &cf, "ITEMS"].map(String::from).into(),
        790..=989 => vec!["CF.DEL".into(), cf, cf_item(rng)],
        990..=994 => vec!["CF.COMPACT".into(), cf],
        995 => {
            let key = if rng.below(2) == 0 { bf } else { cf };
            vec!["DEL".into(), key]
        }
        // A TTL that fires during the run (the master propagates the DEL) or one that does
        // not (the replicas keep the same absolute expire time).
        _ => {
            let key = if rng.below(2) == 0 { bf } else { cf };
            let ms = if rng.below(4) == 0 {
                100 + rng.below(1400)
            } else {
                3_600_000
            };
            vec!["PEXPIRE".into(), key, ms.to_string()]
        }
    };
    if cmd.last().is_some_and(|a| a == "ITEMS") {
        let items = 1 + rng.below(4);
        for _ in 0..items {
            let item = if cmd[0].starts_with("BF") {
                bf_item(rng)
            } else {
                cf_item(rng)
            };
            cmd.push(item);
        }
    }
    cmd
}

fn replica_of(master: &Server, module: Module, options: &[&str]) -> Server {
    let mut builder = Server::with(module).binary("redis-server");
    for option in options {
        builder = builder.arg(option);
    }
    let replica = builder.start();
    // Attached by command, not by option, so that a restart later reads the replica's own
    // AOF instead of resynchronising from the master.
    let attached = replica
        .conn()
        .call(&["REPLICAOF", "127.0.0.1", &master.port.to_string()]);
    assert_eq!(attached, ok());
    replica
}

/// Every key with its DUMP payload, its absolute expire time, and (where the server has a
/// digest for it) its DEBUG DIGEST-VALUE.
fn snapshot(c: &mut Conn, digests: bool) -> BTreeMap<String, (Vec<u8>, i64, Option<Value>)> {
    let mut keys: Vec<String> = c.cmd("KEYS *").array().iter().map(Value::text).collect();
    keys.sort();
    keys.into_iter()
        .map(|key| {
            let dump = c.call(&["DUMP", &key]).bulk();
            let expires = c.call(&["PEXPIRETIME", &key]).int();
            let digest = digests.then(|| c.call(&["DEBUG", "DIGEST-VALUE", &key]));
            (key, (dump, expires, digest))
        })
        .collect()
}

fn assert_same(what: &str, ours: &mut Conn, replica: &mut Conn, redisbloom: &mut [&mut Conn]) {
    let master = snapshot(ours, true);
    assert!(
        master.len() > KEYS_PER_FAMILY as usize,
        "{what}: too few keys survived ({})",
        master.len()
    );
    assert_eq!(
        master,
        snapshot(replica, true),
        "{what}: the redis-bf replica differs"
    );
    let without_digests: BTreeMap<_, _> = master
        .iter()
        .map(|(k, (dump, expires, _))| (k.clone(), (dump.clone(), *expires, None)))
        .collect();
    for (n, theirs) in redisbloom.iter_mut().enumerate() {
        assert!(
            without_digests == snapshot(theirs, false),
            "{what}: RedisBloom replica {n} differs"
        );
    }
}

/// The run did what it is for: Bloom filters that scaled, Cuckoo filters that expanded and
/// hold deletes.
fn assert_exercised(c: &mut Conn) {
    let keys: Vec<String> = c.cmd("KEYS *").array().iter().map(Value::text).collect();
    let most_bloom_filters = keys
        .iter()
        .filter(|k| k.starts_with("bf"))
        .map(|k| c.call(&["BF.INFO", k, "FILTERS"]).array()[0].int())
        .max();
    assert!(most_bloom_filters > Some(3), "{most_bloom_filters:?}");
    let cuckoo_field = |c: &mut Conn, key: &str, name: &str| {
        let info = c.call(&["CF.INFO", key]).array();
        let at = info.iter().position(|v| v.text() == name).unwrap();
        info[at + 1].int()
    };
    let cuckoo: Vec<&String> = keys.iter().filter(|k| k.starts_with("cf")).collect();
    assert!(cuckoo
        .iter()
        .any(|k| cuckoo_field(c, k, "Number of filters") > 1));
    assert!(cuckoo
        .iter()
        .any(|k| cuckoo_field(c, k, "Number of items deleted") > 0));
}

#[test]
fn a_million_writes_leave_every_replica_identical() {
    let master = Server::with(Module::RedisBf)
        .binary("redis-server")
        .arg("--appendonly yes")
        .start();
    let replica = replica_of(
        &master,
        Module::RedisBf,
        &["--appendonly yes", "--aof-use-rdb-preamble no"],
    );
    let redisbloom = replica_of(&master, Module::RedisBloom, &["--appendonly yes"]);
    let mut m = master.conn();
    let (mut r, mut b) = (replica.conn(), redisbloom.conn());
    wait_in_sync(&mut m, &mut r);
    wait_in_sync(&mut m, &mut b);

    let mut rng = Rng(0x5eed_50a6);
    let mut left = writes();
    let mut errors = 0usize;
    const EXPECTED_ERRORS: &[&str] = &[
        "Filter is full",
        "Not found",
        "Cuckoo filter was not found",
        "ERR item exists",
    ];
    while left > 0 {
        let batch: Vec<Vec<String>> = (0..left.min(PIPELINE))
            .map(|_| random_write(&mut rng))
            .collect();
        for cmd in &batch {
            let args: Vec<&[u8]> = cmd.iter().map(|a| a.as_bytes()).collect();
            m.send(&args);
        }
        for cmd in &batch {
            match m.read() {
                // A Cuckoo filter whose expansions are used up refuses the add; CF.DEL and
                // CF.COMPACT refuse a missing key, CF.RESERVE an existing one.
                Value::Error(e) if EXPECTED_ERRORS.contains(&e.as_str()) => errors += 1,
                Value::Error(e) => panic!("{cmd:?}: {e}"),
                _ => {}
            }
        }
        left -= batch.len();
    }

    // Let every short TTL fire, then touch every name the stream writes so the master expires
    // and propagates what the active expiry cycle has not reached yet (KEYS skips an expired
    // key without deleting it).
    std::thread::sleep(std::time::Duration::from_millis(1600));
    for family in ["bf", "cf"] {
        for n in 0..KEYS_PER_FAMILY {
            m.call(&["EXISTS", &format!("{family}{n}")]);
        }
    }
    wait_in_sync(&mut m, &mut r);
    wait_in_sync(&mut m, &mut b);
    // A RedisBloom replica that gets everything by full sync: our RDB, loaded by RedisBloom.
    let late = replica_of(&master, Module::RedisBloom, &[]);
    let mut l = late.conn();
    wait_in_sync(&mut m, &mut l);
    assert_same("after the writes", &mut m, &mut r, &mut [&mut b, &mut l]);
    assert_exercised(&mut m);
    drop(l);
    drop(late);
    eprintln!("soak: {} writes, {errors} refused", writes());

    // Each server on its own: rewrite the AOF, restart from it.
    for c in [&mut r, &mut b] {
        assert_eq!(c.cmd("REPLICAOF NO ONE"), ok());
    }
    for c in [&mut m, &mut r, &mut b] {
        rewrite_aof(c);
    }
    let (master, replica, redisbloom) = (master.restart(), replica.restart(), redisbloom.restart());
    let (mut m, mut r, mut b) = (master.conn(), replica.conn(), redisbloom.conn());
    assert_same(
        "after AOF rewrite and restart",
        &mut m,
        &mut r,
        &mut [&mut b],
    );
}

#[test]
fn every_family_leaves_the_replica_and_the_aof_identical() {
    // No automatic rewrite: the AOF replayed at the end is the commands as written.
    let primary = Server::with(Module::RedisBf)
        .binary("redis-server")
        .arg("--appendonly yes --aof-use-rdb-preamble no --auto-aof-rewrite-percentage 0")
        .start();
    let replica = replica_of(
        &primary,
        Module::RedisBf,
        &["--appendonly yes", "--aof-use-rdb-preamble no"],
    );
    let (mut p, mut r) = (primary.conn(), replica.conn());
    wait_in_sync(&mut p, &mut r);
    let refused = mixed::Stream::new(0x50a6_f00d, Clock::Read).send(&mut p, writes());
    // The stream's short TTLs are under 1.5 s: let them fire, and touch every name the stream
    // writes so the primary expires and propagates what the active expiry cycle has not reached
    // yet (KEYS skips an expired key without deleting it).
    std::thread::sleep(std::time::Duration::from_millis(1600));
    for key in mixed::all_keys() {
        p.call(&["EXISTS", &key]);
    }
    wait_in_sync(&mut p, &mut r);
    let before = mixed::snapshot(&mut p);
    for family in ["bf", "win", "tw", "cf", "cms", "topk", "td"] {
        let held = before.1.keys().filter(|k| k.starts_with(family)).count();
        assert!(held > 0, "no {family} key survived the stream");
    }
    mixed::assert_same("the replica", &mixed::snapshot(&mut r), &before);
    eprintln!(
        "soak: {} writes of every family, {refused} refused",
        writes()
    );

    // The primary's AOF, never rewritten: the commands as it replicated them, replayed.
    drop(p);
    let primary = primary.restart();
    let replayed = mixed::snapshot(&mut primary.conn());
    mixed::assert_same("the primary's AOF replayed", &replayed, &before);
    // The replica on its own, from its own AOF rewrite (no preamble: every family's rewrite).
    assert_eq!(r.cmd("REPLICAOF NO ONE"), ok());
    rewrite_aof(&mut r);
    drop(r);
    let replica = replica.restart();
    let rewritten = mixed::snapshot(&mut replica.conn());
    mixed::assert_same(
        "the replica's AOF rewrite replayed",
        &mixed::saved(&rewritten),
        &mixed::saved(&before),
    );
}
