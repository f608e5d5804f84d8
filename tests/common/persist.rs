//! What the sketch families' persistence tests check alike: a snapshot of their keys — every
//! answer, digest and saved byte — that no way of saving and loading may change, and DUMP /
//! RESTORE and COPY of each key.

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
    assert_ne!(before[1], bulk(&[b'0'; 40]), "the digest sees the keys");
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
            write(c, &copied);
            assert_ne!(
                digest(c, &copied),
                digest(c, key),
                "{key}: the copy is its own"
            );
        }
    }
}
