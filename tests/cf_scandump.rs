//! CF.SCANDUMP and CF.LOADCHUNK byte for byte as RedisBloom sends and takes them: the
//! documented stream, round trips, every refusal of bad input (which changes nothing), and
//! hostile streams (RedisBloom 8's `src/rebloom.c` and its `tests/flow/test_cuckoo.py`).

mod common;

use common::*;

#[test]
fn scandump_and_loadchunk_round_trip() {
    let (_server, mut c) = Server::start_with_conn();
    // The documented example: header, then the one 8-byte sub-filter.
    c.cmd("CF.RESERVE cf 8");
    c.cmd("CF.ADD cf item1");
    let header = [
        1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0,
        0, 0, 2, 0, 20, 0, 1, 0,
    ];
    assert_eq!(
        c.cmd("CF.SCANDUMP cf 0"),
        Value::Array(vec![int(1), bulk(&header)])
    );
    // Any iterator inside a small sub-filter returns all of it.
    for (iter, next) in [(1, 9), (4, 12), (8, 16)] {
        assert_eq!(
            c.call(&["CF.SCANDUMP", "cf", &iter.to_string()]),
            Value::Array(vec![int(next), bulk(&[0, 0, 0, 0, 7, 0, 0, 0])])
        );
    }
    for iter in ["9", "100", "9223372036854775807"] {
        assert_eq!(
            c.call(&["CF.SCANDUMP", "cf", iter]),
            Value::Array(vec![int(0), Value::Nil])
        );
    }
    for iter in ["-1", "x", "1.0", "9223372036854775808"] {
        assert_eq!(
            c.call(&["CF.SCANDUMP", "cf", iter]),
            err("Invalid position"),
            "{iter}"
        );
        assert_eq!(
            c.call(&["CF.SCANDUMP", "missing", iter]),
            err("Invalid position")
        );
    }
    // A filter with no items dumps nothing.
    c.cmd("CF.RESERVE empty 62");
    assert_eq!(
        c.cmd("CF.SCANDUMP empty 0"),
        Value::Array(vec![int(0), Value::Nil])
    );
    // test_scandump_with_expansion: several sub-filters, restored item for item.
    c.cmd("CF.RESERVE src 62 EXPANSION 2");
    send_numbered(&mut c, "CF.ADD", "src", "", 500);
    let chunks = cf::scandump(&mut c, "src");
    assert!(chunks.len() > 3, "{}", chunks.len());
    cf::loadchunks(&mut c, "dst", &chunks);
    assert_eq!(c.cmd("CF.INFO dst"), c.cmd("CF.INFO src"));
    assert_eq!(c.cmd("CF.DEBUG dst"), c.cmd("CF.DEBUG src"));
    assert_eq!(cf::scandump(&mut c, "dst"), chunks);
    assert_eq!(
        c.cmd("DEBUG DIGEST-VALUE dst"),
        c.cmd("DEBUG DIGEST-VALUE src")
    );
    for i in 0..500 {
        assert_eq!(c.call(&["CF.EXISTS", "dst", &i.to_string()]), int(1));
    }
}

#[test]
fn loadchunk_refuses_bad_input_and_changes_nothing() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("CF.RESERVE cf 100");
    send_numbered(&mut c, "CF.ADD", "cf", "foo", 50);
    let header = c.cmd("CF.SCANDUMP cf 0").array()[1].bulk();
    let load = |c: &mut Conn, key: &str, iter: &str, data: &[u8]| {
        c.call_bytes(&[b"CF.LOADCHUNK", key.as_bytes(), iter.as_bytes(), data])
    };
    for iter in ["0", "x", "1.5", ""] {
        assert_eq!(
            load(&mut c, "new", iter, &header),
            err("Invalid position"),
            "{iter}"
        );
    }
    assert_eq!(
        load(&mut c, "new", "1", &header[..37]),
        err("Invalid header")
    );
    assert_eq!(
        load(&mut c, "new", "1", &[header.clone(), vec![0; 8]].concat()),
        err("Invalid header")
    );
    assert_eq!(load(&mut c, "cf", "1", &header), err("ERR item exists"));
    // test_scandump_invalid_header: the first 9 bytes zeroed.
    let mut zeroed = header.clone();
    zeroed[..9].fill(0);
    assert_eq!(
        load(&mut c, "new", "1", &zeroed),
        err("Couldn't create filter!")
    );
    // test_scandump_invalid_header_alloc: 2^48 buckets.
    let mut huge = header.clone();
    huge[8..13].fill(0);
    huge[14] = 1;
    assert_eq!(
        load(&mut c, "new", "1", &huge),
        err("Couldn't create filter!")
    );
    let field = |h: &[u8], at: usize, value: u64, width: usize| {
        let mut h = h.to_vec();
        h[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
        h
    };
    for (bad, why) in [
        (field(&header, 8, 3, 8), "3 buckets"),
        (field(&header, 24, 0, 8), "no sub-filters"),
        (field(&header, 24, 65537, 8), "65537 sub-filters"),
        (field(&header, 32, 0, 2), "bucket size 0"),
        (field(&header, 32, 256, 2), "bucket size 256"),
        (field(&header, 34, 0, 2), "no iterations"),
        (field(&header, 36, 32769, 2), "expansion 32769"),
        (
            field(&field(&header, 24, 2, 8), 36, 0, 2),
            "expansion 0 with 2 sub-filters",
        ),
        (
            field(&field(&header, 24, 65535, 8), 8, 1 << 40, 8),
            "65535 sub-filters of 2^40",
        ),
    ] {
        assert_eq!(
            load(&mut c, "new", "1", &bad),
            err("Couldn't create filter!"),
            "{why}"
        );
    }
    assert_eq!(c.cmd("EXISTS new"), int(0));
    // Data chunks: test_scandump_invalid.
    c.cmd("CF.RESERVE small 4");
    c.cmd("CF.ADD small x");
    let before = c.cmd("CF.SCANDUMP small 1");
    for (iter, data) in [
        ("-9223372036854775808", &b"1"[..]),
        ("922337203685477588", b"1"),
        ("9223372036854775807", b"abcd"),
        ("4", b"kdoasdksaodsadsadsadsadsadadsadadsdad"),
        ("4", b"abcd"),
        ("-1", b"ab"),
        ("2", b"ab"),
        ("5", b""),
        ("9", b"abcd"),
        ("6", b"abcd"),
    ] {
        assert_eq!(
            load(&mut c, "small", iter, data),
            err("Couldn't load chunk!"),
            "{iter}"
        );
    }
    assert_eq!(
        c.cmd("CF.SCANDUMP small 1"),
        before,
        "failed chunks wrote nothing"
    );
    assert_eq!(
        load(&mut c, "small", "5", b"abcd"),
        ok(),
        "any bytes are taken"
    );
    assert_eq!(
        c.cmd("CF.SCANDUMP small 1"),
        Value::Array(vec![int(5), bulk(b"abcd")])
    );
    assert_eq!(c.cmd("PING"), simple("PONG"));
}

#[test]
fn hostile_scandump_and_loadchunk_streams_do_no_harm() {
    let (_server, mut c) = Server::start_with_conn();
    // test_scandump_random_scan_small and test_scandump_load_small.
    c.cmd("CF.RESERVE cf 50");
    let replies = cf::insert_all(
        &mut c,
        "CF.INSERT",
        "cf",
        (0..2000).map(|i| format!("x{i}")),
    );
    assert_eq!(replies.array().len(), 2000);
    let size = c.cmd("CF.INFO cf").array()[1].int();
    for i in 0..size + 1024 {
        let reply = c.call(&["CF.SCANDUMP", "cf", &i.to_string()]);
        assert_eq!(reply.array().len(), 2);
    }
    let mut rng = Rng(0x5eed);
    for _ in 0..size + 100 {
        let len = rng.below(101) as usize;
        let blob: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let iter = rng.below(10_001).to_string();
        let reply = c.call_bytes(&[b"CF.LOADCHUNK", b"cf", iter.as_bytes(), &blob]);
        assert!(
            reply == ok()
                || [
                    err("Couldn't load chunk!"),
                    err("Invalid position"),
                    err("ERR item exists")
                ]
                .contains(&reply),
            "{reply:?}"
        );
    }
    // Whatever was written, every command still works on the filter.
    for line in [
        "CF.ADD cf probe",
        "CF.DEL cf probe",
        "CF.COMPACT cf",
        "CF.INFO cf",
        "CF.COUNT cf x1",
    ] {
        c.cmd(line);
    }
    // Random headers: refused or a consistent, usable filter.
    for _ in 0..300 {
        let mut header: Vec<u8> = (0..38).map(|_| rng.next() as u8).collect();
        // Mostly plausible fields, so that some pass the checks.
        header[8..16].copy_from_slice(&(1u64 << rng.below(12)).to_le_bytes());
        header[24..32].copy_from_slice(&(1 + rng.below(4)).to_le_bytes());
        header[32..34].copy_from_slice(&(rng.below(6) as u16).to_le_bytes());
        header[36..38].copy_from_slice(&(rng.below(8) as u16).to_le_bytes());
        let reply = c.call_bytes(&[b"CF.LOADCHUNK", b"h", b"1", &header]);
        if reply == ok() {
            c.cmd("CF.ADD h x");
            c.cmd("CF.INSERT h ITEMS a b c");
            c.cmd("CF.DEL h a");
            c.cmd("CF.COMPACT h");
            cf::scandump(&mut c, "h");
            c.cmd("DEL h");
        } else {
            assert_eq!(reply, err("Couldn't create filter!"));
        }
    }
    assert_eq!(c.cmd("PING"), simple("PONG"));
}
