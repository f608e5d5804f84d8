//! Top-Ks that forget (`TOPK.RESERVE … WINDOW n | TIMESPAN ms [SLOTS s]`) on a real server:
//! their syntax and errors, items that stop arriving leaving the list within a window and a
//! slot, the expelled-item reply, reads that change nothing, and the same bytes on a replica,
//! in the AOF and after every move (docs/topk-window.md).

mod common;

use std::thread::sleep;
use std::time::{Duration, Instant};

use common::*;

#[test]
fn creation_checks_every_option_before_anything_is_made() {
    let (server, mut c) = Server::start_with_conn();
    expect_replies(
        &mut c,
        "
            TOPK.RESERVE c 10 WINDOW 1000 -> OK
            TOPK.RESERVE t 10 50 4 0.9 TIMESPAN 60000 SLOTS 8 -> OK
            TOPK.RESERVE s 3 timespan 1000 slots 1 -> OK
            TOPK.RESERVE c 10 WINDOW 1000 -> (error) TopK: key already exists
            TOPK.RESERVE x 0 WINDOW 10 -> (error) TopK: invalid k
            TOPK.RESERVE x 10 50 4 2 WINDOW 10 -> (error) TopK: invalid decay value. must be '<= 1' & '> 0'
            TOPK.RESERVE x 10 WINDOW 0 -> (error) TopK: WINDOW must be an integer in the range [1, 1099511627776]
            TOPK.RESERVE x 10 TIMESPAN x -> (error) TopK: TIMESPAN must be an integer number of milliseconds in the range [1, 1099511627776]
            TOPK.RESERVE x 10 WINDOW 10 SLOTS 9 -> (error) TopK: SLOTS must be an integer in the range [1, 8]
            TOPK.RESERVE x 10 SLOTS 2 WINDOW 5 -> (error) TopK: SLOTS needs WINDOW or TIMESPAN before it
            # Without WINDOW or TIMESPAN more arguments than RedisBloom's stay an arity error.
            TOPK.RESERVE x 10 SLOTS 2 -> (arity)
            TOPK.RESERVE x 10 WINDOW 10 TIMESPAN 10 -> (error) TopK: a Top-K forgets by one of WINDOW or TIMESPAN, given once
            TOPK.RESERVE x 10 OTHER 10 -> (arity)
            TOPK.RESERVE x 10 WINDOW 10 OTHER 10 -> (error) TopK: unknown argument
            TOPK.RESERVE x 10 4 -> (arity)
            TOPK.RESERVE x 10 50 4 0.9 WINDOW -> (arity)
            TOPK.RESERVE x 10 50 4 0.9 WINDOW 10 SLOTS 2 A 1 -> (arity)
        ",
    );
    assert_eq!(c.cmd("EXISTS x"), int(0));
    assert_eq!(c.cmd("TYPE t"), simple("tk-window"));
    // INFO: RedisBloom's pairs first, in order, then the window's.
    c.cmd("TOPK.INCRBY t a 3 b 4");
    let info = c.cmd("TOPK.INFO t");
    let names: Vec<String> = info.array().iter().step_by(2).map(Value::text).collect();
    let expected = [
        "k",
        "width",
        "depth",
        "decay",
        "window_type",
        "window",
        "slots",
        "window_count",
    ];
    assert_eq!(names, expected);
    for (name, value) in [("k", int(10)), ("width", int(50)), ("window_count", int(7))] {
        assert_eq!(bf::info_value(&info, name), value, "{name}");
    }
    assert_eq!(bf::info_value(&info, "window_type"), bulk(b"time"));
    if feature::module_resp3() {
        let mut c3 = server.conn().resp3();
        assert_eq!(
            c3.cmd("TOPK.QUERY t b a zz"),
            Value::Array(vec![resp3_bool(true), resp3_bool(true), resp3_bool(false)])
        );
    }
    expect_replies(
        &mut c,
        "
            TOPK.ADVANCE t 99999999999999 -> (error) ERR this command is accepted only from a primary's replication stream or an AOF
        ",
    );
    let bad =
        "TopK: increment must be an integer greater or equal to 0                            \
               and smaller or equal to 100,000";
    assert_eq!(
        c.cmd("TOPK.INCRBY t a 100001"),
        Value::Array(vec![err(bad)])
    );
    // What MEMORY USAGE counts of the value: (12 + 4 × (slots + 1)) bytes a bucket, 24 a heap
    // slot, 8 a slot's total and the struct (docs/topk-window.md), beside a classic Top-K's
    // 2088 + 8 × width × depth + 24 k; read as what each creation adds to the INFO total.
    forgetting::assert_memory_by_slots(
        &mut c,
        ("bf_topk_core_metrics", "bf_topk_total_memory_bytes"),
        &["TOPK.RESERVE", "100", "2000", "7", "0.9"],
        &[(0, 116_488), (2, 340_544), (4, 452_560), (8, 676_592)],
    );
}

#[test]
fn an_item_that_stops_arriving_leaves_within_a_window_and_a_slot() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(
        c.cmd("TOPK.RESERVE t 3 100 5 0.9 TIMESPAN 400 SLOTS 4"),
        ok()
    );
    c.cmd("TOPK.INCRBY t burst 100000");
    let started = Instant::now();
    let digest = c.cmd("DEBUG DIGEST-VALUE t");
    while started.elapsed() < Duration::from_millis(350) {
        let listed = c.cmd("TOPK.LIST t");
        if started.elapsed() < Duration::from_millis(350) {
            assert_eq!(listed, Value::Array(vec![bulk(b"burst")]));
        }
        sleep(Duration::from_millis(20));
    }
    sleep(Duration::from_millis(400 + 100 + 50 - 350));
    assert_eq!(c.cmd("TOPK.COUNT t burst"), ints(&[0]));
    assert_eq!(c.cmd("TOPK.LIST t"), Value::Array(vec![]));
    assert_eq!(c.cmd("TOPK.QUERY t burst"), Value::Array(vec![int(0)]));
    assert_eq!(
        bf::info_value(&c.cmd("TOPK.INFO t"), "window_count"),
        int(0)
    );
    // Reads changed nothing; the next writes expel what expired, as ADD replies.
    assert_eq!(c.cmd("DEBUG DIGEST-VALUE t"), digest);
    let replies = c.cmd("TOPK.ADD t a b c").array();
    assert_eq!(
        replies.iter().filter(|r| **r == bulk(b"burst")).count(),
        1,
        "{replies:?}"
    );
    assert_eq!(c.cmd("TOPK.LIST t WITHCOUNT").array().len(), 6);
}

#[test]
fn a_count_window_lists_the_heaviest_of_its_last_updates() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("TOPK.RESERVE t 3 500 5 0.9 WINDOW 300 SLOTS 4"), ok());
    // Three heavy items, then three others: after a window and a slot, only the new ones.
    for (heavy, rounds) in [(["a", "b", "c"], 100), (["x", "y", "z"], 130)] {
        for round in 0..rounds {
            let light = format!("light{round}");
            c.call(&["TOPK.ADD", "t", heavy[0], heavy[1], heavy[2], &light]);
        }
    }
    let listed = c.cmd("TOPK.LIST t").sorted_texts();
    assert_eq!(listed, ["x", "y", "z"]);
    for item in ["x", "y", "z"] {
        let count = c.call(&["TOPK.COUNT", "t", item]).array()[0].int();
        // Never above its updates of the window and a slot (75 items' worth of updates).
        assert!((60..=94).contains(&count), "{item}: {count}");
    }
}

fn build(c: &mut Conn) -> Vec<&'static str> {
    c.cmd("TOPK.RESERVE count 5 50 4 0.9 WINDOW 500 SLOTS 3");
    c.cmd("TOPK.RESERVE time 5 50 4 0.8 TIMESPAN 3600000");
    c.cmd("TOPK.RESERVE one 2 8 7 1 TIMESPAN 3600000 SLOTS 8");
    c.cmd("TOPK.RESERVE empty 3 WINDOW 1");
    for i in 0..600u64 {
        let item = format!("item{}", i * 7919 % 40);
        for key in ["count", "time", "one"] {
            c.call(&["TOPK.INCRBY", key, &item, &(i % 5).to_string()]);
        }
    }
    c.call_bytes(&[b"TOPK.INCRBY", b"time", b"n\x00ul", b"500", b"", b"400"]);
    vec!["count", "time", "one", "empty"]
}

const TOPKS: persist::Family = persist::Family {
    build,
    answers: topk::answers,
    write: |c, key| {
        c.call(&["TOPK.INCRBY", key, "new", "1000"]);
    },
};

#[test]
fn topks_that_forget_survive_every_move() {
    persist::survives_every_move(&TOPKS);
}

const STREAM: forgetting::Forgetting = forgetting::Forgetting {
    create: |c| {
        assert_eq!(
            c.cmd("TOPK.RESERVE fast 5 20 4 0.9 TIMESPAN 100 SLOTS 2"),
            ok()
        );
        assert_eq!(c.cmd("TOPK.RESERVE slow 5 20 4 0.5 TIMESPAN 5000"), ok());
        assert_eq!(
            c.cmd("TOPK.RESERVE count 5 20 4 0.9 WINDOW 50 SLOTS 8"),
            ok()
        );
    },
    step: |c, key, rng, _| {
        let item = format!("i{}", rng.below(20) * rng.below(20) / 20);
        c.call(&["TOPK.INCRBY", key, &item, &(1 + rng.below(9)).to_string()]);
    },
    created: |c, key| {
        c.call(&[
            "TOPK.RESERVE",
            key,
            "3",
            "8",
            "7",
            "0.925",
            "TIMESPAN",
            "300",
        ]);
        c.call(&["TOPK.ADD", key, "a", "b"]);
    },
    script: "return redis.call('TOPK.ADD', KEYS[1], 'in-script')",
    keys: &["fast", "slow", "count", "created-0", "created-1"],
    read: |c, key| {
        c.call(&["TOPK.LIST", key, "WITHCOUNT"]);
        c.call(&["TOPK.COUNT", key, "i1", "i2"]);
        c.call(&["TOPK.INFO", key]);
    },
    write: |c, key| {
        c.call(&["TOPK.INCRBY", key, "written", "3"]);
    },
    small: &[
        "TOPK.RESERVE w 2 3 2 0.9 TIMESPAN 1000 SLOTS 1",
        "TOPK.INCRBY w a 5 b 7",
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
