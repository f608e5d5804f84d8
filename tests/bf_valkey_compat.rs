//! Differential tests of valkey-bloom's filters against valkey-bloom itself (a build of
//! valkey-io/valkey-bloom 1.0 named by `VALKEY_BLOOM_SO`, on the valkey-server `VALKEY_SERVER`
//! names; without both the tests say so and stop): the same random BF.* streams give the same
//! replies in RESP2 and RESP3 and the same DUMP payloads; filters move between the two by
//! DUMP/RESTORE, RDB files and AOF files, both ways; and each can be the other's replica.
//! Both run with `bf.bloom-use-random-seed no`, so that a filter made without `SEED` has the
//! fixed seed on both, and redis-bf with `bf-flavour valkey-bloom`, so that BF.ADD, BF.MADD,
//! BF.RESERVE and BF.INSERT on an empty key make valkey-bloom's filters. The one difference is `DEBUG DIGEST-VALUE`, which each module
//! computes its own way.
// matrix: no — it needs valkey-bloom, built for one valkey-server.

mod common;

use common::*;

/// A valkey-server of `module`, or `None` (and a note) where the anchors are not there.
fn valkey(module: Module) -> Option<ServerBuilder> {
    let server = std::env::var("VALKEY_SERVER").ok();
    let (Some(server), Some(_)) = (server, valkey_bloom_path()) else {
        eprintln!("skipped: set VALKEY_BLOOM_SO and VALKEY_SERVER to compare with valkey-bloom");
        return None;
    };
    // Uncompressed, so that DUMP payloads compare byte for byte.
    let builder = Server::with(module.clone())
        .binary(&server)
        .arg("--rdbcompression no");
    Some(match module {
        Module::ValkeyBloom => builder.arg("--bf.bloom-use-random-seed no"),
        _ => builder
            .setting("bf-flavour", "valkey-bloom")
            .setting("bloom-use-random-seed", "no"),
    })
}

fn pair() -> Option<(Server, Server)> {
    Some((
        valkey(Module::RedisBf)?.start(),
        valkey(Module::ValkeyBloom)?.start(),
    ))
}

const KEYS: [&str; 3] = ["a", "b", "c"];

/// One random BF command on filters both made alike, a deletion, or a creation (by any
/// command that creates, under the flavour).
fn random_command(rng: &mut Rng) -> Vec<Vec<u8>> {
    // Now and then the string key `s`: every command's wrong-type reply.
    let key = match rng.below(40) {
        0 => b"s".to_vec(),
        _ => KEYS[rng.below(3) as usize].as_bytes().to_vec(),
    };
    let item = |rng: &mut Rng| format!("i{}", rng.below(400)).into_bytes();
    let mut cmd: Vec<Vec<u8>> = Vec::new();
    let words = |cmd: &mut Vec<Vec<u8>>, words: &[&str]| {
        cmd.extend(words.iter().map(|w| w.as_bytes().to_vec()))
    };
    match rng.below(100) {
        // One item: BF.ADD or BF.EXISTS.
        n @ (0..30 | 60..70) => {
            words(&mut cmd, &[if n < 30 { "BF.ADD" } else { "BF.EXISTS" }]);
            cmd.push(key);
            cmd.push(item(rng));
        }
        // Several: BF.MADD or BF.MEXISTS.
        n @ 30..60 => {
            words(&mut cmd, &[if n < 45 { "BF.MADD" } else { "BF.MEXISTS" }]);
            cmd.push(key);
            (0..1 + rng.below(6)).for_each(|_| cmd.push(item(rng)));
        }
        70..80 => {
            words(&mut cmd, &["BF.INSERT"]);
            cmd.push(key);
            if rng.below(3) == 0 {
                words(&mut cmd, &["CAPACITY", "7", "NOCREATE"]);
            }
            words(&mut cmd, &["ITEMS"]);
            (0..1 + rng.below(4)).for_each(|_| cmd.push(item(rng)));
        }
        80..88 => {
            let field = [
                "",
                "CAPACITY",
                "SIZE",
                "FILTERS",
                "ITEMS",
                "EXPANSION",
                "ERROR",
            ];
            let field = field[rng.below(field.len() as u64) as usize];
            words(&mut cmd, &["BF.INFO"]);
            cmd.push(key);
            if !field.is_empty() {
                words(&mut cmd, &[field]);
            }
        }
        88..92 => {
            words(&mut cmd, &["BF.CARD"]);
            cmd.push(key);
        }
        92..96 => {
            words(&mut cmd, &["BF.RESERVE"]);
            cmd.push(key);
            let rate = pick(rng, &["0.01", "0.1", "1", "x", "1e-3"]);
            let capacity = pick(rng, &["10", "3", "0", "-1"]);
            words(&mut cmd, &[rate, capacity]);
            match rng.below(6) {
                0 => words(&mut cmd, &["NONSCALING"]),
                1 => words(&mut cmd, &["EXPANSION", pick(rng, &["1", "4", "0", "y"])]),
                2 => words(&mut cmd, &["EXPANSION"]),
                3 => words(&mut cmd, &["NONSCALING", "EXPANSION", "2"]),
                _ => {}
            }
        }
        96..98 => {
            words(&mut cmd, &["DEL"]);
            cmd.push(key);
        }
        _ => words(&mut cmd, &["BF.LOAD", "a", "x"]),
    }
    cmd
}

/// One of `from`, at random.
fn pick(rng: &mut Rng, from: &[&'static str]) -> &'static str {
    from[rng.below(from.len() as u64) as usize]
}

/// The three filters of a stream (scaling quickly, tightened, non-scaling) and a string key.
fn create(c: &mut Conn) {
    c.cmd("SET s x");
    let seed: &[u8] = &valkey_bloom::FIXED_SEED;
    c.call_bytes(&[b"BF.INSERT", b"a", b"CAPACITY", b"20", b"SEED", seed]);
    c.cmd("BF.INSERT b CAPACITY 50 ERROR 0.05 TIGHTENING 0.7 EXPANSION 3");
    c.cmd("BF.INSERT c CAPACITY 150 NONSCALING TIGHTENING 0.5");
}

#[test]
fn random_command_streams_reply_and_store_identically() {
    let Some((ours, theirs)) = pair() else {
        return;
    };
    for seed in 1..=6u64 {
        let (mut a, mut b, context) = conns_for_seed(&ours, &theirs, seed);
        for c in [&mut a, &mut b] {
            c.cmd("FLUSHALL");
            create(c);
        }
        let mut rng = Rng(seed * 0x9e37_79b9_7f4a_7c15);
        for _ in 0..1500 {
            let cmd = random_command(&mut rng);
            both(&mut a, &mut b, &cmd, &context, &[]);
        }
        for key in KEYS {
            for cmd in [vec!["DUMP", key], vec!["TYPE", key], vec!["BF.INFO", key]] {
                assert_eq!(a.call(&cmd), b.call(&cmd), "{context}: {cmd:?}");
            }
        }
    }
}

/// What a filter answers, but its size: valkey-bloom's `BF.LOAD` (its AOF rewrite) counts the
/// vector of sub-filters as long as they are, not as it had grown, so the size a filter
/// reports there changes by an AOF rewrite (redis-bf's does not).
fn answers_but_size(c: &mut Conn, key: &str) -> Vec<Value> {
    let mut answers = valkey_bloom::answers(c, key);
    if let Value::Array(info) = &mut answers[0] {
        info[3] = Value::Nil;
    }
    answers
}

/// `key` moved from `from` to `to` by DUMP and RESTORE: restored, answering alike, and dumping
/// the same bytes again.
fn restores_alike(from: &mut Conn, to: &mut Conn, key: &str) {
    let payload = from.call(&["DUMP", key]).bulk();
    assert_eq!(
        to.call_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload]),
        ok()
    );
    assert_eq!(
        valkey_bloom::answers(to, key),
        valkey_bloom::answers(from, key)
    );
    assert_eq!(
        to.call(&["DUMP", key]).bulk(),
        payload,
        "{key}: the same bytes"
    );
}

const FILTERS: Fixture = Fixture {
    build: valkey_bloom::build,
    answers: answers_but_size,
};

#[test]
fn filters_move_both_ways_by_dump_and_restore() {
    let Some((ours, theirs)) = pair() else {
        return;
    };
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    both_ways(&mut a, &mut b, |from, to| {
        for key in valkey_bloom::build(from) {
            restores_alike(from, to, key);
        }
    });
}

#[test]
fn rdb_and_aof_files_move_both_ways() {
    for how in ["rdb", "aof"] {
        let (Some(ours), Some(theirs)) = (valkey(Module::RedisBf), valkey(Module::ValkeyBloom))
        else {
            return;
        };
        FILTERS.files_move_between(theirs, ours, how);
        let (Some(ours), Some(theirs)) = (valkey(Module::RedisBf), valkey(Module::ValkeyBloom))
        else {
            return;
        };
        FILTERS.files_move_between(ours, theirs, how);
    }
}

/// A primary of one module and a replica of the other: after a full synchronisation and a
/// stream of writes (creations included), the replica holds the same bytes.
fn replica_of_the_other_holds_the_same_bytes(primary: Module, replica: Module) {
    let ours_primary = matches!(primary, Module::RedisBf);
    let (Some(primary), Some(replica)) = (valkey(primary), valkey(replica)) else {
        return;
    };
    let primary = primary.start();
    let mut p = primary.conn();
    let keys = valkey_bloom::build(&mut p);
    let replica = replica.replica_of(&primary).start();
    let mut r = replica.conn();
    wait_in_sync(&mut p, &mut r);
    create(&mut p);
    let mut rng = Rng(0x5eed);
    let stream = (0..2000).map(|_| random_command(&mut rng));
    // valkey-bloom replicates BF.LOAD as a BF.INSERT of the payload as an item (its replicas
    // diverge too); redis-bf replicates it as it came.
    let load = [
        b"BF.LOAD".to_vec(),
        b"loaded".to_vec(),
        valkey_bloom::golden_payload(),
    ];
    let (loads, loaded) = if ours_primary {
        (vec![load.to_vec()], &["loaded"][..])
    } else {
        (vec![], &[][..])
    };
    let all = keys
        .iter()
        .chain(&KEYS)
        .chain(loaded)
        .map(|k| k.to_string());
    replica_holds_the_same_bytes(&mut p, &mut r, stream.chain(loads), all);
}

#[test]
fn replicas_of_either_module_hold_the_same_bytes() {
    replica_of_the_other_holds_the_same_bytes(Module::ValkeyBloom, Module::RedisBf);
    replica_of_the_other_holds_the_same_bytes(Module::RedisBf, Module::ValkeyBloom);
}

/// A union of valkey-bloom filters (`BF.MERGE`, ours) keeps valkey-bloom's format: valkey-bloom
/// restores it, answers as we do, and dumps the same bytes.
#[test]
fn merged_filters_load_into_valkey_bloom() {
    let Some((ours, theirs)) = pair() else {
        return;
    };
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    for (key, prefix, count) in [("s1", "a", 250), ("s2", "a", 60), ("s3", "b", 40)] {
        assert_eq!(a.call(&["BF.RESERVE", key, "0.01", "100"]), ok());
        for i in 0..count {
            a.call(&["BF.ADD", key, &format!("{prefix}{i}")]);
        }
    }
    // A scaled filter with one holding its first items; two filters of one sub-filter each.
    assert_eq!(a.cmd("BF.MERGE scaled 2 s2 s1"), ok());
    assert_eq!(a.cmd("BF.MERGE small 2 s2 s3"), ok());
    for key in ["scaled", "small"] {
        restores_alike(&mut a, &mut b, key);
    }
}
