//! What every value that forgets must do on a server, checked alike for each family that has
//! them (Count-Min sketches, Top-Ks): hold the primary's bytes on a replica and in the AOF
//! through writes made over real time, and refuse or wholly load a corrupt payload; and what
//! each adds to its family's memory total by its number of slots.

use std::thread::sleep;
use std::time::Duration;

use super::*;

/// A family's values that forget, as the shared checks see them.
pub struct Forgetting {
    /// Creates the keys a stream writes to, on a fresh server: `fast` (periods of a few
    /// milliseconds), `slow` and `count` (a count window), and any they merge from.
    pub create: fn(&mut Conn),
    /// One write of the stream to a key, at its `step`.
    pub step: fn(&mut Conn, &str, &mut Rng, step: u64),
    /// Creates a time window of a few hundred milliseconds, written once.
    pub created: fn(&mut Conn, &str),
    /// A script that writes `KEYS[1]` once.
    pub script: &'static str,
    /// Every key the stream leaves.
    pub keys: &'static [&'static str],
    /// A read of a key (its answers by the reader's clock).
    pub read: fn(&mut Conn, &str),
    /// A write of a key, on a primary and on a promoted replica alike.
    pub write: fn(&mut Conn, &str),
    /// Commands that make a small value that forgets, written a little, under key `w`.
    pub small: &'static [&'static str],
}

/// Writes spread over about a second to keys whose periods are a few milliseconds long, so
/// that a replica or an AOF applying them by its own clock would hold other bytes; a creation,
/// MULTI and a script included. Keys `created-<round>` are made.
fn stream(family: &Forgetting, c: &mut Conn, round: usize) {
    let mut rng = Rng(round as u64 + 1);
    for step in 0..40 {
        for key in ["fast", "slow", "count"] {
            (family.step)(c, key, &mut rng, step);
        }
        sleep(Duration::from_millis(rng.below(40)));
    }
    (family.created)(c, &format!("created-{round}"));
    c.cmd("MULTI");
    (family.write)(c, "fast");
    (family.write)(c, "count");
    c.cmd("EXEC");
    c.call(&["EVAL", family.script, "1", "fast"]);
}

fn same_bytes(m: &mut Conn, r: &mut Conn, keys: &[&str]) {
    assert_eq!(m.cmd("DEBUG DIGEST"), r.cmd("DEBUG DIGEST"));
    for key in keys {
        assert_eq!(m.call(&["DUMP", key]), r.call(&["DUMP", key]), "{key}");
    }
}

/// A replica, by full synchronisation and then by the stream, and the AOF replayed later
/// hold the primary's bytes; reads on the replica, by its own clock, change nothing; and once
/// the replica is promoted, the old primary, now its replica, holds what it writes.
pub fn replica_and_aof_hold_the_primarys_bytes(family: &Forgetting) {
    let master = Server::with_aof();
    let mut m = master.conn();
    (family.create)(&mut m);
    stream(family, &mut m, 0); // before the replica: reaches it by full sync
    let (replica, mut r) = Server::synced_replica_of(&master);
    same_bytes(&mut m, &mut r, family.keys);
    stream(family, &mut m, 1); // through the replication stream
    wait_in_sync(&mut m, &mut r);
    same_bytes(&mut m, &mut r, family.keys);
    let digest = r.cmd("DEBUG DIGEST");
    sleep(Duration::from_millis(300));
    for key in family.keys {
        (family.read)(&mut r, key);
    }
    assert_eq!(r.cmd("DEBUG DIGEST"), digest, "reads on the replica");
    drop(m);
    let master = master.restart();
    let mut m = master.conn();
    // The restarted primary (on a new port) replayed its AOF; the replica, cut off, still
    // holds what it had.
    same_bytes(&mut m, &mut r, family.keys);
    // Failover: the replica takes the writes, at its own clock, and the old primary follows.
    assert_eq!(r.cmd("REPLICAOF NO ONE"), ok());
    let follow = format!("REPLICAOF 127.0.0.1 {}", replica.port);
    assert_eq!(m.cmd(&follow), ok());
    wait_in_sync(&mut r, &mut m);
    for key in family.keys {
        (family.write)(&mut r, key);
    }
    wait_in_sync(&mut r, &mut m);
    same_bytes(&mut r, &mut m, family.keys);
}

/// Each byte of the family's small value's DUMP payload flipped (its checksum made right, so
/// the module reads it), and the payload cut short: RESTORE refuses it, or loads a value that
/// takes a write and a read and saves again; the server lives. (Not on Redis 6.0, which exits
/// on any refused RESTORE.)
pub fn corrupt_payloads_are_refused_or_load_whole(family: &Forgetting) {
    if !feature::survives_refused_restore() {
        return;
    }
    let server = Server::start();
    let c = &mut server.conn();
    for line in family.small {
        assert!(!c.cmd(line).is_error(), "{line}");
    }
    let (write, read) = (family.write, family.read);
    let payload = c.call(&["DUMP", "w"]).bulk();
    // Past the payload's type id and encoding, short of its RDB version and CRC.
    for at in 9..payload.len() - 10 {
        let mut corrupt = payload.clone();
        corrupt[at] ^= 0x5a;
        let len = corrupt.len();
        let crc = crc64(&corrupt[..len - 8]);
        corrupt[len - 8..].copy_from_slice(&crc.to_le_bytes());
        let reply = c.call_bytes(&[b"RESTORE", b"corrupt", b"0", &corrupt, b"REPLACE"]);
        if reply == ok() {
            write(c, "corrupt");
            read(c, "corrupt");
            assert!(!c.cmd("DUMP corrupt").is_error());
        } else {
            assert!(reply.is_error());
        }
    }
    let cut = &payload[..payload.len() - 20];
    assert!(c.call_bytes(&[b"RESTORE", b"cut", b"0", cut]).is_error());
    assert_eq!(c.cmd("PING"), simple("PONG"));
}

/// What each value adds to its family's memory total (the INFO field `metric`, a section and
/// a field name), by its number of slots: for each `(slots, bytes)`, `create` (a command and
/// its arguments, the key `m<slots>` put after the command) with `TIMESPAN 1000 SLOTS <slots>`,
/// or without them for 0 slots (a classic value), must add `bytes`.
pub fn assert_memory_by_slots(
    c: &mut Conn,
    metric: (&str, &str),
    create: &[&str],
    expected: &[(u32, i64)],
) {
    let total = |c: &mut Conn| info_field(c, metric.0, metric.1).parse::<i64>().unwrap();
    for &(slots, bytes) in expected {
        let before = total(c);
        let (key, slots_text) = (format!("m{slots}"), slots.to_string());
        let mut line = vec![create[0], &key];
        line.extend(&create[1..]);
        if slots != 0 {
            line.extend(["TIMESPAN", "1000", "SLOTS", &slots_text]);
        }
        assert_eq!(c.call(&line), ok());
        assert_eq!(total(c) - before, bytes, "{slots} slots");
    }
}
