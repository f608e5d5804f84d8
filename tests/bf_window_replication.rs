//! A replica holds the same window filters as its primary, bit for bit, after a full sync and
//! through a stream of time-window writes made over real time: each write reaches it carrying
//! the time the primary used, and each new filter its shape as the primary chose it. Reads on
//! the replica go by its own clock and change nothing.

mod common;

use common::*;

/// Writes spread over about a second, so that a replica applying them by its own clock would
/// open other generations than the primary did.
fn time_window_stream(c: &mut Conn, round: usize) {
    for step in 0..8 {
        let items: Vec<String> = (0..40).map(|i| format!("r{round}-s{step}-{i}")).collect();
        let mut madd = vec!["BF.MADD", "time"];
        madd.extend(items.iter().map(String::as_str));
        c.call(&madd);
        c.call(&["BF.ADD", "short", &format!("r{round}-s{step}")]);
        c.call(&["BF.INSERT", "count", "ITEMS", &format!("r{round}-s{step}")]);
        std::thread::sleep(std::time::Duration::from_millis(120));
    }
    c.cmd("BF.ADD time r0-s0-0"); // renewed
    c.call(&[
        "BF.INSERT",
        &format!("created-{round}"),
        "CAPACITY",
        "50",
        "TIMESPAN",
        "400",
        "ITEMS",
        "a",
        "b",
    ]);
    // MULTI and scripts replicate the time of each command.
    c.cmd("MULTI");
    c.cmd("BF.ADD short in-multi");
    c.cmd("BF.MADD time in-multi x");
    c.cmd("EXEC");
    let script = "return redis.call('BF.ADD', KEYS[1], ARGV[1])";
    c.call(&["EVAL", script, "1", "short", "in-script"]);
}

const KEYS: [&str; 3] = ["time", "short", "count"];

fn same_on_both(m: &mut Conn, r: &mut Conn, keys: &[&str]) {
    wait_in_sync(m, r);
    assert_eq!(m.cmd("DEBUG DIGEST"), r.cmd("DEBUG DIGEST"));
    for key in keys {
        assert_eq!(
            m.call(&["DEBUG", "DIGEST-VALUE", key]),
            r.call(&["DEBUG", "DIGEST-VALUE", key]),
            "{key}"
        );
        assert_eq!(m.call(&["DUMP", key]), r.call(&["DUMP", key]), "{key}");
    }
}

#[test]
fn replica_holds_the_primarys_bytes_through_a_time_window_stream() {
    let master = Server::start();
    let mut m = master.conn();
    assert_eq!(m.cmd("BF.RESERVE time 0.01 300 TIMESPAN 1000"), ok());
    assert_eq!(m.cmd("BF.RESERVE short 0.01 100 TIMESPAN 250"), ok());
    assert_eq!(m.cmd("BF.RESERVE count 0.001 100 WINDOW"), ok());
    time_window_stream(&mut m, 0); // before the replica: reaches it by full sync
    let replica = Server::replica_of(&master);
    let mut r = replica.conn();
    same_on_both(&mut m, &mut r, &KEYS);
    time_window_stream(&mut m, 1); // through the replication stream
    m.cmd("BF.RESERVE late 0.01 1000000 TIMESPAN 5000");
    m.cmd("BF.ADD late x");
    let mut keys = KEYS.to_vec();
    keys.extend(["created-0", "created-1", "late"]);
    same_on_both(&mut m, &mut r, &keys);
    assert_eq!(r.cmd("TYPE late"), simple("bf-window"));
    assert_eq!(r.cmd("BF.INFO late"), m.cmd("BF.INFO late"));
    // Reads on the replica change nothing there either.
    let digest = r.cmd("DEBUG DIGEST");
    for key in keys.iter() {
        r.call(&["BF.EXISTS", key, "x"]);
        r.call(&["BF.CARD", key]);
        r.call(&["BF.INFO", key]);
        r.call(&["BF.SCANDUMP", key, "0"]);
    }
    assert_eq!(r.cmd("DEBUG DIGEST"), digest);
    assert!(r.cmd("BF.ADD time x").text().starts_with("READONLY"));
}

/// The replicated time is refused from a client even on a replica that accepts writes, and
/// from the primary's clients; only the replication stream and the AOF carry it.
#[test]
fn the_replicated_time_is_refused_from_clients() {
    let master = Server::start();
    let mut m = master.conn();
    m.cmd("BF.RESERVE time 0.01 100 TIMESPAN 1000");
    let replica = Server::with(Module::RedisBf)
        .replica_of(&master)
        .arg("--replica-read-only no")
        .start();
    let mut r = replica.conn();
    wait_in_sync(&mut m, &mut r);
    let refused = err("ERR AT is accepted only from the primary's replication stream or the AOF");
    assert_eq!(
        m.cmd("BF.INSERT time NOCREATE AT 99999999999999 ITEMS a"),
        refused
    );
    assert_eq!(
        r.cmd("BF.INSERT time NOCREATE AT 99999999999999 ITEMS a"),
        refused
    );
    same_on_both(&mut m, &mut r, &["time"]);
}
