//! Filters — Bloom and Cuckoo — survive every way Redis persists and moves values: DEBUG
//! RELOAD, RDB restart, AOF rewrite with and without an RDB preamble, DUMP/RESTORE, COPY — and
//! hostile payloads are refused without harming the server.

mod common;

use common::*;

/// Filters of every shape: scaling with several links, non-scaling, expansion 0, binary items.
fn populate(c: &mut Conn) -> Vec<&'static str> {
    assert_eq!(c.cmd("BF.RESERVE scaled 0.01 20 EXPANSION 3"), ok());
    send_numbered(c, "BF.ADD", "scaled", "s", 200);
    assert_eq!(c.cmd("BF.RESERVE fixed 0.001 50 NONSCALING"), ok());
    c.cmd("BF.MADD fixed a b c d");
    c.cmd("BF.INSERT zero EXPANSION 0 ITEMS x y");
    c.call_bytes(&[b"BF.ADD", b"binary", b"\x00\x01\xff"]);
    assert_eq!(c.cmd("BF.RESERVE fast 0.001 30 LAYOUT FAST"), ok());
    send_numbered(c, "BF.ADD", "fast", "s", 200);
    // Cuckoo filters: grown with deletes, one-slot buckets compacted, full, empty, binary.
    assert_eq!(c.cmd("CF.RESERVE cuckoo 8 EXPANSION 2"), ok());
    send_numbered(c, "CF.ADD", "cuckoo", "s", 200);
    send_numbered(c, "CF.DEL", "cuckoo", "s", 30);
    assert_eq!(
        c.cmd("CF.RESERVE narrow 4 BUCKETSIZE 1 MAXITERATIONS 5"),
        ok()
    );
    send_numbered(c, "CF.ADD", "narrow", "s", 50);
    c.cmd("CF.COMPACT narrow");
    c.cmd("CF.RESERVE cf-full 4 EXPANSION 0");
    c.cmd("CF.INSERT cf-full ITEMS a b c d e f");
    c.cmd("CF.RESERVE cf-empty 1000");
    c.call_bytes(&[b"CF.ADD", b"cf-binary", b"\x00\x01\xff"]);
    KEYS.iter().chain(&CF_KEYS).copied().collect()
}

const KEYS: [&str; 5] = ["scaled", "fixed", "zero", "binary", "fast"];
const CF_KEYS: [&str; 5] = ["cuckoo", "narrow", "cf-full", "cf-empty", "cf-binary"];

/// What must not change of a filter besides its digest and DUMP: INFO, DEBUG, membership, and
/// a Cuckoo filter's SCANDUMP.
fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    let probes: Vec<String> = (0..300).map(|i| format!("s{i}")).collect();
    let mexists = |c: &mut Conn, command: &str| {
        let mut args = vec![command, key];
        args.extend(probes.iter().map(String::as_str));
        c.call(&args)
    };
    if !is_cuckoo(c, key) {
        let mut seen = vec![c.call(&["BF.INFO", key]), c.call(&["BF.DEBUG", key])];
        seen.push(mexists(c, "BF.MEXISTS"));
        seen.push(c.call_bytes(&[b"BF.EXISTS", key.as_bytes(), b"\x00\x01\xff"]));
        return seen;
    }
    let info = c.call(&["CF.INFO", key]);
    // MEMORY USAGE counts our size (CF.INFO's) plus the server's share for the key, which need
    // not survive a reload: on Valkey 8.1.8 and 9.x it is the key object's allocation, which
    // libc malloc sizes by the heap's history.
    let size = info.array()[1].int();
    let usage = c.call(&["MEMORY", "USAGE", key]).int();
    assert!(
        (size..size + 256).contains(&usage),
        "{key}: {usage} for {size}"
    );
    let chunks = cf::scandump(c, key)
        .into_iter()
        .map(|(next, data)| Value::Array(vec![int(next), Value::Bulk(data)]))
        .collect();
    vec![
        info,
        c.call(&["CF.DEBUG", key]),
        Value::Array(chunks),
        mexists(c, "CF.MEXISTS"),
        c.call_bytes(&[b"CF.COUNT", key.as_bytes(), b"\x00\x01\xff"]),
    ]
}

/// Whether `key` holds a Cuckoo filter (else a Bloom filter): copies keep their type.
fn is_cuckoo(c: &mut Conn, key: &str) -> bool {
    c.call(&["TYPE", key]).text() == "MBbloomCF"
}

const FILTERS: persist::Family = persist::Family {
    build: populate,
    answers,
    // A write that changes the filter: an item it did not report (not a false positive), or,
    // for a full Cuckoo filter, the deletion of one.
    write: |c, key| {
        if is_cuckoo(c, key) {
            if c.call(&["CF.ADD", key, "written-later"]).is_error() {
                assert_eq!(c.call(&["CF.DEL", key, "a"]), int(1), "{key}");
            }
            return;
        }
        let added = (0..100).any(|i| c.call(&["BF.ADD", key, &format!("later{i}")]) == int(1));
        assert!(added, "{key}");
    },
};

#[test]
fn filters_survive_every_move() {
    persist::survives_every_move(&FILTERS);
}

#[test]
fn digest_differs_when_bits_differ() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE a 0.01 100");
    c.cmd("BF.RESERVE b 0.01 100");
    assert_eq!(c.cmd("DEBUG DIGEST-VALUE a"), c.cmd("DEBUG DIGEST-VALUE b"));
    c.cmd("BF.ADD b x");
    assert_ne!(c.cmd("DEBUG DIGEST-VALUE a"), c.cmd("DEBUG DIGEST-VALUE b"));
}

/// An AOF rewrite without an RDB preamble writes each filter as the SCANDUMP chunks its
/// LOADCHUNK commands rebuild (RedisBloom's form, which either module replays); with the
/// preamble, as RDB.
#[test]
fn aof_rewrites_write_filters_as_loadchunks_without_a_preamble() {
    for preamble in ["no", "yes"] {
        let server = Server::with(Module::RedisBf)
            .arg("--appendonly yes")
            .arg(&format!("--aof-use-rdb-preamble {preamble}"))
            .start();
        let mut c = server.conn();
        populate(&mut c);
        rewrite_aof(&mut c);
        // Redis ≥ 7.0 keeps the rewritten base in its own file; before, it heads appendonly.aof.
        let base = if feature::multipart_aof() {
            std::fs::read_dir(server.dir.join("appendonlydir"))
                .unwrap()
                .map(|e| e.unwrap().path())
                .find(|p| p.to_string_lossy().contains(".base."))
                .unwrap()
        } else {
            server.dir.join("appendonly.aof")
        };
        let base_bytes = std::fs::read(&base).unwrap();
        for command in [&b"BF.LOADCHUNK"[..], b"CF.LOADCHUNK"] {
            let written = base_bytes.windows(command.len()).any(|w| w == command);
            assert_eq!(written, preamble == "no", "base {}", base.display());
        }
    }
}

/// Replaces the body of a DUMP payload, keeping its RDB version and resealing it.
fn reseal(payload: &[u8], body: &[u8]) -> Vec<u8> {
    let version = &payload[payload.len() - 10..payload.len() - 8];
    let mut out = body.to_vec();
    out.extend_from_slice(version);
    let crc = crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

#[test]
fn crc64_matches_redis() {
    assert_eq!(crc64(b"123456789"), 0xe9c6_d914_c4b8_d9ca);
}

/// How a server took damaged copies of a DUMP payload, each restored as `fuzz`.
struct Damage {
    truncations: usize,
    truncations_refused: usize,
    /// Refusals of every kind.
    refused: usize,
}

/// Restores every truncation of `payload`'s module value and every single-byte corruption of
/// it, resealed, then (where the server can skip the checksum) random damage unsealed, with
/// deep sanitization off (the default) and on (where the server has it; it checks only the
/// server's own encodings, so the module's checks are all that stand). Whatever loads is
/// handed to `exercise`, which must use it and delete it.
fn restore_damaged(c: &mut Conn, payload: &[u8], mut exercise: impl FnMut(&mut Conn)) -> Damage {
    let body = &payload[..payload.len() - 10];
    let mut damage = Damage {
        truncations: 0,
        truncations_refused: 0,
        refused: 0,
    };
    let mut restore = |c: &mut Conn, value: &[u8]| {
        let reply = c.call_bytes(&[b"RESTORE", b"fuzz", b"0", b"REPLACE", value]);
        if reply == ok() {
            exercise(c);
            false
        } else {
            assert!(reply.is_error(), "{reply:?}");
            true
        }
    };
    for len in 10..body.len() {
        damage.truncations += 1;
        if restore(c, &reseal(payload, &body[..len])) {
            damage.truncations_refused += 1;
        }
    }
    damage.refused = damage.truncations_refused;
    for i in 10..body.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut corrupt = body.to_vec();
            corrupt[i] ^= flip;
            damage.refused += usize::from(restore(c, &reseal(payload, &corrupt)));
        }
    }
    if c.cmd("DEBUG SET-SKIP-CHECKSUM-VALIDATION 1") == ok() {
        let mut rng = Rng(0xdec0de);
        for round in 0..3000 {
            if round % 1000 == 0 {
                let sanitize = if round == 1000 { "yes" } else { "no" };
                c.call(&["CONFIG", "SET", "sanitize-dump-payload", sanitize]);
            }
            let mut corrupt = payload.to_vec();
            for _ in 0..1 + rng.below(4) {
                let at = 10 + rng.below(body.len() as u64 - 10) as usize;
                corrupt[at] = rng.next() as u8;
            }
            if rng.below(4) == 0 {
                corrupt.truncate(10 + rng.below(body.len() as u64 - 10) as usize);
            }
            damage.refused += usize::from(restore(c, &corrupt));
        }
        c.cmd("DEBUG SET-SKIP-CHECKSUM-VALIDATION 0");
    }
    assert_eq!(c.cmd("PING"), simple("PONG"));
    assert!(damage.refused > body.len(), "most corruptions are caught");
    damage
}

#[test]
fn corrupt_restore_payloads_are_refused_and_the_server_lives() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE bf 0.01 4 EXPANSION 2");
    c.cmd("BF.MADD bf a b c d e f g");
    let payload = c.cmd("DUMP bf").bulk();
    let body = &payload[..payload.len() - 10];
    assert_eq!(
        c.call_bytes(&[b"RESTORE", b"same", b"0", &reseal(&payload, body)]),
        ok(),
        "resealing is faithful"
    );
    if !feature::survives_refused_restore() {
        // Redis 6.0 exits on any module value the module refuses to load, RESTORE included
        // (README, "Tested servers"): nothing more to check there.
        return;
    }
    let damage = restore_damaged(&mut c, &payload, |c| {
        // Whatever loaded must work.
        assert!(
            !c.cmd("BF.ADD fuzz probe").is_error() || c.cmd("BF.INFO fuzz").array().len() == 10
        );
        c.cmd("BF.EXISTS fuzz probe");
        c.cmd("DEL fuzz");
    });
    // A Bloom value ends with its bit arrays' lengths checked: no cut loads.
    assert_eq!(damage.truncations_refused, damage.truncations);
    assert_eq!(
        c.call_bytes(&[b"RESTORE", b"x", b"0", &reseal(&payload, &body[..20])]),
        err("ERR Bad data format")
    );
    assert_eq!(c.cmd("BF.CARD bf"), int(7));
}

/// A refused value whose reads end exactly where the payload ends: the server then finds no EOF
/// marker and frees whatever the module returned — null, from a refusal. Redis 6.0 hands that
/// null to the type's `free` callback (its `rdbLoadObject`), which crashed the server.
#[test]
fn a_refused_value_that_swallows_the_payload_end_is_refused_cleanly() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CF.RESERVE cf 4 BUCKETSIZE 1");
    let payload = c.cmd("DUMP cf").bulk();
    let body = &payload[..payload.len() - 10];
    // The value ends with its one sub-filter's bytes (string opcode 5, length 4, four empty
    // buckets) and the EOF marker 0.
    assert_eq!(&body[body.len() - 7..], b"\x05\x04\0\0\0\0\0");
    // That string now claims 10 bytes: the RDB version and CRC that seal the payload.
    let mut swallowing = body[..body.len() - 6].to_vec();
    swallowing.push(10);
    assert_eq!(
        c.call_bytes(&[b"RESTORE", b"x", b"0", &reseal(&payload, &swallowing)]),
        err("ERR Bad data format")
    );
    assert_eq!(c.cmd("PING"), simple("PONG"));
    assert_eq!(c.cmd("EXISTS x"), int(0));
}

#[test]
fn absurd_filters_are_refused_and_big_ones_cost_nothing_until_used() {
    let (_server, mut c) = Server::start_with_conn();
    // ~190 GB of bits: more than this machine has, refused before allocating.
    assert_eq!(
        c.cmd("BF.RESERVE absurd 1e-300 1073741824"),
        err("ERR Insufficient memory to create filter")
    );
    assert_eq!(
        c.cmd("BF.INSERT absurd ERROR 1e-300 CAPACITY 1073741824 ITEMS x"),
        err("ERR Insufficient memory to create filter")
    );
    assert_eq!(c.cmd("EXISTS absurd"), int(0));
    // A 1 GiB filter is counted at once but its pages are mapped only as bits are set.
    let rss = |c: &mut Conn| {
        info_field(c, "memory", "used_memory_rss")
            .parse::<i64>()
            .unwrap()
    };
    let before = rss(&mut c);
    assert_eq!(c.cmd("BF.RESERVE big 0.01 780000000"), ok());
    let size = c.cmd("BF.INFO big SIZE").array()[0].int();
    assert!(size > 1 << 30, "{size}");
    c.cmd("BF.MADD big a b c");
    let grown = rss(&mut c) - before;
    assert!(
        grown < 64 << 20,
        "RSS grew by {grown} bytes for a {size}-byte filter"
    );
    assert!(
        info_field(&mut c, "memory", "used_memory")
            .parse::<i64>()
            .unwrap()
            > size,
        "used_memory counts it"
    );
    assert_eq!(c.cmd("BF.EXISTS big b"), int(1));
}

#[test]
fn big_fast_filters_are_saved_in_chunks() {
    // ~21 MB of bits: more than one 16 MiB string in the RDB, and in SCANDUMP.
    let (server, mut c) = Server::start_with_conn();
    assert_eq!(
        c.cmd("BF.RESERVE big 0.01 17000000 NONSCALING LAYOUT FAST"),
        ok()
    );
    let members: Vec<String> = (0..5000).map(|i| format!("member{i}")).collect();
    let mut madd = vec!["BF.MADD", "big"];
    madd.extend(members.iter().map(String::as_str));
    c.call(&madd);
    let digest = c.cmd("DEBUG DIGEST-VALUE big");
    assert_eq!(
        bf::scandump(&mut c, "big").len(),
        3,
        "the header and two chunks"
    );
    assert_eq!(c.cmd("SAVE"), ok());
    let server = server.restart();
    let mut c = server.conn();
    assert_eq!(c.cmd("DEBUG DIGEST-VALUE big"), digest);
    let mut mexists = vec!["BF.MEXISTS", "big"];
    mexists.extend(members.iter().map(String::as_str));
    assert!(c.call(&mexists).array().iter().all(|v| *v == int(1)));
}

#[test]
fn unlink_of_a_big_filter_is_lazy() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE big 0.001 10000000"), ok());
    let size = c.cmd("BF.INFO big SIZE").array()[0].int();
    assert!(size > 17_000_000, "{size}");
    let memory = c.cmd("MEMORY USAGE big").int();
    assert!(
        memory >= size,
        "MEMORY USAGE {memory} counts the filter ({size})"
    );
    assert_eq!(c.cmd("UNLINK big"), int(1));
    wait_for("the lazy free", || {
        info_field(&mut c, "memory", "lazyfree_pending_objects") == "0"
    });
    let freed = info_field(&mut c, "memory", "lazyfreed_objects");
    if !freed.is_empty() {
        assert_eq!(freed, "1", "freed by the lazy-free thread");
    }
}

/// A DUMP payload of a `MBbloomCF` value of encoding version `encver` with these unsigned
/// fields, then these buffers, as `RedisModule_Save*` writes them; `template` gives the type
/// id and the RDB version.
fn cf_payload(template: &[u8], encver: u8, numbers: &[u64], buffers: &[&[u8]]) -> Vec<u8> {
    let mut body = template[..10].to_vec();
    body[9] = encver;
    for &n in numbers {
        body.extend(rdb_unsigned(n));
    }
    for buffer in buffers {
        body.extend(rdb_buffer(buffer));
    }
    body.push(0); // end of the module value
    reseal(template, &body)
}

#[test]
fn cuckoo_payloads_of_every_encoding_and_inconsistent_ones() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CF.RESERVE t 4");
    let template = c.cmd("DUMP t").bulk();
    let restore =
        |c: &mut Conn, payload: &[u8]| c.call_bytes(&[b"RESTORE", b"r", b"0", payload, b"REPLACE"]);
    // RedisBloom 1.1–2.0 (encoding versions 1 and 3): the rest from the cf-* configs.
    for encver in [1, 3] {
        let buffers: [&[u8]; 2] = [&[0, 7, 0, 0, 0, 0, 0, 0], &[1, 0, 0, 0, 0, 0, 9, 0]];
        assert_eq!(
            restore(&mut c, &cf_payload(&template, encver, &[2, 4, 3], &buffers)),
            ok()
        );
        assert_eq!(
            c.cmd("CF.DEBUG r"),
            bulk(b"bktsize:2 buckets:4 items:3 deletes:0 filters:2 max_iterations:20 expansion:1")
        );
        // Saved again in today's encoding.
        let resaved = c.cmd("DUMP r").bulk();
        assert_eq!(resaved[9], 4);
    }
    if !feature::survives_refused_restore() {
        // Redis 6.0 exits on any module value the module refuses to load, RESTORE included
        // (README, "Tested servers"): the refusals below cannot be checked there.
        return;
    }
    let bad_data = err("ERR Bad data format");
    for (numbers, buffers, why) in [
        (
            vec![0u64, 8, 1, 0, 1, 1, 1],
            vec![],
            "no sub-filters (RedisBloom's test payload)",
        ),
        (vec![1, 0, 1, 0, 1, 1, 1, 0], vec![&[][..]], "no buckets"),
        (
            vec![1, 4, 0, 0, 2, 20, 1, 4],
            vec![&[0u8; 7][..]],
            "a buffer too short (RedisBloom aborts)",
        ),
        (
            vec![1, 4, 0, 0, 2, 20, 1, 4],
            vec![&[0u8; 9][..]],
            "a buffer too long (RedisBloom aborts)",
        ),
        (
            vec![1, 4, 0, 0, 2, 20, 1, 3],
            vec![&[0u8; 8][..]],
            "buckets that disagree with the bytes",
        ),
        (
            vec![2, 4, 0, 0, 2, 20, 1, 4],
            vec![&[0u8; 8][..]],
            "fewer sub-filters than said",
        ),
        (
            vec![1, 4, 0, 0, 0, 20, 1, 4],
            vec![&[][..]],
            "bucket size 0",
        ),
        (
            vec![1, 4, 0, 0, 256, 20, 1, 4],
            vec![&[0u8; 1024][..]],
            "bucket size 256",
        ),
        (vec![65536, 1, 0, 0, 1, 20, 1], vec![], "65536 sub-filters"),
    ] {
        assert_eq!(
            restore(&mut c, &cf_payload(&template, 4, &numbers, &buffers)),
            bad_data,
            "{why}"
        );
    }
    assert_eq!(
        restore(
            &mut c,
            &cf_payload(&template, 5, &[1, 4, 0, 0, 2, 20, 1, 4], &[&[0; 8]])
        ),
        bad_data,
        "an encoding version from the future"
    );
    // Accepted as RedisBloom accepts them, and usable: a 3-bucket sub-filter, no iterations.
    assert_eq!(
        restore(
            &mut c,
            &cf_payload(&template, 4, &[1, 3, 9, 0, 1, 0, 1, 3], &[&[5, 0, 6]])
        ),
        ok()
    );
    assert_eq!(
        c.cmd("CF.INSERT r ITEMS a b c d e"),
        c.cmd("CF.INSERT r ITEMS a b c d e")
    );
    assert_eq!(c.cmd("PING"), simple("PONG"));
}

#[test]
fn corrupt_cuckoo_payloads_are_refused_and_the_server_lives() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CF.RESERVE cf 8 EXPANSION 2");
    send_numbered(&mut c, "CF.ADD", "cf", "", 60);
    send_numbered(&mut c, "CF.DEL", "cf", "", 5);
    let payload = c.cmd("DUMP cf").bulk();
    if !feature::survives_refused_restore() {
        // Redis 6.0 exits on any module value the module refuses to load, RESTORE included
        // (README, "Tested servers"): nothing to check there.
        return;
    }
    let exercise = |c: &mut Conn| {
        for line in [
            "CF.ADD fuzz probe",
            "CF.INSERT fuzz ITEMS a b c",
            "CF.DEL fuzz a",
            "CF.COUNT fuzz b",
            "CF.COMPACT fuzz",
            "CF.INFO fuzz",
            "DUMP fuzz",
        ] {
            c.cmd(line);
        }
        cf::scandump(c, "fuzz");
        c.cmd("DEL fuzz");
    };
    // A truncation may load: cut inside the last compressed array, whose missing bytes the
    // seal then supplies, it is a consistent filter.
    restore_damaged(&mut c, &payload, exercise);
    assert_eq!(c.cmd("CF.INFO cf").array()[7], int(55));
}

#[test]
fn unlink_of_a_big_cuckoo_filter_is_lazy() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("CF.RESERVE big 16777216"), ok());
    assert_eq!(c.cmd("CF.INFO big").array()[1], int(40 + 16 + 16_777_216));
    assert!(c.cmd("MEMORY USAGE big").int() > 16_777_216);
    c.cmd("CF.ADD big x");
    assert_eq!(c.cmd("UNLINK big"), int(1));
    wait_for("the lazy free", || {
        info_field(&mut c, "memory", "lazyfree_pending_objects") == "0"
    });
    let freed = info_field(&mut c, "memory", "lazyfreed_objects");
    if !freed.is_empty() {
        assert_eq!(freed, "1", "freed by the lazy-free thread");
    }
}
