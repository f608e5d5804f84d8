//! Differential tests against RedisBloom's own module: a server of each, and what moving
//! filters between them must preserve.

use super::{int, ok, rewrite_aof, Conn, Module, Server, ServerBuilder, Value};

/// A redis-bf server and a RedisBloom server for differential tests, both Debian's
/// redis-server (RedisBloom 2.8.2 loads into 7.0), whatever server the rest of the suite runs
/// on.
pub fn start_pair() -> (Server, Server) {
    (
        peer(Module::RedisBf).start(),
        peer(Module::RedisBloom).start(),
    )
}

/// A server of `module` beside RedisBloom 2.8.2: Debian's redis-server, and redis-bf writing
/// the Count-Min encoding that RedisBloom before 8.12 reads (`cms-rdb-encoding 0`).
pub fn peer(module: Module) -> ServerBuilder {
    let ours = matches!(module, Module::RedisBf);
    let builder = Server::with(module).binary("redis-server");
    if ours {
        builder.setting("cms-rdb-encoding", "0")
    } else {
        builder
    }
}

/// Sends `commands` (a suite's random stream) to the primary `p`, waits until its replica `r`
/// has applied them, and fails unless the replica holds the primary's `DUMP` bytes at every
/// key of `keys`: the check of every suite whose primary and replica run different modules.
pub fn replica_holds_the_same_bytes(
    p: &mut Conn,
    r: &mut Conn,
    commands: impl IntoIterator<Item = Vec<Vec<u8>>>,
    keys: impl IntoIterator<Item = String>,
) {
    for cmd in commands {
        let args: Vec<&[u8]> = cmd.iter().map(Vec::as_slice).collect();
        p.call_bytes(&args);
    }
    super::wait_in_sync(p, r);
    for key in keys {
        assert_eq!(p.call(&["DUMP", &key]), r.call(&["DUMP", &key]), "{key}");
    }
}

/// Runs `check(from, to)` with RedisBloom (`b`) as the source, then with redis-bf (`a`), on
/// emptied servers.
pub fn both_ways(a: &mut Conn, b: &mut Conn, mut check: impl FnMut(&mut Conn, &mut Conn)) {
    for redisbloom_first in [true, false] {
        let (from, to) = if redisbloom_first {
            (&mut *b, &mut *a)
        } else {
            (&mut *a, &mut *b)
        };
        from.cmd("FLUSHALL");
        to.cmd("FLUSHALL");
        check(from, to);
    }
}

/// [`both_ways`] on a new pair of servers ([`start_pair`]), for the checks that need no other
/// connection to them.
pub fn both_ways_on_new_pair(check: impl FnMut(&mut Conn, &mut Conn)) {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    both_ways(&mut a, &mut b, check);
}

/// The filters a differential test builds and what it compares of them, for one family.
pub struct Fixture {
    /// Builds the same filters on any server and names their keys.
    pub build: fn(&mut Conn) -> Vec<&'static str>,
    /// What a filter answers (its INFO and lookups), the same on both modules.
    pub answers: fn(&mut Conn, &str) -> Vec<Value>,
}

impl Fixture {
    /// Each filter, moved by DUMP and RESTORE from RedisBloom to redis-bf and back, answers
    /// the same, dumps the same bytes and reports the same size.
    pub fn moves_both_ways_by_dump_and_restore(&self) {
        both_ways_on_new_pair(|from, to| {
            for key in (self.build)(from) {
                let payload = from.call(&["DUMP", key]).bulk();
                assert_eq!(
                    to.call_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload]),
                    ok()
                );
                assert_eq!((self.answers)(to, key), (self.answers)(from, key), "{key}");
                assert_eq!(
                    to.call(&["DUMP", key]).bulk(),
                    payload,
                    "{key}: the same RDB bytes"
                );
                assert_eq!(
                    to.call(&["MEMORY", "USAGE", key]),
                    from.call(&["MEMORY", "USAGE", key]),
                    "{key}"
                );
            }
        });
    }

    /// Starts a server of `writer`, builds the filters, persists them as `how` ("rdb", or
    /// "aof" without an RDB preamble, so the writer's AOF rewrite is replayed), and starts a
    /// server of `reader` on the files: each filter answers as it did.
    pub fn files_move(&self, writer: Module, reader: Module, how: &str) {
        self.files_move_between(peer(writer), peer(reader), how);
    }

    /// [`files_move`](Fixture::files_move) as RDB and as AOF, from redis-bf to RedisBloom and
    /// back.
    pub fn files_move_both_ways(&self) {
        for how in ["rdb", "aof"] {
            self.files_move(Module::RedisBf, Module::RedisBloom, how);
            self.files_move(Module::RedisBloom, Module::RedisBf, how);
        }
    }

    /// [`files_move`](Fixture::files_move) between servers `writer` and `reader` builds.
    pub fn files_move_between(&self, writer: ServerBuilder, reader: ServerBuilder, how: &str) {
        let persisted = |builder: ServerBuilder| match how {
            "aof" => builder.arg("--appendonly yes --aof-use-rdb-preamble no"),
            _ => builder,
        };
        let source = persisted(writer).start();
        let mut s = source.conn();
        let keys = (self.build)(&mut s);
        let expected: Vec<Vec<Value>> = keys.iter().map(|k| (self.answers)(&mut s, k)).collect();
        if how == "aof" {
            rewrite_aof(&mut s);
        } else {
            assert_eq!(s.cmd("SAVE"), ok());
        }
        drop(s);
        let dir = source.shutdown();
        let target = persisted(reader.dir(&dir)).start();
        let mut t = target.conn();
        assert_eq!(t.cmd("DBSIZE"), int(keys.len() as i64), "{}", target.log());
        for (key, expected) in keys.iter().zip(expected) {
            assert_eq!((self.answers)(&mut t, key), expected, "{key} by {how}");
        }
    }
}

/// Whether our reply is RedisBloom's, or differs only by one of the known `differences`
/// between error texts: (ours, RedisBloom 2.8.2's).
pub fn same_or_expected(ours: &Value, theirs: &Value, differences: &[(&str, &str)]) -> bool {
    ours == theirs
        || matches!((ours, theirs), (Value::Error(a), Value::Error(b))
            if differences.iter().any(|(x, y)| a == x && b == y))
}

/// Connections to both servers for the random stream of `seed`: RESP3 for even seeds, RESP2
/// for odd ones, and the words that name the stream in a failure.
pub fn conns_for_seed(ours: &Server, theirs: &Server, seed: u64) -> (Conn, Conn, String) {
    let resp3 = seed.is_multiple_of(2);
    let context = format!("seed {seed}, RESP{}", if resp3 { 3 } else { 2 });
    if resp3 {
        (ours.conn().resp3(), theirs.conn().resp3(), context)
    } else {
        (ours.conn(), theirs.conn(), context)
    }
}

/// [`conns_for_seed`] on emptied servers that hold `str`, the key of another type every random
/// stream sends commands to.
pub fn conns_for_stream(ours: &Server, theirs: &Server, seed: u64) -> (Conn, Conn, String) {
    let (mut a, mut b, context) = conns_for_seed(ours, theirs, seed);
    for c in [&mut a, &mut b] {
        c.cmd("FLUSHALL");
        c.cmd("SET str x");
    }
    (a, b, context)
}

/// Runs `cmd` on both servers and checks the replies are the same, or differ only by one of
/// the known `differences` (see [`same_or_expected`]); returns both.
pub fn both(
    a: &mut Conn,
    b: &mut Conn,
    cmd: &[Vec<u8>],
    context: &str,
    differences: &[(&str, &str)],
) -> (Value, Value) {
    let args: Vec<&[u8]> = cmd.iter().map(Vec::as_slice).collect();
    let (mine, reference) = (a.call_bytes(&args), b.call_bytes(&args));
    let shown: Vec<String> = cmd
        .iter()
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    assert!(
        same_or_expected(&mine, &reference, differences),
        "{context}: {shown:?}\n ours:   {mine:?}\n theirs: {reference:?}"
    );
    (mine, reference)
}

/// Each of `lines` makes a value of redis-bf's own kind (one that forgets) under key `k`:
/// RedisBloom answers it with an arity error and makes nothing, never silently a value of its
/// own kind, and cannot RESTORE what redis-bf made of it.
pub fn redisbloom_refuses(lines: &[&str]) {
    let (ours, theirs) = start_pair();
    let (mut o, mut t) = (ours.conn(), theirs.conn());
    for line in lines {
        assert_eq!(t.cmd(line), super::arity_error(line), "{line}");
        assert_eq!(t.cmd("EXISTS k"), int(0));
        assert_eq!(o.cmd(line), ok(), "{line}");
        let payload = o.cmd("DUMP k").bulk();
        assert!(t.call_bytes(&[b"RESTORE", b"k", b"0", &payload]).is_error());
        assert_eq!(o.cmd("DEL k"), int(1));
    }
}
