//! A crash loses no acknowledged write: a server with `appendfsync always` takes a stream of
//! writes of every family (`common::mixed`) and is killed with SIGKILL while it is still
//! working through thousands of them. Restarted from its AOF, it holds exactly what a second
//! server holds after the acknowledged writes and the next ones in order: every acknowledged
//! write survives, every write the server made durable replays as it ran, and no write is torn.

mod common;

use common::mixed::{self, Clock};
use common::*;

/// Writes acknowledged before the crash, in batches of [`BATCH`], then a last batch of
/// [`IN_FLIGHT`] writes of which only the first replies are read before the kill.
const ACKNOWLEDGED: usize = 3000;
const BATCH: usize = 100;
const IN_FLIGHT: usize = 4000;

#[test]
fn a_killed_server_keeps_every_acknowledged_write_of_every_family() {
    let server = Server::with(Module::RedisBf)
        .arg("--appendonly yes --appendfsync always")
        .start();
    let mut c = server.conn();
    let mut stream = mixed::Stream::new(0xc4a5_4ed0, Clock::Ignored);
    let mut sent: Vec<Vec<String>> = Vec::new();
    let mut acknowledged = 0;
    // Whole batches, then one the server is still working through when it dies.
    while sent.len() < ACKNOWLEDGED + IN_FLIGHT {
        let last = sent.len() >= ACKNOWLEDGED;
        let size = if last { IN_FLIGHT } else { BATCH };
        let batch: Vec<Vec<String>> = (0..size).map(|_| stream.next_write()).collect();
        for cmd in &batch {
            c.send(&cmd.iter().map(|a| a.as_bytes()).collect::<Vec<_>>());
        }
        let read = if last { BATCH } else { size };
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
