//! Filters that forget survive every way Redis persists and moves values — the shared
//! every-move check (`persist::survives_every_move`), and SCANDUMP/LOADCHUNK — holding the same
//! bytes, although a time window's writes are replayed later than they were made; and damaged
//! payloads are refused without harming the server.

mod common;

use common::bf::{loadchunks, scandump};
use common::*;

/// Window filters of every kind: count and time, over capacity, empty, created by BF.INSERT,
/// with a binary item, and one whose bits take two RDB strings and SCANDUMP chunks.
fn populate(c: &mut Conn) -> Vec<&'static str> {
    assert_eq!(c.cmd("BF.RESERVE count 0.01 500 WINDOW"), ok());
    for batch in 0..6 {
        let mut args = vec!["BF.MADD".to_string(), "count".into()];
        args.extend((0..250).map(|i| format!("c{batch}-{i}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        c.call(&args);
    }
    assert_eq!(c.cmd("BF.RESERVE time 0.001 1000 TIMESPAN 3600000"), ok());
    send_numbered(c, "BF.ADD", "time", "t", 300);
    c.cmd("BF.MADD time t1 t2 new");
    c.cmd("BF.INSERT inserted CAPACITY 100 ERROR 0.05 TIMESPAN 600000 ITEMS a b c a");
    assert_eq!(c.cmd("BF.RESERVE empty 0.01 100000 WINDOW"), ok());
    c.call_bytes(&[
        b"BF.INSERT",
        b"binary",
        b"WINDOW",
        b"ITEMS",
        b"\x00\x01\xff",
    ]);
    // ~20 MB of bits: more than one 16 MiB string or chunk.
    assert_eq!(c.cmd("BF.RESERVE big 0.01 8000000 WINDOW"), ok());
    c.cmd("BF.MADD big x y z");
    KEYS.to_vec()
}

const KEYS: [&str; 6] = ["count", "time", "inserted", "empty", "binary", "big"];

/// What must not change of a filter besides its digest and DUMP: TYPE, INFO, DEBUG, CARD,
/// membership.
fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    let probes: Vec<String> = (0..6)
        .flat_map(|batch| (0..250).map(move |i| format!("c{batch}-{i}")))
        .chain((0..300).map(|i| format!("t{i}")))
        .chain(["a", "b", "x", "new"].map(String::from))
        .collect();
    let mut mexists = vec!["BF.MEXISTS", key];
    mexists.extend(probes.iter().map(String::as_str));
    vec![
        c.call(&["TYPE", key]),
        c.call(&["BF.INFO", key]),
        c.call(&["BF.DEBUG", key]),
        c.call(&["BF.CARD", key]),
        c.call(&mexists),
        c.call_bytes(&[b"BF.EXISTS", key.as_bytes(), b"\x00\x01\xff"]),
    ]
}

/// What must not change of every key, after the database's size and digest.
fn snapshot(c: &mut Conn) -> Vec<Value> {
    persist::snapshot(c, &KEYS, answers)
}

#[test]
fn windows_survive_every_move() {
    persist::survives_every_move(&persist::Family {
        build: populate,
        answers,
        // An item the window did not hold: a write that changes it.
        write: |c, key| {
            let added = (0..100).any(|i| c.call(&["BF.ADD", key, &format!("later{i}")]) == int(1));
            assert!(added, "{key}");
        },
    });
}

/// The AOF as the commands wrote it: replayed after a pause, so by a later clock, the time
/// windows' writes still land at the times they were made (each carries its time).
#[test]
fn aof_replayed_as_written() {
    let server = Server::with_aof();
    let mut c = server.conn();
    // A window short enough that replaying by the clock would forget what it holds.
    c.cmd("BF.RESERVE short 0.01 100 TIMESPAN 300");
    c.cmd("BF.MADD short a b c");
    populate(&mut c);
    let digest = c.cmd("DEBUG DIGEST-VALUE short");
    let dump = c.cmd("DUMP short");
    let before = snapshot(&mut c);
    std::thread::sleep(std::time::Duration::from_millis(500));
    let server = server.restart();
    let mut c = server.conn();
    assert_eq!(snapshot(&mut c), before, "{}", server.log());
    assert_eq!(c.cmd("DEBUG DIGEST-VALUE short"), digest);
    assert_eq!(c.cmd("DUMP short"), dump);
    assert_eq!(c.cmd("BF.EXISTS short a"), int(0), "forgotten by now");
}

#[test]
fn scandump_and_loadchunk_rebuild_every_window() {
    let (_server, mut c) = Server::start_with_conn();
    populate(&mut c);
    for key in KEYS {
        let digest = c.call(&["DEBUG", "DIGEST-VALUE", key]);
        let chunks = scandump(&mut c, key);
        assert!(chunks.len() >= 2, "{key}: a header and its bits");
        let loaded = format!("{key}-loaded");
        loadchunks(&mut c, &loaded, &chunks);
        assert_eq!(c.call(&["DEBUG", "DIGEST-VALUE", &loaded]), digest);
        assert_eq!(c.call(&["BF.INFO", &loaded]), c.call(&["BF.INFO", key]));
    }
    assert_eq!(scandump(&mut c, "big").len(), 3, "two data chunks");
    // LOADCHUNK's errors: data before a header, a chunk past the bits.
    let chunks = scandump(&mut c, "time");
    let (iter, data) = &chunks[1];
    assert_eq!(
        bf::loadchunk(&mut c, "nothing", *iter, data),
        err("ERR not found")
    );
    assert_eq!(
        bf::loadchunk(&mut c, "time", 1 << 40, data),
        err("ERR invalid offset - no link found")
    );
    let mut header = chunks[0].1.clone();
    header.push(0);
    assert_eq!(
        bf::loadchunk(&mut c, "bad", 1, &header),
        err("ERR received bad data")
    );
    assert_eq!(c.cmd("EXISTS nothing bad"), int(0));
}

/// Every truncation and many single-byte corruptions of a window filter's DUMP payload,
/// resealed with a valid checksum: refused, or loaded as a filter that works.
#[test]
fn damaged_payloads_are_refused_and_the_server_lives() {
    if !feature::survives_refused_restore() {
        return; // Redis 6.0 exits on any module value refused by RESTORE.
    }
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE t 0.1 64 TIMESPAN 100000");
    c.cmd("BF.MADD t a b c d e");
    let payload = c.cmd("DUMP t").bulk();
    let body = &payload[..payload.len() - 10];
    let version = &payload[payload.len() - 10..payload.len() - 8];
    let reseal = |body: &[u8]| {
        let mut out = body.to_vec();
        out.extend_from_slice(version);
        let crc = crc64(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    };
    assert_eq!(
        c.call_bytes(&[b"RESTORE", b"same", b"0", &reseal(body)]),
        ok()
    );
    let restore = |c: &mut Conn, value: Vec<u8>| -> bool {
        let reply = c.call_bytes(&[b"RESTORE", b"fuzz", b"0", b"REPLACE", &value]);
        if reply != ok() {
            assert!(reply.is_error(), "{reply:?}");
            return true;
        }
        assert!(!c.cmd("BF.ADD fuzz probe").is_error());
        c.cmd("BF.EXISTS fuzz a");
        c.cmd("BF.INFO fuzz");
        c.cmd("DEL fuzz");
        false
    };
    for len in 10..body.len() {
        assert!(restore(&mut c, reseal(&body[..len])), "cut at {len}");
    }
    let mut refused = 0;
    for i in 10..body.len() {
        for flip in [0x01u8, 0x80] {
            let mut corrupt = body.to_vec();
            corrupt[i] ^= flip;
            refused += usize::from(restore(&mut c, reseal(&corrupt)));
        }
    }
    assert!(refused > 0);
    assert_eq!(c.cmd("PING"), simple("PONG"));
    assert_eq!(c.cmd("BF.CARD t"), int(5));
}

#[test]
fn memory_usage_and_lazy_free() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE big 0.01 8000000 WINDOW"), ok());
    let size = c.cmd("BF.INFO big SIZE").array()[0].int();
    assert!(size > 19_000_000, "{size}");
    let usage = c.cmd("MEMORY USAGE big").int();
    assert!((size..size + 256).contains(&usage), "{usage} for {size}");
    let freed_before = info_field(&mut c, "memory", "lazyfreed_objects");
    assert_eq!(c.cmd("UNLINK big"), int(1));
    if !freed_before.is_empty() {
        wait_for("the lazy free", || {
            info_field(&mut c, "memory", "lazyfreed_objects") != freed_before
        });
    }
}
