//! A crash loses no acknowledged write: a server with `appendfsync always` takes a stream of
//! writes of every family (`common::mixed`) and is killed with SIGKILL while writes are in
//! flight. Restarted from its AOF, it holds exactly what a second server holds after the
//! acknowledged writes and some of those that were in flight (a write the server had made
//! durable but not yet acknowledged may survive; no acknowledged one may be lost).

mod common;

use common::mixed::{self, Clock};
use common::*;

/// Writes acknowledged before the crash, in batches of [`BATCH`].
const ACKNOWLEDGED: usize = 3000;
const BATCH: usize = 100;

#[test]
fn a_killed_server_keeps_every_acknowledged_write_of_every_family() {
    let server = Server::with(Module::RedisBf)
        .arg("--appendonly yes --appendfsync always")
        .start();
    let mut c = server.conn();
    let mut stream = mixed::Stream::new(0xc4a5_4ed0, Clock::Ignored);
    let mut sent: Vec<Vec<String>> = Vec::new();
    let mut acknowledged = 0;
    // Whole batches, then one whose second half is still in flight when the server dies.
    while sent.len() < ACKNOWLEDGED + BATCH {
        let batch: Vec<Vec<String>> = (0..BATCH).map(|_| stream.next_write()).collect();
        for cmd in &batch {
            c.send(&cmd.iter().map(|a| a.as_bytes()).collect::<Vec<_>>());
        }
        let read = if sent.len() < ACKNOWLEDGED {
            BATCH
        } else {
            BATCH / 2
        };
        for cmd in &batch[..read] {
            mixed::expected_reply(cmd, c.read());
        }
        acknowledged = sent.len() + read;
        sent.extend(batch);
    }
    drop(c);
    let server = server.crash_and_restart();
    let recovered = mixed::snapshot(&mut server.conn());

    // The same writes on a server that never crashed, up to the acknowledged ones; then one
    // in-flight write at a time until it holds what the recovered server holds.
    let twin = Server::start();
    let mut t = twin.conn();
    for cmd in &sent[..acknowledged] {
        t.send(&cmd.iter().map(|a| a.as_bytes()).collect::<Vec<_>>());
    }
    for cmd in &sent[..acknowledged] {
        mixed::expected_reply(cmd, t.read());
    }
    // Only the whole database's digest is compared on the way: a DUMP of a t-digest counts as
    // a save, after which its next write merges its buffer first (docs/tdigest.md).
    let mut applied = acknowledged;
    while t.cmd("DEBUG DIGEST") != recovered.0 {
        assert!(
            applied < sent.len(),
            "the recovered server holds neither the acknowledged writes nor any in-flight \
             prefix of them; log:\n{}",
            server.log()
        );
        let cmd = &sent[applied];
        let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        mixed::expected_reply(cmd, t.call(&args));
        applied += 1;
    }
    assert!(
        mixed::snapshot(&mut t) == recovered,
        "every key, DUMP and digest alike"
    );
    eprintln!(
        "{acknowledged} acknowledged, {applied} recovered of {} sent",
        sent.len()
    );
}
