//! Filters survive every way Redis persists and moves values: DEBUG RELOAD, RDB restart, AOF
//! rewrite with and without an RDB preamble, DUMP/RESTORE, COPY — and hostile payloads are
//! refused without harming the server.

mod common;

use common::*;

/// Filters of every shape: scaling with several links, non-scaling, expansion 0, binary items.
fn populate(c: &mut Conn) {
    assert_eq!(c.cmd("BF.RESERVE scaled 0.01 20 EXPANSION 3"), ok());
    for i in 0..200 {
        c.call(&["BF.ADD", "scaled", &format!("s{i}")]);
    }
    assert_eq!(c.cmd("BF.RESERVE fixed 0.001 50 NONSCALING"), ok());
    c.cmd("BF.MADD fixed a b c d");
    c.cmd("BF.INSERT zero EXPANSION 0 ITEMS x y");
    c.call_bytes(&[b"BF.ADD", b"binary", b"\x00\x01\xff"]);
    assert_eq!(c.cmd("BF.RESERVE fast 0.001 30 LAYOUT FAST"), ok());
    for i in 0..200 {
        c.call(&["BF.ADD", "fast", &format!("s{i}")]);
    }
}

const KEYS: [&str; 5] = ["scaled", "fixed", "zero", "binary", "fast"];

/// What must not change: digests, INFO and membership.
fn snapshot(c: &mut Conn) -> Vec<Value> {
    let mut seen = vec![c.cmd("DBSIZE"), c.cmd("DEBUG DIGEST")];
    for key in KEYS {
        seen.push(c.call(&["DEBUG", "DIGEST-VALUE", key]));
        seen.push(c.call(&["BF.INFO", key]));
        seen.push(c.call(&["BF.DEBUG", key]));
    }
    let probes: Vec<String> = (0..300).map(|i| format!("s{i}")).collect();
    for key in ["scaled", "fast"] {
        let mut mexists = vec!["BF.MEXISTS", key];
        mexists.extend(probes.iter().map(String::as_str));
        seen.push(c.call(&mexists));
    }
    seen.push(c.call_bytes(&[b"BF.EXISTS", b"binary", b"\x00\x01\xff"]));
    seen
}

#[test]
fn debug_reload() {
    let server = Server::start();
    let mut c = server.conn();
    populate(&mut c);
    let before = snapshot(&mut c);
    assert_ne!(before[1], bulk(&[b'0'; 40]), "the digest sees the filters");
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(snapshot(&mut c), before);
}

#[test]
fn digest_differs_when_bits_differ() {
    let server = Server::start();
    let mut c = server.conn();
    c.cmd("BF.RESERVE a 0.01 100");
    c.cmd("BF.RESERVE b 0.01 100");
    assert_eq!(c.cmd("DEBUG DIGEST-VALUE a"), c.cmd("DEBUG DIGEST-VALUE b"));
    c.cmd("BF.ADD b x");
    assert_ne!(c.cmd("DEBUG DIGEST-VALUE a"), c.cmd("DEBUG DIGEST-VALUE b"));
}

#[test]
fn rdb_restart() {
    let server = Server::start();
    let mut c = server.conn();
    populate(&mut c);
    let before = snapshot(&mut c);
    assert_eq!(c.cmd("SAVE"), ok());
    let server = server.restart();
    assert_eq!(snapshot(&mut server.conn()), before);
}

fn aof_round_trip(preamble: &str) {
    let server = Server::with(Module::RedisBf)
        .arg("--appendonly yes")
        .arg(&format!("--aof-use-rdb-preamble {preamble}"))
        .start();
    let mut c = server.conn();
    populate(&mut c);
    assert!(!c.cmd("BGREWRITEAOF").is_error());
    wait_for("the AOF rewrite", || {
        info_field(&mut c, "persistence", "aof_rewrite_in_progress") == "0"
            && info_field(&mut c, "persistence", "aof_rewrite_scheduled") == "0"
    });
    // Writes after the rewrite land in the incremental file, replayed after the base.
    c.cmd("BF.ADD scaled after-rewrite");
    c.cmd("BF.MADD fixed e");
    let before = snapshot(&mut c);
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
    let has_loadchunk = base_bytes.windows(12).any(|w| w == b"BF.LOADCHUNK");
    assert_eq!(has_loadchunk, preamble == "no", "base {}", base.display());
    let server = server.restart();
    let after = snapshot(&mut server.conn());
    for (i, (a, b)) in after.iter().zip(&before).enumerate() {
        assert_eq!(
            a,
            b,
            "snapshot item {i} differs after restart; log:\n{}",
            server.log()
        );
    }
}

#[test]
fn aof_rewrite_without_rdb_preamble() {
    aof_round_trip("no");
}

#[test]
fn aof_rewrite_with_rdb_preamble() {
    aof_round_trip("yes");
}

#[test]
fn dump_restore_and_copy() {
    let server = Server::start();
    let mut c = server.conn();
    populate(&mut c);
    for key in KEYS {
        let payload = c.call(&["DUMP", key]).bulk();
        let copy = format!("{key}-restored");
        assert_eq!(
            c.call_bytes(&[b"RESTORE", copy.as_bytes(), b"0", &payload]),
            ok()
        );
        assert_eq!(
            c.call(&["DEBUG", "DIGEST-VALUE", key]),
            c.call(&["DEBUG", "DIGEST-VALUE", &copy])
        );
        if !feature::copy_and_module_events() {
            continue; // COPY is Redis ≥ 6.2.
        }
        let copied = format!("{key}-copied");
        assert_eq!(c.call(&["COPY", key, &copied]), int(1));
        assert_eq!(
            c.call(&["DEBUG", "DIGEST-VALUE", key]),
            c.call(&["DEBUG", "DIGEST-VALUE", &copied])
        );
        assert_eq!(c.call(&["BF.INFO", key]), c.call(&["BF.INFO", &copied]));
    }
    if !feature::copy_and_module_events() {
        return;
    }
    // A copy is independent of its source.
    c.cmd("BF.ADD scaled-copied only-in-copy");
    assert_eq!(c.cmd("BF.EXISTS scaled only-in-copy"), int(0));
    assert_eq!(c.cmd("BF.EXISTS scaled-copied only-in-copy"), int(1));
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

#[test]
fn corrupt_restore_payloads_are_refused_and_the_server_lives() {
    let server = Server::start();
    let mut c = server.conn();
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
    let mut refused = 0;
    // Every truncation of the module value.
    for len in 10..body.len() {
        let reply = c.call_bytes(&[b"RESTORE", b"cut", b"0", &reseal(&payload, &body[..len])]);
        assert!(reply.is_error(), "truncated at {len}: {reply:?}");
        refused += 1;
    }
    // Every single-byte corruption after the type id: refused, or accepted as a consistent filter.
    for i in 10..body.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut corrupt = body.to_vec();
            corrupt[i] ^= flip;
            let reply = c.call_bytes(&[
                b"RESTORE",
                b"fuzz",
                b"0",
                b"REPLACE",
                &reseal(&payload, &corrupt),
            ]);
            if reply == ok() {
                // Whatever loaded must work.
                assert!(
                    !c.cmd("BF.ADD fuzz probe").is_error()
                        || c.cmd("BF.INFO fuzz").array().len() == 10
                );
                c.cmd("BF.EXISTS fuzz probe");
                c.cmd("DEL fuzz");
            } else {
                assert!(reply.is_error());
                refused += 1;
            }
        }
    }
    assert!(refused > body.len(), "most corruptions are caught");
    assert_eq!(
        c.call_bytes(&[b"RESTORE", b"x", b"0", &reseal(&payload, &body[..20])]),
        err("ERR Bad data format")
    );
    assert_eq!(c.cmd("PING"), simple("PONG"));
    assert_eq!(c.cmd("BF.CARD bf"), int(7));
}

#[test]
fn absurd_filters_are_refused_and_big_ones_cost_nothing_until_used() {
    let server = Server::start();
    let mut c = server.conn();
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
    let server = Server::start();
    let mut c = server.conn();
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
        scandump(&mut c, "big").len(),
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
    let server = Server::start();
    let mut c = server.conn();
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
