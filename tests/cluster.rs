//! Every family on a real cluster on loopback (`common::cluster`): merges routed by every key
//! they name, every kind of value moved with its bytes by `MIGRATE` and (Valkey ≥ 9.0) by
//! atomic slot migration, and a stream of writes through a cluster client while slots move,
//! then a graceful failover and a primary killed after `WAIT`, against a standalone server fed
//! the same stream.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::cluster::{self, key_slot, Cluster, ClusterClient};
use common::mixed::{self, Clock, Stream};
use common::*;

const CROSSSLOT: &str = "CROSSSLOT Keys in request don't hash to the same slot";

/// Whether the server under test moves slots atomically (`CLUSTER MIGRATESLOTS`, Valkey 9.0).
fn migrates_slots_atomically() -> bool {
    server_is_valkey() && server_at_least((9, 0, 0))
}

/// The slots of test keys agree with the server's, hash tags included.
#[test]
fn slots_are_the_servers() {
    let cluster = Cluster::start(1, 0);
    let mut c = cluster.nodes[0].conn();
    for key in ["a", "{a}b", "{}a", "a{b}c{d}", "{", "x}{y}", "", "{g3}cms7"] {
        assert_eq!(
            c.call(&["CLUSTER", "KEYSLOT", key]),
            int(i64::from(key_slot(key.as_bytes()))),
            "{key}"
        );
    }
}

/// A merge whose keys hash to two slots gets `CROSSSLOT` from the server itself, sent straight
/// to the node that holds its destination; with one hash tag it runs. While its slot moves, a
/// merge whose keys are all still there runs, one that misses some gets `TRYAGAIN` (`ASK`
/// before Redis 7.0), and one that misses them all is sent on with `ASK`, as the server's own
/// multi-key commands are.
#[test]
fn merges_are_routed_by_every_key() {
    let cluster = Cluster::start(2, 0);
    let slot = key_slot(b"{a}");
    let here = cluster.owner(slot);
    let there = 1 - here;
    let mut c = cluster.nodes[here].conn();
    for line in [
        "CMS.INITBYDIM {a}d 10 2",
        "CMS.INITBYDIM {a}s 10 2",
        "TDIGEST.CREATE {a}t",
        "TDIGEST.ADD {a}t 1 2 3",
        "BF.RESERVE {a}f 0.01 100",
        "CF.RESERVE {a}c 100",
    ] {
        assert_eq!(c.cmd(line), ok(), "{line}");
    }
    let far = (0..)
        .map(|n| format!("{{b{n}}}s"))
        .find(|key| cluster.owner(key_slot(key.as_bytes())) == here)
        .unwrap();
    for line in [
        "CMS.MERGE {a}d 2 {a}s {b}s".to_string(),
        format!("CMS.MERGE {{a}}d 2 {{a}}s {far} WEIGHTS 1 2"),
        format!("CMS.MERGE {{a}}d 1 {far}"),
        "TDIGEST.MERGE {a}t2 2 {b}t {a}t".to_string(),
        format!("TDIGEST.MERGE {{a}}t2 1 {far} OVERRIDE"),
        "BF.MERGE {a}f2 2 {a}f {b}f".to_string(),
        format!("BF.MERGE {{a}}f2 1 {far} OVERFILL"),
        "CF.MERGE {a}c2 2 {a}c {b}c".to_string(),
    ] {
        assert_eq!(c.cmd(&line), err(CROSSSLOT), "{line}");
    }
    assert_eq!(c.cmd("CMS.MERGE {a}d 2 {a}s {a}s WEIGHTS 1 2"), ok());
    assert_eq!(c.cmd("TDIGEST.MERGE {a}t2 2 {a}t {a}t"), ok());
    assert_eq!(c.cmd("BF.MERGE {a}f2 2 {a}f {a}f"), ok());
    assert_eq!(c.cmd("CF.MERGE {a}c2 2 {a}c {a}c"), ok());
    // A count that names no keys leaves the command to fail with its own error.
    assert_eq!(c.cmd("CMS.MERGE {a}d x {b}s"), err("CMS: invalid numkeys"));
    assert_eq!(
        c.cmd("CMS.MERGE {a}d 5 {b}s"),
        err("CMS: wrong number of keys")
    );
    let getkeys = c.cmd("COMMAND GETKEYS CMS.MERGE {a}d 2 {a}s {b}s WEIGHTS 1 2");
    assert_eq!(getkeys.sorted_texts(), ["{a}d", "{a}s", "{b}s"]);

    // The slot moves: its keys here are found here, a key not here may have left already.
    let target = &cluster.nodes[there];
    let source = &cluster.nodes[here];
    let slot_text = slot.to_string();
    let mut t = target.conn();
    let set = |c: &mut Conn, state: &str, id: &str| {
        assert_eq!(c.call(&["CLUSTER", "SETSLOT", &slot_text, state, id]), ok());
    };
    set(&mut t, "IMPORTING", &source.id);
    set(&mut c, "MIGRATING", &target.id);
    assert_eq!(c.cmd("CMS.MERGE {a}d 1 {a}s"), ok());
    // Redis 6.x sends every command missing a key on with ASK; from 7.0 one that has some of
    // its keys gets TRYAGAIN (`getNodeByQuery`).
    let missing_some = if server_at_least((7, 0, 0)) {
        "TRYAGAIN"
    } else {
        "ASK "
    };
    for line in [
        "CMS.MERGE {a}d 2 {a}s {a}gone",
        "TDIGEST.MERGE {a}t 1 {a}gone",
    ] {
        let reply = c.cmd(line);
        assert!(reply.text().starts_with(missing_some), "{line}: {reply:?}");
    }
    let missing_all = c.cmd("TDIGEST.MERGE {a}new 1 {a}gone");
    let port = target.port.to_string();
    assert!(
        missing_all.text().starts_with("ASK ") && missing_all.text().ends_with(&port),
        "{missing_all:?}"
    );
    assert_eq!(c.call(&["CLUSTER", "SETSLOT", &slot_text, "STABLE"]), ok());
    assert_eq!(t.call(&["CLUSTER", "SETSLOT", &slot_text, "STABLE"]), ok());
}

/// Where the server asks commands for their keys on its I/O threads (Valkey ≥ 8.0, Redis ≥ 8.2)
/// and `io-threads` is above 1, the merges do not ask to be asked (the server's wrapper of the
/// question is not thread-safe there): the load says so, and merges under one tag still run.
/// The recipe of docs/bf.md: a filter built on each shard under a tag of its own, moved under
/// one tag (`DUMP` where it was built, `RESTORE` under the tag) and merged there.
#[test]
fn filters_built_on_every_shard_merge_under_one_hash_tag() {
    let cluster = Cluster::start(3, 0);
    let mut client = ClusterClient::new(&cluster);
    // One tag per primary, so each shard builds its own filter.
    let mut tags = Vec::new();
    for n in 0.. {
        let tag = format!("{{shard{n}}}");
        let owner = cluster.owner(key_slot(tag.as_bytes()));
        if !tags.iter().any(|(_, o)| *o == owner) {
            tags.push((tag, owner));
        }
        if tags.len() == 3 {
            break;
        }
    }
    for (shard, (tag, _)) in tags.iter().enumerate() {
        let key = format!("{tag}seen");
        let reserve = ["BF.RESERVE", &key, "0.01", "100000", "NONSCALING"];
        assert_eq!(client.call(&reserve), ok());
        let items: Vec<String> = (0..1000).map(|i| format!("{shard}:{i}")).collect();
        let mut madd = vec!["BF.MADD", &key];
        madd.extend(items.iter().map(String::as_str));
        assert!(!client.call(&madd).is_error());
    }
    let mut parts = Vec::new();
    for (shard, (tag, _)) in tags.iter().enumerate() {
        let payload = client.call(&["DUMP", &format!("{tag}seen")]).bulk();
        let part = format!("{{all}}part:{shard}");
        let restore: [&[u8]; 4] = [b"RESTORE", part.as_bytes(), b"0", &payload];
        assert_eq!(client.call_bytes(&restore), ok());
        parts.push(part);
    }
    let mut merge = vec!["BF.MERGE", "{all}seen", "3"];
    merge.extend(parts.iter().map(String::as_str));
    assert_eq!(client.call(&merge), ok());
    for shard in 0..3 {
        let items: Vec<String> = (0..1000).map(|i| format!("{shard}:{i}")).collect();
        let mut mexists = vec!["BF.MEXISTS", "{all}seen"];
        mexists.extend(items.iter().map(String::as_str));
        let found = client.call(&mexists).array();
        assert!(found.iter().all(|f| f.int() == 1), "shard {shard}'s items");
    }
    let card = client.call(&["BF.CARD", "{all}seen"]).int();
    assert!((2900..=3100).contains(&card), "{card}");
}

#[test]
fn io_threads_leave_merges_routed_by_their_destination() {
    let threads_ask = if server_is_valkey() {
        server_at_least((8, 0, 0))
    } else {
        server_at_least((8, 2, 0))
    };
    let cluster = Cluster::start_with(1, 0, &|node| node.arg("--io-threads 2"));
    let node = &cluster.nodes[0];
    let log = node.server.as_ref().unwrap().log();
    assert_eq!(
        log.contains("routed by their destination alone"),
        threads_ask,
        "{log}"
    );
    let mut c = node.conn();
    assert_eq!(c.cmd("CMS.INITBYDIM {a}s 10 2"), ok());
    assert_eq!(c.cmd("CMS.INITBYDIM {a}d 10 2"), ok());
    assert_eq!(c.cmd("CMS.MERGE {a}d 1 {a}s"), ok());
    let crossed = c.cmd("CMS.MERGE {a}d 2 {a}s {b}s");
    if threads_ask {
        assert!(crossed.is_error(), "{crossed:?}");
    } else {
        assert_eq!(crossed, err(CROSSSLOT));
    }
}

/// One key of every kind of value, with the commands that make it: Bloom filters of both
/// layouts and window filters, Cuckoo filters, Count-Min sketches of every cell size and
/// both windows, Top-Ks and window Top-Ks, and t-digests with a buffer (valkey-bloom's filter
/// comes by `RESTORE`, [`valkey_bloom_payload`]).
const KINDS: &[(&str, &[&str])] = &[
    ("bf", &["BF.RESERVE {} 0.01 100 EXPANSION 2", "BF.ADD {} a"]),
    (
        "fast",
        &["BF.RESERVE {} 0.001 1000 LAYOUT FAST", "BF.ADD {} a"],
    ),
    ("window", &["BF.RESERVE {} 0.01 100 WINDOW", "BF.ADD {} a"]),
    (
        "cf",
        &[
            "CF.RESERVE {} 100 EXPANSION 2",
            "CF.ADD {} a",
            "CF.ADD {} a",
        ],
    ),
    (
        "cms1",
        &["CMS.INITBYDIM {} 20 3 CELL_SIZE 1", "CMS.INCRBY {} a 3"],
    ),
    (
        "cms2",
        &["CMS.INITBYDIM {} 20 3 CELL_SIZE 2", "CMS.INCRBY {} a 3"],
    ),
    ("cms4", &["CMS.INITBYDIM {} 20 3", "CMS.INCRBY {} a 3"]),
    (
        "cms8",
        &["CMS.INITBYDIM {} 20 3 CELL_SIZE 8", "CMS.INCRBY {} a 3"],
    ),
    (
        "cmsw",
        &[
            "CMS.INITBYDIM {} 20 3 WINDOW 100 SLOTS 4",
            "CMS.INCRBY {} a 3",
        ],
    ),
    (
        "cmst",
        &[
            "CMS.INITBYDIM {} 20 3 TIMESPAN 3600000",
            "CMS.INCRBY {} a 3",
        ],
    ),
    ("topk", &["TOPK.RESERVE {} 5 20 4 0.9", "TOPK.ADD {} a b a"]),
    (
        "topkw",
        &["TOPK.RESERVE {} 5 20 4 0.9 WINDOW 100", "TOPK.ADD {} a b a"],
    ),
    (
        "topkt",
        &[
            "TOPK.RESERVE {} 5 20 4 0.9 TIMESPAN 3600000",
            "TOPK.ADD {} a",
        ],
    ),
    (
        "td",
        &[
            "TDIGEST.CREATE {} COMPRESSION 50",
            "TDIGEST.ADD {} 1 2 3 4",
            "TDIGEST.CDF {} 2",
        ],
    ),
    // Its buffer held as it moves ([`BUFFERED`]).
    (
        "tdbuf",
        &["TDIGEST.CREATE {} COMPRESSION 50", "TDIGEST.ADD {} 1 2 3 4"],
    ),
];

/// The kind that moves in its saved form rather than as held: a t-digest's buffer arrives
/// merged into its centroids, as its `DUMP` and every save carry it (docs/tdigest.md): the
/// same `DUMP` bytes, another `DEBUG DIGEST-VALUE`.
const BUFFERED: &str = "tdbuf";

/// A `DUMP` payload of valkey-bloom's filter type (`bloomfltr`), made by a server of that
/// flavour.
fn valkey_bloom_payload() -> Vec<u8> {
    let server = Server::with(Module::RedisBf)
        .setting("bf-flavour", "valkey-bloom")
        .start();
    let mut c = server.conn();
    assert_eq!(c.cmd("BF.ADD f a"), int(1));
    c.cmd("DUMP f").bulk()
}

/// Makes a key of every kind through `client`, named `<tag><kind>`; their names.
fn every_kind(client: &mut ClusterClient, tag: &str) -> Vec<String> {
    let mut keys = Vec::new();
    for (kind, lines) in KINDS {
        let key = format!("{tag}{kind}");
        for line in *lines {
            let line = line.replace("{}", &key);
            let args: Vec<&str> = line.split(' ').collect();
            let reply = client.call(&args);
            assert!(!reply.is_error(), "{line}: {reply:?}");
        }
        keys.push(key);
    }
    let valkey = format!("{tag}valkey");
    let payload = valkey_bloom_payload();
    let reply = client.call_bytes(&[b"RESTORE", valkey.as_bytes(), b"0", &payload]);
    assert_eq!(reply, ok());
    keys.push(valkey);
    keys
}

/// Each key's `DUMP` payload and `DEBUG DIGEST-VALUE`.
fn saved_forms(c: &mut Conn, keys: &[String]) -> Vec<(Vec<u8>, Value)> {
    keys.iter()
        .map(|key| {
            let dump = c.call(&["DUMP", key]);
            assert!(matches!(dump, Value::Bulk(_)), "{key}: {dump:?}");
            (dump.bulk(), c.call(&["DEBUG", "DIGEST-VALUE", key]))
        })
        .collect()
}

/// The families' totals in `INFO bf`, by name (not the allocator's and defragmentation's
/// counts, which are the node's own). Wide integers: a t-digest's observations pass 2^63 when
/// the stream merges it into itself often enough, and a total that would not parse would
/// silently leave one side of a comparison.
fn totals(c: &mut Conn) -> BTreeMap<String, i128> {
    let families = [
        "bf_bloom_",
        "bf_cuckoo_",
        "bf_cms_",
        "bf_topk_",
        "bf_tdigest_",
    ];
    c.cmd("INFO bf")
        .text()
        .lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .filter(|(name, _)| {
            families.iter().any(|family| name.starts_with(family)) && !name.contains("defrag")
        })
        .collect()
}

/// Adds `more` into `sum`, field by field.
fn add_totals(sum: &mut BTreeMap<String, i128>, more: BTreeMap<String, i128>) {
    for (name, value) in more {
        *sum.entry(name).or_default() += value;
    }
}

/// Each key's `DUMP` payload and, but for [`BUFFERED`] kinds, its `DEBUG DIGEST-VALUE`.
fn moving_forms(c: &mut Conn, keys: &[String]) -> Vec<(Vec<u8>, Value)> {
    let mut forms = saved_forms(c, keys);
    for (key, form) in keys.iter().zip(&mut forms) {
        if key.ends_with(BUFFERED) {
            form.1 = Value::Null;
        }
    }
    forms
}

/// Every kind of value moves from one primary to another with its bytes: by `MIGRATE` (as
/// `redis-cli --cluster reshard` moves keys) and back, on Valkey ≥ 9.0, by atomic slot
/// migration; the target's replica holds the same; the `INFO bf` totals leave the source
/// and arrive at the target whole.
#[test]
fn every_kind_moves_with_its_bytes() {
    let cluster = Cluster::start(2, 1);
    let mut client = ClusterClient::new(&cluster);
    let keys = every_kind(&mut client, "{m}");
    let slot = key_slot(b"{m}");
    let first = cluster.owner(slot);
    let held = moving_forms(&mut cluster.nodes[first].conn(), &keys);
    let moved = totals(&mut cluster.nodes[first].conn());
    let empty = totals(&mut cluster.nodes[1 - first].conn());
    assert!(moved.get("bf_bloom_num_objects") == Some(&4), "{moved:?}");

    let mut moves: Vec<(usize, bool)> = vec![(1 - first, false), (first, false)];
    if migrates_slots_atomically() {
        moves.extend([(1 - first, true), (first, true)]);
    }
    for (to, atomically) in moves {
        let from = cluster.owner(slot);
        if atomically {
            cluster.migrate_slot_atomically(slot, to, || {});
        } else {
            cluster.migrate_slot(slot, to, || {});
        }
        let how = if atomically {
            "atomic slot migration"
        } else {
            "MIGRATE"
        };
        assert_eq!(cluster.owner(slot), to, "{how}");
        assert_eq!(
            moving_forms(&mut cluster.nodes[to].conn(), &keys),
            held,
            "{how}"
        );
        let replica = cluster
            .nodes
            .iter()
            .find(|node| node.id != cluster.nodes[to].id && cluster.primary_of(&node.id) == to);
        let replica = replica.expect("each primary has a replica");
        assert_eq!(
            moving_forms(&mut replica.conn(), &keys),
            held,
            "{how}: replica"
        );
        let buffered = client.call(&["TDIGEST.INFO", &format!("{{m}}{BUFFERED}")]);
        assert_eq!(cluster::field(&buffered, "Unmerged nodes"), "0", "{how}");
        assert_eq!(cluster::field(&buffered, "Observations"), "4", "{how}");
        assert_eq!(
            totals(&mut cluster.nodes[to].conn()),
            moved,
            "{how}: target"
        );
        assert_eq!(
            totals(&mut cluster.nodes[from].conn()),
            empty,
            "{how}: source"
        );
        assert_eq!(totals(&mut replica.conn()), moved, "{how}: replica");
    }
}

/// A key whose `DUMP` is larger than the target's `proto-max-bulk-len` cannot move by
/// `MIGRATE`: the server's error, and the key stays whole on the source. On Valkey ≥ 9.0
/// atomic slot migration moves it, its filter in `BF.LOADCHUNK` chunks.
#[test]
fn a_key_too_big_to_migrate_stays_whole() {
    let cluster = Cluster::start(2, 0);
    let slot = key_slot(b"{big}");
    let (from, to) = (cluster.owner(slot), 1 - cluster.owner(slot));
    let (source, target) = (&cluster.nodes[from], &cluster.nodes[to]);
    let (mut s, mut t) = (source.conn(), target.conn());
    assert_eq!(t.cmd("CONFIG SET proto-max-bulk-len 1mb"), ok());
    // A filter of few items compresses to little: its payload as big as its bits.
    for c in [&mut s, &mut t] {
        assert_eq!(c.cmd("CONFIG SET rdbcompression no"), ok());
    }
    assert_eq!(s.cmd("BF.RESERVE {big}f 0.0001 1000000"), ok());
    assert_eq!(s.cmd("BF.ADD {big}f a"), int(1));
    let held = saved_forms(&mut s, &["{big}f".to_string()]);
    assert!(held[0].0.len() > 1 << 21, "a DUMP over 1 MiB");

    let slot_text = slot.to_string();
    let set = |c: &mut Conn, words: &[&str]| {
        let mut line = vec!["CLUSTER", "SETSLOT", &slot_text];
        line.extend_from_slice(words);
        assert_eq!(c.call(&line), ok());
    };
    set(&mut t, &["IMPORTING", &source.id]);
    set(&mut s, &["MIGRATING", &target.id]);
    let port = target.port.to_string();
    let line = [
        "MIGRATE",
        "127.0.0.1",
        &port,
        "",
        "0",
        "5000",
        "KEYS",
        "{big}f",
    ];
    let refused = s.call(&line);
    assert!(refused.is_error(), "{refused:?}");
    set(&mut s, &["STABLE"]);
    set(&mut t, &["STABLE"]);
    let kept = saved_forms(&mut s, &["{big}f".to_string()]) == held;
    assert!(kept, "the refused move changed the filter");
    assert_eq!(t.cmd("DBSIZE"), int(0));
    assert_eq!(totals(&mut t).get("bf_bloom_num_objects"), Some(&0));

    if migrates_slots_atomically() {
        cluster.migrate_slot_atomically(slot, to, || {});
        let moved = saved_forms(&mut t, &["{big}f".to_string()]) == held;
        assert!(moved, "the filter moved atomically differs");
        assert_eq!(s.cmd("DBSIZE"), int(0));
    }
}

/// How many writes of the stream go between two looks at whether a move ended.
const WRITES_PER_STEP: usize = 20;

/// Sends `writes` writes of `stream` through the cluster and to the reference, each reply the
/// reference's (a t-digest's answers may differ once it moved merged: only whether it failed
/// is compared there).
fn send(stream: &mut Stream, cluster: &mut ClusterClient, reference: &mut Conn, writes: usize) {
    for _ in 0..writes {
        let write = stream.next_write();
        let args: Vec<&str> = write.iter().map(String::as_str).collect();
        let expected = reference.call(&args);
        let got = cluster.call(&args);
        mixed::expected_reply(&write, got.clone());
        if write[0].starts_with("TDIGEST.") {
            assert_eq!(got.is_error(), expected.is_error(), "{write:?}");
        } else {
            assert_eq!(got, expected, "{write:?}");
        }
    }
}

/// A deterministic stream of every family's writes through a cluster client while slots move
/// (by `MIGRATE`, and by atomic slot migration on Valkey ≥ 9.0), then through a graceful
/// failover and a primary killed after `WAIT` acknowledged its writes: every reply is the one a
/// standalone server fed the same stream gives; afterwards every key holds the bytes it holds
/// there (t-digests that moved: the same count, least and greatest value), every replica the
/// bytes of its primary, and the primaries' `INFO bf` totals add up to the standalone's.
#[test]
fn writes_while_slots_move_and_primaries_fail() {
    let mut cluster = Cluster::start(3, 1);
    let reference = Server::start();
    let mut r = reference.conn();
    let mut client = ClusterClient::new(&cluster);
    let mut stream = Stream::tagged(0x5eed_c105, Clock::Ignored);
    send(&mut stream, &mut client, &mut r, 1500);

    // Every group's slot moves on by one primary, moved by another thread while this one
    // writes: a merge that meets its slot half moved gets TRYAGAIN until the move ends.
    for group in 0..4 {
        let slot = key_slot(format!("{{g{group}}}").as_bytes());
        let to = (cluster.owner(slot) + 1) % 3;
        let moved = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                // Set however the move ends, so that a failed move stops the writes too.
                let _moved = Finished(&moved);
                let pause = || std::thread::sleep(Duration::from_millis(5));
                if migrates_slots_atomically() && group % 2 == 1 {
                    cluster.migrate_slot_atomically(slot, to, pause);
                } else {
                    cluster.migrate_slot(slot, to, pause);
                }
            });
            while !moved.load(Ordering::Acquire) {
                send(&mut stream, &mut client, &mut r, WRITES_PER_STEP);
            }
        });
    }
    send(&mut stream, &mut client, &mut r, 500);

    // A graceful failover: the replica of the primary serving group 0 takes over.
    let primary = cluster.owner(key_slot(b"{g0}"));
    let replica = replica_of(&cluster, primary).expect("each primary has a replica");
    assert_eq!(cluster.nodes[replica].conn().cmd("CLUSTER FAILOVER"), ok());
    wait_for("the failover", || {
        cluster.nodes[replica].conn().cmd("ROLE").array()[0].text() == "master"
    });
    cluster.wait_stable();
    send(&mut stream, &mut client, &mut r, 500);

    // A primary killed once its replica acknowledged every write.
    let victim = cluster.owner(key_slot(b"{g1}"));
    let heir = replica_of(&cluster, victim).expect("each primary has a replica");
    assert_eq!(cluster.nodes[victim].conn().cmd("WAIT 1 10000"), int(1));
    cluster.nodes[victim].kill();
    wait_for("the replica to take over", || {
        cluster.nodes[heir].conn().cmd("ROLE").array()[0].text() == "master"
    });
    cluster.wait_stable();
    client.refresh(&cluster);
    send(&mut stream, &mut client, &mut r, 500);

    assert_same_as_reference(&cluster, &mut r);
}

/// Sets its flag when dropped: at the end of a thread's work, or when the work panicked.
struct Finished<'a>(&'a AtomicBool);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Up to this many observations a t-digest counts exactly (`core::tdigest::EXACT_SIZE`).
const EXACT_COUNT: u64 = 1 << 53;

/// Totals as far as they are exact: the t-digests' observations only while they are below
/// [`EXACT_COUNT`] (the stream's merges of digests into themselves double their counts).
fn exact_counts(mut totals: BTreeMap<String, i128>) -> BTreeMap<String, i128> {
    let observations = "bf_tdigest_observations_across_objects";
    if totals
        .get(observations)
        .is_some_and(|&n| n.unsigned_abs() > u128::from(EXACT_COUNT))
    {
        totals.remove(observations);
    }
    totals
}

/// The index of a live replica of primary `primary`, if it has one.
fn replica_of(cluster: &Cluster, primary: usize) -> Option<usize> {
    let id = &cluster.nodes[primary].id;
    cluster.nodes.iter().position(|node| {
        node.server.is_some() && &node.id != id && cluster.primary_of(&node.id) == primary
    })
}

/// Compares the cluster's keys with the reference's (see
/// [`writes_while_slots_move_and_primaries_fail`]).
fn assert_same_as_reference(cluster: &Cluster, r: &mut Conn) {
    let mut found = BTreeMap::new();
    let mut sum = BTreeMap::new();
    for node in cluster.live() {
        let index = cluster.index_of(&node.id);
        if cluster.primary_of(&node.id) != index {
            continue;
        }
        let mut c = node.conn();
        let held = held_keys(&mut c);
        // The primary whose replica took over when it was killed has none left.
        if let Some(replica) = replica_of(cluster, index) {
            let mut rc = cluster.nodes[replica].conn();
            assert_eq!(held_keys(&mut rc), held, "the replica of node {index}");
            assert_eq!(
                totals(&mut rc),
                totals(&mut c),
                "the replica of node {index}"
            );
        }
        add_totals(&mut sum, totals(&mut c));
        found.extend(held);
    }
    assert_eq!(
        exact_counts(sum),
        exact_counts(totals(r)),
        "the primaries' totals against the reference's"
    );
    let expected = held_keys(r);
    assert_eq!(
        found.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (key, value) in &expected {
        assert_eq!(found.get(key), Some(value), "{key}");
    }
}

/// The keys at `c` as [`mixed::snapshot`] gives them, a t-digest's `DUMP` and digest replaced by what a
/// move leaves exact (its count, least and greatest value): a digest that moved by `MIGRATE`
/// arrived merged, and the writes after it merge otherwise than they would have.
fn held_keys(c: &mut Conn) -> BTreeMap<String, (Vec<u8>, Value, Value)> {
    let mut keys = mixed::snapshot(c).1;
    for (key, (dump, _, digest)) in &mut keys {
        if key.contains("}td") {
            let info = c.call(&["TDIGEST.INFO", key]);
            let count = cluster::field(&info, "Observations");
            // Past 2^53 a digest's count moves by a double's rounding at each compression, and a
            // digest that moved merged compresses at other times (core::tdigest::EXACT_SIZE).
            let count = match count.parse::<u64>() {
                Ok(n) if n > EXACT_COUNT => "past 2^53".to_string(),
                _ => count,
            };
            let min = c.call(&["TDIGEST.MIN", key]);
            let max = c.call(&["TDIGEST.MAX", key]);
            *dump = count.into_bytes();
            *digest = Value::Array(vec![min, max]);
        }
    }
    keys
}
