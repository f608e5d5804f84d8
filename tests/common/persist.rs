//! What every family must survive, checked alike: a snapshot of its keys — every answer,
//! digest and saved byte — that no way of saving, loading, replaying or replicating may change
//! ([`survives_every_move`]), so a family's suite states only its own facts.

use super::*;

/// Every answer a key of one family gives (`cms::answers`, `topk::answers`).
pub type Answers = fn(&mut Conn, &str) -> Vec<Value>;

/// The keys' answers, digests and DUMP payloads, after the database's size and digest.
pub fn snapshot(c: &mut Conn, keys: &[&str], answers: Answers) -> Vec<Value> {
    let mut seen = vec![c.cmd("DBSIZE"), c.cmd("DEBUG DIGEST")];
    for key in keys {
        seen.extend(answers(c, key));
        seen.push(c.call(&["DEBUG", "DIGEST-VALUE", key]));
        seen.push(c.call(&["DUMP", key]));
    }
    seen
}

/// The snapshot of `keys` on `server`, the same after `DEBUG RELOAD` and after a `SAVE` and a
/// restart. Returns the restarted server and the snapshot.
pub fn survives_reload_and_restart(
    server: Server,
    keys: &[&str],
    answers: Answers,
) -> (Server, Vec<Value>) {
    let mut c = server.conn();
    let before = snapshot(&mut c, keys, answers);
    assert_ne!(
        before[1],
        Value::Simple("0".repeat(40)),
        "the digest sees the keys"
    );
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    assert_eq!(snapshot(&mut c, keys, answers), before, "DEBUG RELOAD");
    assert_eq!(c.cmd("SAVE"), ok());
    drop(c);
    let server = server.restart();
    assert_eq!(
        snapshot(&mut server.conn(), keys, answers),
        before,
        "restart"
    );
    (server, before)
}

/// Each key DUMPed and RESTOREd beside itself: the same answers and the same payload. Where
/// the server has COPY, each key copied too: the same answers and digest, and once `write`
/// has changed the copy, a digest of its own.
pub fn restores_and_copies(
    c: &mut Conn,
    keys: &[&str],
    answers: Answers,
    write: fn(&mut Conn, &str),
) {
    let digest = |c: &mut Conn, key: &str| c.call(&["DEBUG", "DIGEST-VALUE", key]);
    for key in keys {
        let payload = c.call(&["DUMP", key]).bulk();
        let restored = format!("{key}-restored");
        assert_eq!(
            c.call_bytes(&[b"RESTORE", restored.as_bytes(), b"0", &payload]),
            ok()
        );
        assert_eq!(answers(c, &restored), answers(c, key), "{key}");
        assert_eq!(c.call(&["DUMP", &restored]).bulk(), payload, "{key}");
        if feature::copy_and_module_events() {
            let copied = format!("{key}-copied");
            assert_eq!(c.call(&["COPY", key, &copied]), int(1));
            assert_eq!(answers(c, &copied), answers(c, key), "{key}");
            assert_eq!(digest(c, &copied), digest(c, key), "{key}");
            let original = answers(c, key);
            write(c, &copied);
            assert_ne!(
                digest(c, &copied),
                digest(c, key),
                "{key}: the copy is its own"
            );
            assert_eq!(answers(c, key), original, "{key}: a write to its copy");
        }
    }
}

/// A family as the shared checks see it.
pub struct Family {
    /// Writes the family's keys on a fresh server, and names them.
    pub build: fn(&mut Conn) -> Vec<&'static str>,
    /// Every answer a key gives.
    pub answers: Answers,
    /// A write that changes a key.
    pub write: fn(&mut Conn, &str),
}

/// Every way a server saves, loads, replays and replicates values keeps the family's keys as
/// they were: `DEBUG RELOAD`, `SAVE` and a restart, the AOF replayed as the commands wrote it,
/// its rewrite with and without an RDB preamble and writes after it (and `DEBUG LOADAOF`),
/// `DUMP`/`RESTORE` and `COPY`, and a replica by full synchronisation and then by the stream
/// of later writes.
pub fn survives_every_move(family: &Family) {
    let server = Server::start();
    let keys = (family.build)(&mut server.conn());
    let (server, _) = survives_reload_and_restart(server, &keys, family.answers);
    restores_and_copies(&mut server.conn(), &keys, family.answers, family.write);
    for preamble in ["yes", "no"] {
        let server = Server::with(Module::RedisBf)
            .arg(&format!(
                "--appendonly yes --aof-use-rdb-preamble {preamble}"
            ))
            .start();
        let mut c = server.conn();
        (family.build)(&mut c);
        // Compared with what this server held: a family's values may depend on when they
        // were made (a time window), which its AOF carries.
        let built = snapshot(&mut c, &keys, family.answers);
        drop(c);
        let server = server.restart();
        let mut c = server.conn();
        let replayed = snapshot(&mut c, &keys, family.answers);
        assert_eq!(replayed, built, "the AOF replayed, preamble {preamble}");
        rewrite_aof(&mut c);
        drop(c);
        let server = server.restart();
        let mut c = server.conn();
        let rewritten = snapshot(&mut c, &keys, family.answers);
        assert_eq!(rewritten, built, "the AOF rewritten, preamble {preamble}");
        // Writes after a rewrite go to the incremental part, replayed after the base.
        for key in &keys {
            (family.write)(&mut c, key);
        }
        let written = snapshot(&mut c, &keys, family.answers);
        drop(c);
        let server = server.restart();
        let mut c = server.conn();
        let replayed = snapshot(&mut c, &keys, family.answers);
        assert_eq!(
            replayed, written,
            "base and increments, preamble {preamble}"
        );
        assert_eq!(c.cmd("DEBUG LOADAOF"), ok());
        let reloaded = snapshot(&mut c, &keys, family.answers);
        assert_eq!(reloaded, written, "DEBUG LOADAOF, preamble {preamble}");
    }
    replica_holds_the_same_keys(family, &keys);
}

/// A replica synchronised from a primary holding the keys, then fed `write` on each: every
/// key's answers and DUMP payload are the primary's.
fn replica_holds_the_same_keys(family: &Family, keys: &[&str]) {
    let primary = Server::start();
    let mut p = primary.conn();
    (family.build)(&mut p);
    let (_replica, mut r) = Server::synced_replica_of(&primary);
    for key in keys {
        (family.write)(&mut p, key);
    }
    wait_in_sync(&mut p, &mut r);
    for key in keys {
        assert_eq!(
            (family.answers)(&mut r, key),
            (family.answers)(&mut p, key),
            "{key}"
        );
        assert_eq!(r.call(&["DUMP", key]), p.call(&["DUMP", key]), "{key}");
    }
}
