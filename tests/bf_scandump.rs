//! BF.SCANDUMP and BF.LOADCHUNK byte for byte as RedisBloom sends and takes them, in RESP2
//! and RESP3: the documented stream, round trips, and every refusal of bad input, which
//! changes nothing (RedisBloom 8's `src/rebloom.c` and its `tests/flow` suites).

mod common;

use common::*;

#[test]
fn scandump_matches_the_documented_example() {
    let server = Server::start();
    for mut c in [server.conn(), server.conn().resp3()] {
        c.cmd("DEL bf");
        c.cmd("BF.RESERVE bf 0.1 10");
        c.cmd("BF.ADD bf item1");
        let header = b"\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x02\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x9a\x99\x99\x99\x99\x99\xa9?J\xf7\xd4\x9e\xde\xf0\x18@\x05\x00\x00\x00\n\x00\x00\x00\x00\x00\x00\x00\x00";
        let end = Value::Array(vec![int(0), bulk(b"")]);
        for (iter, reply) in [
            ("0", Value::Array(vec![int(1), bulk(header)])),
            (
                "1",
                Value::Array(vec![int(9), bulk(b"\x01\x08\x00\x80\x00\x04 \x00")]),
            ),
            ("9", end.clone()),
            ("-3", end.clone()),
            ("100", end),
            ("x", err("Second argument must be numeric")),
        ] {
            let scanned = c.call(&["BF.SCANDUMP", "bf", iter]);
            assert_eq!(scanned, reply, "BF.SCANDUMP bf {iter}");
        }
    }
}

#[test]
fn scandump_and_loadchunk_round_trip() {
    let (server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE src 0.001 50 EXPANSION 2");
    send_numbered(&mut c, "BF.ADD", "src", "member", 500);
    let mut d = server.conn();
    bf::loadchunks(&mut d, "dst", &bf::scandump(&mut c, "src"));
    assert_eq!(
        c.cmd("DEBUG DIGEST-VALUE src"),
        c.cmd("DEBUG DIGEST-VALUE dst")
    );
    assert_eq!(c.cmd("BF.INFO src"), c.cmd("BF.INFO dst"));
    for i in 0..500 {
        assert_eq!(c.call(&["BF.EXISTS", "dst", &format!("member{i}")]), int(1));
    }
}

#[test]
fn loadchunk_rejects_bad_input_and_changes_nothing() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE bf 0.1 10");
    c.cmd("BF.ADD bf item1");
    let header = c.cmd("BF.SCANDUMP bf 0").array()[1].bulk();
    assert_eq!(
        c.cmd("BF.LOADCHUNK x abc data"),
        err("ERR Second argument must be numeric")
    );
    assert_eq!(c.cmd("BF.LOADCHUNK x 9 data"), err("ERR not found"));
    assert_eq!(
        c.call_bytes(&[b"BF.LOADCHUNK", b"x", b"1", b"garbage"]),
        err("ERR received bad data")
    );
    assert_eq!(
        c.call_bytes(&[b"BF.LOADCHUNK", b"x", b"1", &header[..header.len() - 1]]),
        err("ERR received bad data")
    );
    // RedisBloom's test_scandump_invalid_header_alloc: `bytes` and `bits` inflated together,
    // consistent with each other but far beyond what the capacity and error rate imply.
    c.cmd("BF.RESERVE small 0.01 5");
    send_numbered(&mut c, "BF.ADD", "small", "foo", 50);
    let mut inflated = c.cmd("BF.SCANDUMP small 0").array()[1].bulk();
    inflated[27] = 0x03;
    inflated[35] = 0x18;
    assert_eq!(
        c.call_bytes(&[b"BF.LOADCHUNK", b"x", b"1", &inflated]),
        err("ERR received bad data")
    );
    // Every corruption of one byte of the header is refused or yields a consistent filter.
    for i in 0..header.len() {
        let mut corrupt = header.clone();
        corrupt[i] ^= 0x40;
        let reply = c.call_bytes(&[b"BF.LOADCHUNK", b"fuzz", b"1", &corrupt]);
        assert!(
            reply == ok()
                || reply == err("ERR received bad data")
                || reply == err("ERR Insufficient memory to create filter"),
            "{reply:?}"
        );
        c.cmd("DEL fuzz");
    }
    assert_eq!(c.call_bytes(&[b"BF.LOADCHUNK", b"y", b"1", &header]), ok());
    // Iterator 1 on an existing key takes the chunk path, as in RedisBloom.
    assert_eq!(
        c.call_bytes(&[b"BF.LOADCHUNK", b"y", b"1", &header]),
        err("ERR received bad data")
    );
    expect_replies(
        &mut c,
        "
            BF.LOADCHUNK y 0 x -> (error) ERR received bad data
            BF.LOADCHUNK y -5 x -> (error) ERR received bad data
            BF.LOADCHUNK y 3 abcd -> (error) ERR received bad data
            BF.LOADCHUNK y 4 abcd -> (error) ERR invalid offset - no link found
            BF.LOADCHUNK y 100 abcd -> (error) ERR invalid offset - no link found
            BF.LOADCHUNK y 10 123456789 -> (error) ERR invalid chunk - Too big for current filter
        ",
    );
    assert_eq!(
        c.cmd("BF.SCANDUMP y 1").array()[1],
        bulk(&[0; 8]),
        "failed chunks wrote nothing"
    );
    assert_eq!(
        c.call_bytes(&[
            b"BF.LOADCHUNK",
            b"y",
            b"9",
            b"\x01\x08\x00\x80\x00\x04 \x00"
        ]),
        ok()
    );
    assert_eq!(c.cmd("BF.EXISTS y item1"), int(1));
}
