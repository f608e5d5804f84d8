//! Differential tests of Top-K against RedisBloom's own module (`redisbloom.so` 2.8.2, fetched
//! by scripts/fetch-anchors.sh), at decay 1, where RedisBloom's results depend on no random
//! draw: the same random TOPK.* streams give the same replies in RESP2 and RESP3 and leave
//! the same DUMP payloads but for RedisBloom's heap pointers; Top-Ks move between the two by
//! DUMP/RESTORE, RDB files and AOF files, both ways; and each can be the other's replica.
//!
//! Left out of the streams, on purpose: a bad increment among several TOPK.INCRBY pairs
//! (RedisBloom sends an array cut short and the client waits forever: `topk_commands` shows
//! ours), k of 2^32 (RedisBloom aborts), decay below 1 (RedisBloom draws from `rand()`).
//!
//! Both servers are Debian's redis-server with `rdbcompression no`, so that payloads can be
//! compared field by field.
// matrix: no — it needs RedisBloom, which loads only into the redis-server it was built for.

mod common;

use common::*;

const KEYS: u64 = 4;

fn start_pair_uncompressed() -> (Server, Server) {
    let ours = Server::with(Module::RedisBf)
        .binary("redis-server")
        .arg("--rdbcompression no")
        .start();
    let theirs = Server::with(Module::RedisBloom)
        .binary("redis-server")
        .arg("--rdbcompression no")
        .start();
    (ours, theirs)
}

/// One random TOPK command over a few keys, a small item pool with binary items (C strings
/// in replies on both), and a key of another type.
fn random_command(rng: &mut Rng) -> Vec<Vec<u8>> {
    let pick =
        |rng: &mut Rng, from: &[&str]| from[rng.below(from.len() as u64) as usize].to_string();
    let key = |rng: &mut Rng| match rng.below(30) {
        0 => "str".to_string(),
        1 => "missing".to_string(),
        _ => format!("k{}", rng.below(KEYS)),
    };
    let item = |rng: &mut Rng| -> Vec<u8> {
        match rng.below(40) {
            0 => b"x\x00y".to_vec(),
            1 => Vec::new(),
            _ => format!("item{}", rng.below(30) * rng.below(30) / 30).into_bytes(),
        }
    };
    let mut cmd: Vec<Vec<u8>> = Vec::new();
    let push = |cmd: &mut Vec<Vec<u8>>, s: &str| cmd.push(s.as_bytes().to_vec());
    match rng.below(100) {
        0..=4 => {
            push(&mut cmd, "TOPK.RESERVE");
            push(&mut cmd, &key(rng));
            push(&mut cmd, &pick(rng, &["1", "3", "5", "0", "x"]));
            push(&mut cmd, &pick(rng, &["1", "4", "8", "0", "y"]));
            push(&mut cmd, &pick(rng, &["1", "3", "4294967296"]));
            push(&mut cmd, &pick(rng, &["1", "1", "0", "1.5", "z"]));
        }
        // Items after the key: TOPK.ADD, or TOPK.QUERY or TOPK.COUNT.
        n @ (5..=44 | 65..=79) => {
            let name = match n {
                5..=44 => "TOPK.ADD".to_string(),
                _ => pick(rng, &["TOPK.QUERY", "TOPK.COUNT"]),
            };
            push(&mut cmd, &name);
            push(&mut cmd, &key(rng));
            for _ in 0..1 + rng.below(6) {
                cmd.push(item(rng));
            }
        }
        45..=64 => {
            push(&mut cmd, "TOPK.INCRBY");
            push(&mut cmd, &key(rng));
            let pairs = 1 + rng.below(4);
            for _ in 0..pairs {
                cmd.push(item(rng));
                push(&mut cmd, &rng.below(300).to_string());
            }
            if pairs == 1 && rng.below(5) == 0 {
                // One pair: both send a well-formed `[error]`.
                cmd.pop();
                push(&mut cmd, &pick(rng, &["-1", "100001", "x"]));
            }
        }
        80..=94 => {
            push(&mut cmd, "TOPK.LIST");
            push(&mut cmd, &key(rng));
            if rng.below(2) == 0 {
                push(
                    &mut cmd,
                    &pick(rng, &["WITHCOUNT", "withcount", "w", "", "WITHCOUNTS"]),
                );
            }
        }
        95..=97 => {
            push(&mut cmd, "TOPK.INFO");
            push(&mut cmd, &key(rng));
        }
        _ => {
            push(&mut cmd, "DEL");
            push(&mut cmd, &key(rng));
        }
    }
    cmd
}

/// Whether a key's payload holds an item with a NUL byte, which RedisBloom saves cut.
fn holds_nul_item(c: &mut Conn, key: &str) -> bool {
    c.call(&["TOPK.QUERY", key, "x\0y"]) == ints(&[1])
}

/// Fresh keys of decay 1 on both, a string key, and the given protocol.
fn reset(c: &mut Conn) {
    c.cmd("FLUSHALL");
    c.cmd("SET str x");
    for (k, shape) in ["3 8 3 1", "5 4 2 1", "1 2 1 1", "10 30 4 1"]
        .iter()
        .enumerate()
    {
        c.cmd(&format!("TOPK.RESERVE k{k} {shape}"));
    }
}

#[test]
fn random_command_streams_reply_and_store_identically() {
    let (ours, theirs) = start_pair_uncompressed();
    let (mut compared, mut expelled) = (0, 0);
    for seed in 1..=12u64 {
        let (mut a, mut b, context) = conns_for_seed(&ours, &theirs, seed);
        let mut rng = Rng(seed * 0x9e37_79b9_7f4a_7c15);
        reset(&mut a);
        reset(&mut b);
        for _ in 0..800 {
            let cmd = random_command(&mut rng);
            let (mine, _) = both(&mut a, &mut b, &cmd, &context, &[]);
            compared += 1;
            if let Value::Array(items) = &mine {
                expelled += items.iter().filter(|i| matches!(i, Value::Bulk(_))).count();
            }
        }
        for k in (0..KEYS).map(|k| format!("k{k}")) {
            assert_eq!(
                topk::answers(&mut a, &k),
                topk::answers(&mut b, &k),
                "{context}: {k}"
            );
            let (ours, theirs) = (a.call(&["DUMP", &k]), b.call(&["DUMP", &k]));
            if let (Value::Bulk(ours), Value::Bulk(theirs)) = (&ours, &theirs) {
                if !holds_nul_item(&mut a, &k) {
                    assert_eq!(
                        topk::dump_without_pointers(ours),
                        topk::dump_without_pointers(theirs),
                        "{context}: {k}"
                    );
                }
            } else {
                assert_eq!(ours, theirs, "{context}: {k}");
            }
        }
    }
    assert!(
        expelled > compared / 5,
        "{expelled} expelled items in {compared} commands"
    );
}

/// The keys `topk::build` makes at decay 1, whose contents RedisBloom computes as we do.
const EXACT: [&str; 4] = ["exact", "heavy", "one", "empty"];

#[test]
fn the_same_commands_build_the_same_bytes() {
    let (ours, theirs) = start_pair_uncompressed();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    topk::build(&mut a);
    topk::build(&mut b);
    for key in EXACT {
        let (mine, reference) = (a.call(&["DUMP", key]).bulk(), b.call(&["DUMP", key]).bulk());
        assert_eq!(
            topk::dump_without_pointers(&mine),
            topk::dump_without_pointers(&reference),
            "{key}"
        );
        assert_eq!(
            topk::answers(&mut a, key),
            topk::answers(&mut b, key),
            "{key}"
        );
        // MEMORY USAGE is RedisBloom's TopKMemUsage in both.
        assert_eq!(
            a.call(&["MEMORY", "USAGE", key]),
            b.call(&["MEMORY", "USAGE", key]),
            "{key}"
        );
    }
}

#[test]
fn top_ks_move_both_ways_by_dump_and_restore() {
    let (ours, theirs) = start_pair_uncompressed();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    both_ways(&mut a, &mut b, |from, to| {
        for key in topk::build(from) {
            let payload = from.call(&["DUMP", key]).bulk();
            assert_eq!(
                to.call_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload]),
                ok()
            );
            assert_eq!(topk::answers(to, key), topk::answers(from, key), "{key}");
            assert_eq!(
                topk::dump_without_pointers(&to.call(&["DUMP", key]).bulk()),
                topk::dump_without_pointers(&payload),
                "{key}: the same RDB fields"
            );
        }
    });
    // Not compared: a Top-K moved to RedisBloom 2.8.2 and counted there, which never decays
    // again (it leaves a loaded Top-K's decay table zero; RedisBloom 8 fixed it).
}

/// RedisBloom 2.8.2 cuts items at their first NUL when it saves them and turns an empty item
/// into an item-less slot when it loads one; what it saves loads here, and what we save, items
/// whole, loads there.
#[test]
fn binary_items_between_the_modules() {
    let (ours, theirs) = start_pair_uncompressed();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    for c in [&mut a, &mut b] {
        c.cmd("TOPK.RESERVE t 3 8 7 1");
        for (item, n) in [(&b""[..], &b"1"[..]), (b"x\x00y", b"2"), (b"abc", b"1")] {
            c.call_bytes(&[b"TOPK.INCRBY", b"t", item, n]);
        }
        assert_eq!(
            c.cmd("TOPK.LIST t WITHCOUNT"),
            Value::Array(vec![
                bulk(b"x"),
                int(2),
                bulk(b""),
                int(1),
                bulk(b"abc"),
                int(1)
            ])
        );
    }
    let query = |c: &mut Conn, key: &[u8]| {
        c.call_bytes(&[b"TOPK.QUERY", key, b"", b"x\x00y", b"x", b"abc"])
    };
    // Theirs here: `x\0y` was saved as `x` under `x\0y`'s fingerprint, so neither is found
    // in the heap (RedisBloom 8 loads it the same way); `""` still is.
    let theirs_payload = b.cmd("DUMP t").bulk();
    assert_eq!(
        a.call_bytes(&[b"RESTORE", b"from-rb", b"0", &theirs_payload]),
        ok()
    );
    assert_eq!(query(&mut a, b"from-rb"), ints(&[1, 0, 0, 1]));
    // Ours there: RedisBloom 2.8.2 reads the whole item, and lists `""` as nil after loading.
    let ours_payload = a.cmd("DUMP t").bulk();
    assert_eq!(
        b.call_bytes(&[b"RESTORE", b"from-us", b"0", &ours_payload]),
        ok()
    );
    assert_eq!(
        b.cmd("TOPK.LIST from-us WITHCOUNT"),
        Value::Array(vec![
            bulk(b"x"),
            int(2),
            Value::Nil,
            int(1),
            bulk(b"abc"),
            int(1)
        ])
    );
    assert_eq!(b.call(&["TOPK.COUNT", "from-us", "abc"]), ints(&[1]));
}

const TOP_KS: Fixture = Fixture {
    build: topk::build,
    answers: topk::answers,
};

#[test]
fn rdb_and_aof_files_move_both_ways() {
    for how in ["rdb", "aof"] {
        TOP_KS.files_move(Module::RedisBf, Module::RedisBloom, how);
        TOP_KS.files_move(Module::RedisBloom, Module::RedisBf, how);
    }
}

/// A master of one module and a replica of the other, with Top-Ks of decay 1 made after the
/// sync (RedisBloom 2.8.2 leaves a loaded Top-K's decay table zero, so it never decays again):
/// after a stream of every command the replica holds the same fields.
/// Fields, not the `DUMP` bytes the other families compare (`diff::replica_holds_the_same_bytes`):
/// RedisBloom's Top-K payload carries heap pointers, which differ between any two processes.
fn replica_of_the_other_holds_the_same_fields(master: Module, replica: Module) {
    // RedisBloom 2.8.2 flags TOPK.COUNT `write`, which a read-only replica refuses.
    let replica_answers = matches!(replica, Module::RedisBf);
    let master = Server::with(master)
        .binary("redis-server")
        .arg("--rdbcompression no")
        .start();
    let replica = Server::with(replica)
        .binary("redis-server")
        .arg("--rdbcompression no")
        .replica_of(&master)
        .start();
    let (mut m, mut r) = (master.conn(), replica.conn());
    wait_in_sync(&mut m, &mut r);
    reset(&mut m);
    let mut rng = Rng(0xc0ffee);
    for _ in 0..2000 {
        let cmd = random_command(&mut rng);
        let args: Vec<&[u8]> = cmd.iter().map(Vec::as_slice).collect();
        m.call_bytes(&args);
    }
    wait_in_sync(&mut m, &mut r);
    for key in (0..KEYS).map(|k| format!("k{k}")) {
        if replica_answers {
            assert_eq!(
                topk::answers(&mut m, &key),
                topk::answers(&mut r, &key),
                "{key}"
            );
        }
        if let Value::Bulk(dump) = m.call(&["DUMP", &key]) {
            if !holds_nul_item(&mut m, &key) {
                assert_eq!(
                    topk::dump_without_pointers(&dump),
                    topk::dump_without_pointers(&r.call(&["DUMP", &key]).bulk()),
                    "{key}"
                );
            }
        }
    }
}

#[test]
fn replicas_of_either_module_hold_the_same_bytes() {
    replica_of_the_other_holds_the_same_fields(Module::RedisBf, Module::RedisBloom);
    replica_of_the_other_holds_the_same_fields(Module::RedisBloom, Module::RedisBf);
}

/// RedisBloom answers every form that makes a Top-K that forgets with an arity error, never
/// silently with a Top-K that remembers; and it cannot restore one (an unknown type).
#[test]
fn redisbloom_refuses_every_topk_that_forgets() {
    redisbloom_refuses(&[
        "TOPK.RESERVE k 10 WINDOW 100",
        "TOPK.RESERVE k 10 TIMESPAN 1000 SLOTS 2",
        "TOPK.RESERVE k 10 50 4 0.9 TIMESPAN 1000",
        "TOPK.RESERVE k 10 50 4 0.9 WINDOW 100 SLOTS 8",
    ]);
}
