//! Filters that forget beside RedisBloom (2.8.2, `$REDISBLOOM_SO`): it refuses their SCANDUMP
//! header, DUMP payload and RDB file, never mistaking one for a classic filter; and it
//! silently ignores `WINDOW` and `TIMESPAN` in BF.RESERVE (making a filter that never
//! forgets), which is why clients should check `TYPE` or `BF.INFO`'s `Window type`.
// matrix: no — it needs RedisBloom, which loads only into the redis-server it was built for.

mod common;

use common::bf::scandump;
use common::*;

#[test]
fn redisbloom_refuses_window_filters_cleanly() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    a.cmd("BF.RESERVE count 0.01 100 WINDOW");
    a.cmd("BF.MADD count x y z");
    a.cmd("BF.RESERVE time 0.01 100 TIMESPAN 60000");
    a.cmd("BF.MADD time x y z");
    for key in ["count", "time"] {
        let payload = a.call(&["DUMP", key]).bulk();
        assert_eq!(
            b.call_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload]),
            err("ERR Bad data format")
        );
        let chunks = scandump(&mut a, key);
        let (iter, header) = &chunks[0];
        let load = |b: &mut Conn, data: &[u8]| bf::loadchunk(b, key, *iter, data);
        assert_eq!(load(&mut b, header), err("ERR received bad data"));
        // Nor its first 20 bytes, which RedisBloom's header length would match.
        assert_eq!(load(&mut b, &header[..20]), err("ERR received bad data"));
    }
    assert_eq!(b.cmd("DBSIZE"), int(0));
    assert_eq!(b.cmd("PING"), simple("PONG"));
    // An RDB file holding one: RedisBloom's server refuses to start rather than misread it.
    assert_eq!(a.cmd("SAVE"), ok());
    drop(a);
    let dir = ours.shutdown();
    let refused = Server::with(Module::RedisBloom)
        .binary("redis-server")
        .dir(&dir)
        .try_start();
    let log = refused
        .err()
        .expect("RedisBloom must not load a window filter");
    assert!(log.contains("bf-window"), "{log}");
}

/// The hazard the README warns of: RedisBloom accepts the words and builds a classic filter.
#[test]
fn redisbloom_ignores_the_window_words_in_reserve() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    for line in [
        "BF.RESERVE w 0.01 1000 WINDOW",
        "BF.RESERVE t 0.01 1000 TIMESPAN 2000",
    ] {
        assert_eq!(b.cmd(line), ok(), "{line}");
        assert_eq!(a.cmd(line), ok(), "{line}");
    }
    for key in ["w", "t"] {
        assert_eq!(b.call(&["TYPE", key]), simple("MBbloom--"));
        assert_eq!(a.call(&["TYPE", key]), simple("bf-window"));
    }
    // BF.INSERT refuses them there, as an unknown option.
    assert_eq!(
        b.cmd("BF.INSERT i WINDOW ITEMS a"),
        err("Unknown argument received")
    );
}
