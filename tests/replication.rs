//! A replica holds the same filters as its master, bit for bit: after a full sync (RDB,
//! disk-based and diskless) and through the verbatim stream of every write command, Bloom and
//! Cuckoo (CF.LOADCHUNK data chunks included, which RedisBloom before 8.10 did not replicate).

mod common;

use common::*;

fn writes(c: &mut Conn) {
    c.cmd("BF.RESERVE r 0.01 10 EXPANSION 2");
    send_numbered(c, "BF.ADD", "r", "i", 100);
    c.cmd("BF.MADD m a b c");
    c.cmd("BF.INSERT n CAPACITY 2 NONSCALING ITEMS a b c");
    // A filter copied over by SCANDUMP/LOADCHUNK.
    let chunks = bf::scandump(c, "r");
    bf::loadchunks(c, "loaded", &chunks);
    c.cmd("CF.RESERVE cf 8 EXPANSION 2");
    send_numbered(c, "CF.ADD", "cf", "i", 100);
    c.cmd("CF.INSERTNX cfn ITEMS a b a");
    let chunks = cf::scandump(c, "cf");
    cf::loadchunks(c, "cf-loaded", &chunks);
}

/// Cuckoo writes after the sync: each kind, including those that change nothing visible.
fn cuckoo_writes(c: &mut Conn) {
    for i in 0..40 {
        c.call(&["CF.DEL", "cf", &format!("i{i}")]); // compacts along the way
    }
    c.cmd("CF.DEL cf never-added");
    c.cmd("CF.COMPACT cf");
    c.cmd("CF.ADDNX cfn a");
    c.cmd("CF.INSERT cfn CAPACITY 100 ITEMS c d");
    let chunks = cf::scandump(c, "cf");
    cf::loadchunks(c, "cf-late", &chunks);
}

fn check_replica(master_options: &[&str], replica_options: &[&str]) {
    let mut master_builder = Server::with(Module::RedisBf);
    for option in master_options {
        master_builder = master_builder.arg(option);
    }
    let master = master_builder.start();
    let mut m = master.conn();
    writes(&mut m); // before the replica exists: reaches it by full sync
    let mut replica_builder = Server::with(Module::RedisBf).replica_of(&master);
    for option in replica_options {
        replica_builder = replica_builder.arg(option);
    }
    let replica = replica_builder.start();
    let mut r = replica.conn();
    wait_in_sync(&mut m, &mut r);
    m.cmd("BF.ADD r after-sync");
    m.cmd("BF.MADD m d e");
    m.cmd("BF.INSERT n ITEMS z");
    m.cmd("BF.RESERVE fresh 0.001 1000");
    cuckoo_writes(&mut m);
    wait_in_sync(&mut m, &mut r);
    assert_eq!(m.cmd("DEBUG DIGEST"), r.cmd("DEBUG DIGEST"));
    for key in [
        "r",
        "m",
        "n",
        "loaded",
        "fresh",
        "cf",
        "cfn",
        "cf-loaded",
        "cf-late",
    ] {
        assert_eq!(
            m.call(&["DEBUG", "DIGEST-VALUE", key]),
            r.call(&["DEBUG", "DIGEST-VALUE", key]),
            "{key}"
        );
    }
    assert_eq!(r.cmd("BF.EXISTS r after-sync"), int(1));
    assert!(r.cmd("BF.ADD r x").text().starts_with("READONLY"));
    for key in ["cf", "cfn", "cf-loaded", "cf-late"] {
        assert_eq!(m.call(&["DUMP", key]), r.call(&["DUMP", key]), "{key}");
    }
    assert_eq!(r.cmd("CF.INFO cf-late"), m.cmd("CF.INFO cf"));
    // CF.COMPACT changes the filter: a read-only replica refuses it (RedisBloom's runs it).
    assert!(r.cmd("CF.COMPACT cf").text().starts_with("READONLY"));
}

#[test]
fn replica_matches_master() {
    check_replica(&[], &[]);
}

#[test]
fn diskless_sync_matches_master() {
    check_replica(
        &["--repl-diskless-sync yes", "--repl-diskless-sync-delay 0"],
        &["--repl-diskless-load swapdb"],
    );
}

/// A replica applies its master's writes whatever its own `bf-memory-usage-limit`: they were
/// accepted once (as a replica ignores `maxmemory` for them).
#[test]
fn replica_ignores_its_memory_limit_for_the_masters_writes() {
    let master = Server::start();
    let mut m = master.conn();
    let replica = Server::with(Module::RedisBf)
        .setting("bf-memory-usage-limit", "64kb")
        .replica_of(&master)
        .start();
    let mut r = replica.conn();
    wait_in_sync(&mut m, &mut r);
    assert_eq!(m.cmd("BF.RESERVE big 0.01 100000"), ok());
    m.cmd("BF.MADD big a b c");
    wait_in_sync(&mut m, &mut r);
    assert_eq!(r.cmd("BF.CARD big"), int(3));
    assert_eq!(
        m.cmd("BF.INFO big SIZE"),
        r.cmd("BF.INFO big SIZE"),
        "the replica holds the whole filter"
    );
}
