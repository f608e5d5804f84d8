//! Differential tests of the Count-Min sketch against RedisBloom's own module (`redisbloom.so`
//! 2.8.2, fetched by scripts/fetch-anchors.sh), with redis-bf writing the encoding RedisBloom
//! before 8.12 reads (`cms-rdb-encoding 0`): the same random CMS.* streams give the same
//! replies in RESP2 and RESP3 and leave the same DUMP payloads; sketches move between the two
//! by DUMP/RESTORE, RDB files and AOF files, both ways; and each can be the other's replica.
//! The streams keep to what Redis 8.12 left as 2.8 had it: no negative increments, no counter
//! past 4294967295 (8.12 refuses such an increment, 2.8 saturated). CMS.INFO has 8.12's
//! fourth pair, `cell_size`, compared here without it; MEMORY USAGE is 8.12's
//! `40 + 4 × width × depth`, where RedisBloom 2.8.2 counts `8 + 8 × width × depth` (a bug).
//!
//! Both servers are Debian's redis-server (RedisBloom 2.8.2 loads into 7.0), whatever server
//! the rest of the suite runs on.
// matrix: no — it needs RedisBloom, which loads only into the redis-server it was built for.

mod common;

use common::*;

const KEYS: u64 = 5;

/// One random CMS command over a few keys of a few shapes (so merges find both equal and
/// unequal dimensions), a small item pool, saturating increments, and a key of another type.
/// Sizes stay small: RedisBloom 2.8.2 on Redis 7.0 would abort on an allocation it cannot have.
fn random_command(rng: &mut Rng) -> Vec<Vec<u8>> {
    let pick =
        |rng: &mut Rng, from: &[&str]| from[rng.below(from.len() as u64) as usize].to_string();
    let key = |rng: &mut Rng| match rng.below(30) {
        0 => "str".to_string(),
        1 => "missing".to_string(),
        _ => format!("k{}", rng.below(KEYS)),
    };
    let item = |rng: &mut Rng| -> Vec<u8> {
        match rng.below(30) {
            0 => Vec::new(),
            1 => vec![0, 255, b'\n'],
            _ => format!("item{}", rng.below(50)).into_bytes(),
        }
    };
    let amount = |rng: &mut Rng| match rng.below(40) {
        0 => pick(rng, &["x", "1.5", "01", "+1"]),
        1..=3 => "0".to_string(),
        _ => rng.below(1000).to_string(),
    };
    let mut cmd: Vec<Vec<u8>> = Vec::new();
    let push = |cmd: &mut Vec<Vec<u8>>, s: &str| cmd.push(s.as_bytes().to_vec());
    match rng.below(100) {
        0..=7 => {
            push(&mut cmd, "CMS.INITBYDIM");
            push(&mut cmd, &key(rng));
            push(
                &mut cmd,
                &pick(rng, &["10", "10", "16", "1", "0", "x", "-3", "200"]),
            );
            push(&mut cmd, &pick(rng, &["3", "3", "4", "1", "0", "y", "-1"]));
        }
        8..=11 => {
            push(&mut cmd, "CMS.INITBYPROB");
            push(&mut cmd, &key(rng));
            push(
                &mut cmd,
                &pick(rng, &["0.2", "0.125", "0.01", "0", "1", "x", "0.3"]),
            );
            push(
                &mut cmd,
                &pick(
                    rng,
                    &["0.125", "0.25", "0.01", "0", "1", "0.9999999999", "y"],
                ),
            );
        }
        12..=54 => {
            push(&mut cmd, "CMS.INCRBY");
            push(&mut cmd, &key(rng));
            for _ in 0..1 + rng.below(6) {
                cmd.push(item(rng));
                push(&mut cmd, &amount(rng));
            }
            if rng.below(30) == 0 {
                cmd.pop(); // an odd count: arity
            }
        }
        55..=79 => {
            push(&mut cmd, "CMS.QUERY");
            push(&mut cmd, &key(rng));
            for _ in 0..1 + rng.below(8) {
                cmd.push(item(rng));
            }
        }
        80..=93 => {
            push(&mut cmd, "CMS.MERGE");
            push(&mut cmd, &key(rng));
            let sources = 1 + rng.below(3);
            push(
                &mut cmd,
                &match rng.below(20) {
                    0 => pick(rng, &["0", "-1", "x", "5"]),
                    _ => sources.to_string(),
                },
            );
            for _ in 0..sources {
                push(&mut cmd, &key(rng));
            }
            if rng.below(2) == 0 {
                push(&mut cmd, pick(rng, &["WEIGHTS", "weights"]).as_str());
                for _ in 0..sources + u64::from(rng.below(15) == 0) {
                    push(
                        &mut cmd,
                        &pick(rng, &["1", "2", "3", "0", "-1", "x", "1000000", "1.5"]),
                    );
                }
            }
        }
        94..=98 => {
            push(&mut cmd, "CMS.INFO");
            push(&mut cmd, &key(rng));
        }
        _ => {
            push(&mut cmd, "DEL");
            push(&mut cmd, &key(rng));
        }
    }
    cmd
}

/// A reply as RedisBloom before 8.12 gives it: CMS.INFO without its last pair, `cell_size`,
/// which is 4 in every sketch these tests make.
fn as_before_8_12(reply: Value) -> Value {
    let cell_size = |pairs: &[Value]| matches!(pairs, [name, size] if name.text() == "cell_size" && *size == int(4));
    match reply {
        Value::Array(mut items) if items.len() == 8 && cell_size(&items[6..]) => {
            items.truncate(6);
            Value::Array(items)
        }
        Value::Map(mut pairs)
            if pairs.len() == 4 && cell_size(&[pairs[3].0.clone(), pairs[3].1.clone()]) =>
        {
            pairs.truncate(3);
            Value::Map(pairs)
        }
        other => other,
    }
}

/// What a sketch answers, as RedisBloom before 8.12 answers.
fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    cms::answers(c, key)
        .into_iter()
        .map(as_before_8_12)
        .collect()
}

#[test]
fn random_command_streams_reply_and_store_identically() {
    let (ours, theirs) = start_pair();
    let (mut compared, mut errors, mut arrays) = (0, 0, 0);
    for seed in 1..=12u64 {
        let (mut a, mut b, context) = conns_for_stream(&ours, &theirs, seed);
        let mut rng = Rng(seed * 0x9e37_79b9_7f4a_7c15);
        for c in [&mut a, &mut b] {
            for k in 0..KEYS {
                c.call(&["CMS.INITBYDIM", &format!("k{k}"), "10", "3"]);
            }
        }
        for _ in 0..700 {
            let cmd = random_command(&mut rng);
            if cmd[0] == b"CMS.INFO" {
                let args: Vec<&[u8]> = cmd.iter().map(Vec::as_slice).collect();
                let ours = as_before_8_12(a.call_bytes(&args));
                assert_eq!(ours, b.call_bytes(&args), "{context}: {cmd:?}");
                compared += 1;
                continue;
            }
            let (reply, _) = both(&mut a, &mut b, &cmd, &context, &[]);
            compared += 1;
            errors += usize::from(reply.is_error());
            arrays += usize::from(matches!(reply, Value::Array(_)));
        }
        for k in (0..KEYS).map(|k| format!("k{k}")) {
            for cmd in [vec!["DUMP", &k], vec!["TYPE", &k], vec!["CMS.INFO", &k]] {
                assert_eq!(
                    as_before_8_12(a.call(&cmd)),
                    b.call(&cmd),
                    "{context}: {cmd:?}"
                );
            }
        }
    }
    // Creating keys that exist and merging sketches of other shapes fail often, by design.
    assert!(
        errors < compared / 2 && arrays > compared / 3,
        "{errors} errors and {arrays} arrays of {compared}: the streams must mostly succeed"
    );
}

#[test]
fn the_same_commands_build_the_same_bytes() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    let keys = cms::build(&mut a);
    cms::build(&mut b);
    for key in keys {
        assert_eq!(a.call(&["DUMP", key]), b.call(&["DUMP", key]), "{key}");
        assert_eq!(answers(&mut a, key), answers(&mut b, key), "{key}");
    }
}

/// The server's share of MEMORY USAGE for a key: what it counts beyond the module's figure.
fn memory_share(c: &mut Conn, key: &str, module_bytes: i64) -> i64 {
    c.call(&["MEMORY", "USAGE", key]).int() - module_bytes
}

#[test]
fn sketches_move_both_ways_by_dump_and_restore() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    both_ways(&mut a, &mut b, |from, to| {
        for key in cms::build(from) {
            let payload = from.call(&["DUMP", key]).bulk();
            assert_eq!(
                to.call_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload]),
                ok()
            );
            assert_eq!(answers(to, key), answers(from, key), "{key}");
            assert_eq!(
                to.call(&["DUMP", key]).bulk(),
                payload,
                "{key}: the same RDB bytes"
            );
        }
    });
    // MEMORY USAGE: RedisBloom 2.8.2's `8 + 8wd`, ours RedisBloom 8.12's `40 + 4wd`, beside
    // the same share for the key.
    for c in [&mut a, &mut b] {
        c.cmd("FLUSHALL");
        c.cmd("CMS.INITBYDIM cms1 20 5");
    }
    assert_eq!(
        memory_share(&mut a, "cms1", 40 + 4 * 100),
        memory_share(&mut b, "cms1", 8 + 8 * 100)
    );
}

const SKETCHES: Fixture = Fixture {
    build: cms::build,
    answers,
};

#[test]
fn rdb_and_aof_files_move_both_ways() {
    SKETCHES.files_move_both_ways();
}

/// A master of one module and a replica of the other: after a full sync and a stream of every
/// write command, the replica holds the same bytes.
fn replica_of_the_other_holds_the_same_bytes(master: Module, replica: Module) {
    let master = peer(master).start();
    let mut m = master.conn();
    let keys = cms::build(&mut m);
    m.cmd("SET str x");
    for k in 0..KEYS {
        m.call(&["CMS.INITBYDIM", &format!("k{k}"), "10", "3"]);
    }
    let replica = peer(replica).replica_of(&master).start();
    let mut r = replica.conn();
    wait_in_sync(&mut m, &mut r);
    let mut rng = Rng(0xc0ffee);
    let stream = (0..2000).map(|_| random_command(&mut rng));
    let merge = "CMS.MERGE merged 2 merged wide WEIGHTS 2 1";
    let merge = merge.split(' ').map(|w| w.as_bytes().to_vec()).collect();
    let all = keys
        .iter()
        .map(|k| k.to_string())
        .chain((0..KEYS).map(|k| format!("k{k}")));
    replica_holds_the_same_bytes(&mut m, &mut r, stream.chain([merge]), all);
}

#[test]
fn replicas_of_either_module_hold_the_same_bytes() {
    replica_of_the_other_holds_the_same_bytes(Module::RedisBf, Module::RedisBloom);
    replica_of_the_other_holds_the_same_bytes(Module::RedisBloom, Module::RedisBf);
}

/// RedisBloom answers every form that makes a sketch that forget with an arity error, never
/// silently with a sketch that counts forever; and it cannot load one (an unknown type).
#[test]
fn redisbloom_refuses_every_sketch_that_forgets() {
    redisbloom_refuses(&[
        "CMS.INITBYDIM k 10 5 WINDOW 100",
        "CMS.INITBYDIM k 10 5 TIMESPAN 1000 SLOTS 2",
        "CMS.INITBYPROB k 0.01 0.01 TIMESPAN 1000",
        "CMS.INITBYPROB k 0.01 0.01 WINDOW 100 SLOTS 8",
    ]);
}
