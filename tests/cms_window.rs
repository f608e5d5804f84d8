//! Count-Min sketches that forget (`CMS.INITBYDIM … WINDOW n | TIMESPAN ms [SLOTS s]`) on a
//! real server: their syntax and errors, the window's guarantee against an exact count, reads
//! that change nothing, merges, and the same bytes on a replica, in the AOF and after every
//! move — the failure modes of docs/cms-topk.md's "Sketches that forget".

mod common;

use std::collections::VecDeque;
use std::thread::sleep;
use std::time::Duration;

use common::*;

#[test]
fn creation_checks_every_option_before_anything_is_made() {
    let (server, mut c) = Server::start_with_conn();
    expect_replies(
        &mut c,
        "
            CMS.INITBYDIM c 100 5 WINDOW 1000 -> OK
            CMS.INITBYDIM t 100 5 TIMESPAN 60000 SLOTS 8 -> OK
            CMS.INITBYPROB p 0.01 0.01 timespan 1000 slots 1 -> OK
            CMS.INITBYDIM c 100 5 WINDOW 1000 -> (error) CMS: key already exists
            CMS.INITBYDIM x 0 5 WINDOW 1000 -> (error) CMS: invalid width
            CMS.INITBYPROB x 2 0.1 WINDOW 10 -> (error) CMS: invalid overestimation value
            CMS.INITBYDIM x 5 5 WINDOW 0 -> (error) CMS: WINDOW must be an integer in the range [1, 1099511627776]
            CMS.INITBYDIM x 5 5 WINDOW 1099511627777 -> (error) CMS: WINDOW must be an integer in the range [1, 1099511627776]
            CMS.INITBYDIM x 5 5 TIMESPAN 1.5 -> (error) CMS: TIMESPAN must be an integer number of milliseconds in the range [1, 1099511627776]
            CMS.INITBYDIM x 5 5 WINDOW 10 SLOTS 0 -> (error) CMS: SLOTS must be an integer in the range [1, 8]
            CMS.INITBYDIM x 5 5 WINDOW 10 SLOTS 9 -> (error) CMS: SLOTS must be an integer in the range [1, 8]
            CMS.INITBYDIM x 5 5 SLOTS 4 WINDOW 5 -> (error) CMS: SLOTS needs WINDOW or TIMESPAN before it
            CMS.INITBYDIM x 5 5 SLOTS 4 -> (error) CMS: unknown argument
            # Without WINDOW or TIMESPAN more arguments than RedisBloom's stay an arity error.
            CMS.INITBYDIM x 5 5 CELL_SIZE 4 SLOTS 4 -> (arity)
            CMS.INITBYDIM x 5 5 WINDOW 10 TIMESPAN 10 -> (error) CMS: a sketch forgets by one of WINDOW or TIMESPAN, given once
            CMS.INITBYDIM x 5 5 CELL_SIZE 4 WINDOW 10 -> (error) CMS: CELL_SIZE cannot be combined with WINDOW or TIMESPAN (their counters have 4 bytes)
            CMS.INITBYDIM x 5 5 WINDOW 10 CELL_SIZE 4 -> (error) CMS: unknown argument
            CMS.INITBYDIM x 5 5 WINDOW 10 SLOTS 2 SLOTS 2 -> (error) CMS: unknown argument
            CMS.INITBYDIM x 5 5 WINDOW -> (arity)
            CMS.INITBYDIM x 5 5 WINDOW 10 SLOTS 2 A 1 B -> (arity)
            CMS.INITBYDIM x 5 5 WINDOW 10 SLOTS 2 A 1 B 2 -> (arity)
            CMS.INITBYDIM x 5 5 A 1 B 2 -> (arity)
        ",
    );
    assert_eq!(
        c.cmd("CMS.INCRBY c a 1 b -2"),
        Value::Array(vec![
            int(1),
            err("CMS: a sketch that forgets takes no negative increments")
        ])
    );
    assert_eq!(c.cmd("EXISTS x"), int(0));
    assert_eq!(c.cmd("TYPE c"), simple("cm-window"));
    // A width past the memory limit is refused before anything is allocated.
    if feature::module_configs() {
        let limit = config_name(&mut c, "bf-memory-usage-limit");
        assert_eq!(c.call(&["CONFIG", "SET", &limit, "1000000"]), ok());
        assert_eq!(
            c.cmd("CMS.INITBYDIM x 100000 5 WINDOW 10"),
            err("ERR operation exceeds count-min sketch object memory limit")
        );
        assert_eq!(c.cmd("EXISTS x"), int(0));
    }
    // INFO: RedisBloom's pairs first, in order, then the window's; in RESP2 and RESP3.
    let fields = [
        "width",
        "depth",
        "count",
        "cell_size",
        "window_type",
        "window",
        "slots",
        "ticks_per_slot",
    ];
    c.cmd("CMS.INCRBY t a 3 b 4");
    let values = [
        int(100),
        int(5),
        int(7),
        int(4),
        bulk(b"time"),
        int(60000),
        int(8),
        int(16),
    ];
    let flat: Vec<Value> = fields
        .iter()
        .zip(values.clone())
        .flat_map(|(name, value)| [simple(name), value])
        .collect();
    assert_eq!(c.cmd("CMS.INFO t"), Value::Array(flat));
    if feature::module_resp3() {
        let mut c3 = server.conn().resp3();
        let map = fields
            .iter()
            .zip(values)
            .map(|(name, value)| (simple(name), value))
            .collect();
        assert_eq!(c3.cmd("CMS.INFO t"), resp3_map(map));
        assert_eq!(c3.cmd("CMS.QUERY t a b z"), ints(&[3, 4, 0]));
    }
    // What MEMORY USAGE counts of the value (the server adds the key's share, which differs by
    // server): (SLOTS + 1) counters a cell, the per-tick totals and the struct
    // (docs/cms-window.md's table), beside a classic sketch's 40 + 4 × width × depth; read as
    // what each creation adds to the family's INFO total.
    forgetting::assert_memory_by_slots(
        &mut c,
        ("bf_cms_core_metrics", "bf_cms_total_memory_bytes"),
        &["CMS.INITBYPROB", "0.001", "0.01"],
        &[
            (0, 56_040),
            (1, 112_232),
            (2, 168_360),
            (4, 280_616),
            (8, 505_128),
        ],
    );
    // CMS.ADVANCE is the replication stream's, not a client's.
    assert_eq!(
        c.cmd("CMS.ADVANCE t 99999999999999"),
        err("ERR this command is accepted only from a primary's replication stream or an AOF")
    );
}

/// `true ≤ estimate ≤ true over the window and a slot` of a sketch wide enough that its items
/// do not collide, on a real server, for a count window of every slot count.
#[test]
fn a_count_window_counts_its_last_updates_and_forgets_within_a_slot() {
    let (_server, mut c) = Server::start_with_conn();
    for slots in [1u64, 4, 8] {
        let window = 200u64;
        let key = format!("count{slots}");
        c.call(&[
            "CMS.INITBYDIM",
            &key,
            "20000",
            "4",
            "WINDOW",
            &window.to_string(),
            "SLOTS",
            &slots.to_string(),
        ]);
        let mut rng = Rng(slots);
        let mut history: VecDeque<(String, u64)> = VecDeque::new();
        let slack = window / slots + window / (16 * slots) + 2;
        for update in 0..1500u64 {
            let item = format!("i{}", rng.below(8));
            let amount = rng.below(5);
            let reply = c.call(&["CMS.INCRBY", &key, &item, &amount.to_string()]);
            history.push_back((item, amount));
            if history.len() as u64 > window + slack {
                history.pop_front();
            }
            if update % 37 != 0 {
                continue;
            }
            let count = |span: u64, item: &str| -> i64 {
                let skip = history.len().saturating_sub(span as usize);
                let found = history.iter().skip(skip).filter(|(i, _)| i == item);
                found.map(|&(_, n)| n as i64).sum()
            };
            assert!(reply.array()[0].int() >= count(window, &history.back().unwrap().0));
            for i in 0..8 {
                let item = format!("i{i}");
                let estimate = c.call(&["CMS.QUERY", &key, &item]).array()[0].int();
                let (low, high) = (count(window, &item), count(window + slack, &item));
                assert!(
                    low <= estimate && estimate <= high,
                    "{key} {item}: {low} {estimate} {high}"
                );
            }
        }
    }
}

#[test]
fn a_time_window_forgets_a_burst_and_reads_never_change_it() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("CMS.INITBYDIM t 1000 5 TIMESPAN 400 SLOTS 4"), ok());
    assert_eq!(c.cmd("CMS.INCRBY t burst 1000000"), ints(&[1_000_000]));
    let started = std::time::Instant::now();
    let payload = c.cmd("DUMP t");
    let digest = c.cmd("DEBUG DIGEST-VALUE t");
    // Held in full for the whole window, by every read.
    while started.elapsed() < Duration::from_millis(350) {
        let estimate = c.cmd("CMS.QUERY t burst").array()[0].int();
        if started.elapsed() < Duration::from_millis(350) {
            assert_eq!(estimate, 1_000_000);
        }
        sleep(Duration::from_millis(20));
    }
    // Gone within a slot after it (100 ms), and after three windows for sure.
    sleep(Duration::from_millis(400 + 100 + 50 - 350));
    assert_eq!(c.cmd("CMS.QUERY t burst"), ints(&[0]));
    sleep(Duration::from_millis(700));
    assert_eq!(c.cmd("CMS.QUERY t burst other"), ints(&[0, 0]));
    assert_eq!(bf::info_value(&c.cmd("CMS.INFO t"), "count"), int(0));
    // Reads changed nothing: expiry is virtual until the next write.
    assert_eq!(c.cmd("DUMP t"), payload);
    assert_eq!(c.cmd("DEBUG DIGEST-VALUE t"), digest);
    // One write after the idle gap leaves what a fresh sketch written once would hold.
    assert_eq!(c.cmd("CMS.INCRBY t x 2"), ints(&[2]));
    assert_eq!(c.cmd("CMS.QUERY t burst x"), ints(&[0, 2]));
}

#[test]
fn time_windows_of_one_shape_merge_and_every_other_mix_is_refused() {
    let (_server, mut c) = Server::start_with_conn();
    for line in [
        "CMS.INITBYDIM a 50 4 TIMESPAN 60000",
        "CMS.INITBYDIM b 50 4 TIMESPAN 60000",
        "CMS.INITBYDIM dest 50 4 TIMESPAN 60000",
        "CMS.INITBYDIM other 50 4 TIMESPAN 30000",
        "CMS.INITBYDIM narrow 40 4 TIMESPAN 60000",
        "CMS.INITBYDIM counted 50 4 WINDOW 100",
        "CMS.INITBYDIM counted2 50 4 WINDOW 100",
        "CMS.INITBYDIM classic 50 4",
    ] {
        assert_eq!(c.cmd(line), ok(), "{line}");
    }
    c.cmd("CMS.INCRBY a x 2 y 1");
    c.cmd("CMS.INCRBY b x 5");
    c.cmd("CMS.INCRBY counted x 1");
    expect_replies(
        &mut c,
        "
            CMS.MERGE dest 2 a b WEIGHTS 1 2 -> OK
            CMS.MERGE dest 2 dest other -> (error) CMS: sketches of different windows cannot be merged
            CMS.MERGE dest 1 classic -> (error) CMS: sketches of different windows cannot be merged
            CMS.MERGE classic 1 a -> (error) CMS: sketches of different windows cannot be merged
            CMS.MERGE dest 1 narrow -> (error) CMS: width/depth is not equal
            CMS.MERGE counted 1 counted2 -> (error) CMS: sketches that forget by count cannot be merged
            CMS.MERGE dest 2 a b WEIGHTS 1 -1 -> (error) CMS: MERGE overflow
            CMS.MERGE dest 1 missing -> (error) CMS: key does not exist
        ",
    );
    assert_eq!(c.cmd("CMS.QUERY dest x y z"), ints(&[12, 1, 0]));
    assert_eq!(bf::info_value(&c.cmd("CMS.INFO dest"), "count"), int(13));
    assert_eq!(c.cmd("CMS.QUERY counted x"), ints(&[1]));
    assert_eq!(c.cmd("CMS.QUERY classic x"), ints(&[0]));
}

/// Sketches that forget, count and time windows, written so that nothing expires while the
/// every-move checks run (an hour's timespan).
fn build(c: &mut Conn) -> Vec<&'static str> {
    c.cmd("CMS.INITBYDIM count 300 5 WINDOW 500 SLOTS 3");
    c.cmd("CMS.INITBYPROB time 0.01 0.01 TIMESPAN 3600000");
    c.cmd("CMS.INITBYDIM merged 200 7 TIMESPAN 3600000 SLOTS 8");
    c.cmd("CMS.INITBYDIM empty 10 2 WINDOW 1");
    for i in 0..900u64 {
        let (item, n) = (format!("item{}", i % 300), (i * 7919 % 13).to_string());
        for key in ["count", "time"] {
            c.call(&["CMS.INCRBY", key, &item, &n]);
        }
    }
    c.cmd("CMS.MERGE merged 2 time time WEIGHTS 2 1");
    vec!["count", "time", "merged", "empty"]
}

const SKETCHES: persist::Family = persist::Family {
    build,
    answers: cms::answers,
    write: |c, key| {
        c.call(&["CMS.INCRBY", key, "new", "1"]);
    },
};

#[test]
fn sketches_that_forget_survive_every_move() {
    persist::survives_every_move(&SKETCHES);
}

const STREAM: forgetting::Forgetting = forgetting::Forgetting {
    create: |c| {
        assert_eq!(c.cmd("CMS.INITBYDIM fast 100 4 TIMESPAN 200 SLOTS 2"), ok());
        assert_eq!(
            c.cmd("CMS.INITBYDIM slow2 100 4 TIMESPAN 200 SLOTS 2"),
            ok()
        );
        assert_eq!(c.cmd("CMS.INITBYDIM slow 80 3 TIMESPAN 5000"), ok());
        assert_eq!(c.cmd("CMS.INITBYDIM count 80 3 WINDOW 50 SLOTS 8"), ok());
        c.cmd("CMS.INCRBY slow2 i1 3");
    },
    step: |c, key, rng, step| {
        let item = format!("i{}", rng.below(20));
        c.call(&["CMS.INCRBY", key, &item, &rng.below(9).to_string()]);
        if step % 10 == 0 && key == "fast" {
            c.cmd("CMS.MERGE fast 2 fast slow2 WEIGHTS 1 1");
        }
    },
    created: |c, key| {
        c.call(&["CMS.INITBYPROB", key, "0.1", "0.1", "TIMESPAN", "300"]);
        c.call(&["CMS.INCRBY", key, "a", "1"]);
    },
    script: "return redis.call('CMS.INCRBY', KEYS[1], 'in-script', 1)",
    keys: &["fast", "slow", "slow2", "count", "created-0", "created-1"],
    read: |c, key| {
        c.call(&["CMS.QUERY", key, "i1", "i2"]);
        c.call(&["CMS.INFO", key]);
    },
    write: |c, key| {
        c.call(&["CMS.INCRBY", key, "written", "1"]);
    },
    small: &[
        "CMS.INITBYDIM w 3 2 TIMESPAN 1000 SLOTS 1",
        "CMS.INCRBY w a 5 b 7",
    ],
};

#[test]
fn a_replica_and_the_aof_hold_the_primarys_bytes_through_a_moving_clock() {
    forgetting::replica_and_aof_hold_the_primarys_bytes(&STREAM);
}

#[test]
fn corrupt_payloads_are_refused_or_load_whole() {
    forgetting::corrupt_payloads_are_refused_or_load_whole(&STREAM);
}
