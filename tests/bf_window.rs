//! Filters that forget (`BF.RESERVE … WINDOW`, `… TIMESPAN ms`, the same in BF.INSERT): their
//! replies in RESP2 and RESP3, their errors (which create no key and change nothing), the
//! count window's promise, the time window's on real (short) spans, and reads that change
//! nothing.

mod common;

use common::bf::info_value;
use common::*;

const BOTH: &str = "ERR WINDOW and TIMESPAN cannot be combined";
const NO_SCALING: &str = "ERR WINDOW and TIMESPAN filters take no EXPANSION, NONSCALING or LAYOUT";
const SPAN: &str =
    "ERR timespan must be an integer number of milliseconds in the range [1, 1099511627776]";
const OTHER_KIND: &str =
    "ERR the key holds a filter of another kind than WINDOW or TIMESPAN asks for";
const NOT_REPLAYED: &str =
    "ERR AT is accepted only from the primary's replication stream or the AOF";

/// `n` item names from `from`.
fn items(prefix: &str, from: usize, n: usize) -> Vec<String> {
    (from..from + n).map(|i| format!("{prefix}{i}")).collect()
}

/// `command key item…` for many items.
fn multi(c: &mut Conn, command: &str, key: &str, items: &[String]) -> Value {
    let mut args = vec![command, key];
    args.extend(items.iter().map(String::as_str));
    c.call(&args)
}

/// How many of `items` the filter finds (BF.MEXISTS, read in either protocol).
fn found(c: &mut Conn, key: &str, items: &[String]) -> usize {
    multi(c, "BF.MEXISTS", key, items)
        .array()
        .iter()
        .filter(|v| matches!(v, Value::Int(1) | Value::Bool(true)))
        .count()
}

#[test]
fn count_window_replies_in_resp2_and_resp3() {
    let (server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE w 0.01 1000 WINDOW"), ok());
    assert_eq!(c.cmd("TYPE w"), simple("bf-window"));
    assert_eq!(
        c.cmd("BF.RESERVE w 0.01 1000 WINDOW"),
        err("ERR item exists")
    );
    assert_eq!(c.cmd("BF.ADD w a"), int(1));
    assert_eq!(c.cmd("BF.ADD w a"), int(0), "found, and renewed");
    assert_eq!(c.cmd("BF.MADD w a b c"), ints(&[0, 1, 1]));
    assert_eq!(c.cmd("BF.INSERT w ITEMS c d"), ints(&[0, 1]));
    assert_eq!(c.cmd("BF.EXISTS w d"), int(1));
    assert_eq!(c.cmd("BF.EXISTS w never"), int(0));
    assert_eq!(c.cmd("BF.MEXISTS w a never"), ints(&[1, 0]));
    assert_eq!(c.cmd("BF.CARD w"), int(4));
    let size = c.cmd("MEMORY USAGE w").int();
    let info = c.cmd("BF.INFO w");
    let fields = info.array();
    // RedisBloom's five fields first, as clients (redis-py's BFInfo) index them.
    assert_eq!(
        fields[..10].to_vec(),
        vec![
            simple("Capacity"),
            int(1000),
            simple("Size"),
            info_value(&info, "Size"),
            simple("Number of filters"),
            int(1),
            simple("Number of items inserted"),
            int(4),
            simple("Expansion rate"),
            Value::Nil,
        ]
    );
    let own_size = info_value(&info, "Size").int();
    assert!(
        (own_size..own_size + 256).contains(&size),
        "{size} {own_size}"
    );
    assert_eq!(info_value(&info, "Window type"), bulk(b"count"));
    let k = info_value(&info, "Hash functions").int();
    let slices = info_value(&info, "Slices").int();
    let generation = info_value(&info, "Generation size").int();
    let held = info_value(&info, "Window held (additions)").int();
    assert_eq!(held, (slices - k) * generation + 1);
    assert!(held > 1000, "{held}");
    assert_eq!(info_value(&info, "Total additions"), int(7));
    assert_eq!(c.cmd("BF.INFO w CAPACITY"), ints(&[1000]));
    assert_eq!(c.cmd("BF.INFO w ITEMS"), ints(&[4]));
    assert_eq!(c.cmd("BF.INFO w FILTERS"), ints(&[1]));
    assert_eq!(c.cmd("BF.INFO w EXPANSION"), Value::Array(vec![Value::Nil]));
    assert_eq!(
        c.cmd("BF.INFO w LAYOUT"),
        Value::Array(vec![bulk(b"window")])
    );
    assert_eq!(c.cmd("BF.INFO w BOGUS"), err("Invalid information value"));
    let debug = c.cmd("BF.DEBUG w").array();
    assert_eq!(debug[0], bulk(b"size:4"));
    assert!(
        debug[1].text().starts_with("window:count hashes:"),
        "{debug:?}"
    );
    assert_eq!(debug[2], bulk(b"generation:0 slice:0 items:4"));

    let mut r3 = server.conn().resp3();
    assert_eq!(r3.cmd("BF.ADD w e"), resp3_bool(true));
    assert_eq!(r3.cmd("BF.MADD w e f"), bools(&[false, true]));
    assert_eq!(r3.cmd("BF.MEXISTS w e never"), bools(&[true, false]));
    let info = r3.cmd("BF.INFO w");
    let pairs: Vec<(Value, Value)> = match &info {
        Value::Map(pairs) => pairs.clone(),
        Value::Array(flat) => flat
            .chunks(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect(),
        other => panic!("{other:?}"),
    };
    assert_eq!(pairs[4].0, simple("Expansion rate"));
    // A RESP3 null from every server (modules' maps and booleans need Redis 7.0).
    assert_eq!(pairs[4].1, Value::Null);
    assert_eq!(pairs[5], (simple("Window type"), bulk(b"count")));
    assert_eq!(
        r3.cmd("BF.INFO w ITEMS"),
        if feature::module_resp3() {
            Value::Map(vec![(simple("Number of items inserted"), int(6))])
        } else {
            ints(&[6])
        }
    );
}

#[test]
fn time_window_replies() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE t 0.001 5000 TIMESPAN 60000"), ok());
    assert_eq!(c.cmd("TYPE t"), simple("bf-window"));
    assert_eq!(c.cmd("BF.MADD t a b a"), ints(&[1, 1, 0]));
    let info = c.cmd("BF.INFO t");
    assert_eq!(info_value(&info, "Capacity"), int(5000));
    assert_eq!(info_value(&info, "Number of items inserted"), int(2));
    assert_eq!(info_value(&info, "Window type"), bulk(b"time"));
    assert_eq!(info_value(&info, "Timespan (ms)"), int(60000));
    assert_eq!(info_value(&info, "Time slots"), int(4));
    assert_eq!(info_value(&info, "Window held (ms)"), int(60000));
    assert_eq!(info_value(&info, "Early slides"), int(0));
    assert_eq!(info_value(&info, "Items in current generation"), int(3));
    let debug = c.cmd("BF.DEBUG t").array();
    assert!(debug[1]
        .text()
        .starts_with("window:time timespan:60000 now_ms:"));
    assert!(debug[2]
        .text()
        .starts_with("generation:0 slice:0 items:2 latest_ms:"));
    // BF.INSERT creates one too, and replies as BF.MADD.
    assert_eq!(
        c.cmd("BF.INSERT i CAPACITY 100 ERROR 0.01 TIMESPAN 1000 ITEMS x y x"),
        ints(&[1, 1, 0])
    );
    assert_eq!(c.cmd("BF.INSERT j window ITEMS x"), ints(&[1]));
    assert_eq!(c.cmd("BF.INFO i CAPACITY"), ints(&[100]));
    assert_eq!(c.cmd("BF.INFO j CAPACITY"), ints(&[100]), "bf-initial-size");
    // Existing window filters ignore creation options of their kind.
    assert_eq!(
        c.cmd("BF.INSERT i TIMESPAN 5 CAPACITY 9 ITEMS z"),
        ints(&[1])
    );
    assert_eq!(c.cmd("BF.INSERT j NOCREATE WINDOW ITEMS z"), ints(&[1]));
    assert_eq!(c.cmd("BF.INFO i CAPACITY"), ints(&[100]));
}

#[test]
fn bad_input_creates_nothing_and_changes_nothing() {
    let server = Server::with_setting("bf-memory-usage-limit", "64kb");
    let mut c = server.conn();
    for (line, error) in [
        ("BF.RESERVE k 0.01 100 WINDOW EXPANSION 2", NO_SCALING),
        ("BF.RESERVE k 0.01 100 WINDOW NONSCALING", NO_SCALING),
        ("BF.RESERVE k 0.01 100 TIMESPAN 1000 NONSCALING", NO_SCALING),
        (
            "BF.RESERVE k 0.01 100 EXPANSION 4 TIMESPAN 1000",
            NO_SCALING,
        ),
        (
            "BF.RESERVE k 0.01 100 TIMESPAN 1000 LAYOUT FAST",
            NO_SCALING,
        ),
        ("BF.RESERVE k 0.01 100 WINDOW TIMESPAN 1000", BOTH),
        ("BF.RESERVE k 0.01 100 TIMESPAN 0", SPAN),
        ("BF.RESERVE k 0.01 100 TIMESPAN -5", SPAN),
        ("BF.RESERVE k 0.01 100 TIMESPAN abc", SPAN),
        ("BF.RESERVE k 0.01 100 TIMESPAN 2.5", SPAN),
        ("BF.RESERVE k 0.01 100 TIMESPAN 1099511627777", SPAN),
        ("BF.RESERVE k 0.01 100 TIMESPAN", SPAN),
        (
            "BF.RESERVE k 0.01 0 WINDOW",
            "ERR capacity must be in the range [1, 1073741824]",
        ),
        (
            "BF.RESERVE k 2 100 WINDOW",
            "ERR error rate must be in the range (0.000000, 1.000000)",
        ),
        (
            "BF.RESERVE k 0.01 100000 WINDOW",
            "ERR operation exceeds bloom object memory limit",
        ),
        ("BF.INSERT k WINDOW EXPANSION 2 ITEMS a", NO_SCALING),
        ("BF.INSERT k WINDOW NONSCALING ITEMS a", NO_SCALING),
        ("BF.INSERT k TIMESPAN 1000 NONSCALING ITEMS a", NO_SCALING),
        ("BF.INSERT k WINDOW TIMESPAN 1000 ITEMS a", BOTH),
        ("BF.INSERT k TIMESPAN 0 ITEMS a", SPAN),
        ("BF.INSERT k TIMESPAN -5 ITEMS a", SPAN),
        ("BF.INSERT k TIMESPAN abc ITEMS a", SPAN),
        (
            "BF.INSERT k CAPACITY 100000 WINDOW ITEMS a",
            "ERR operation exceeds bloom object memory limit",
        ),
        ("BF.INSERT k NOCREATE WINDOW ITEMS a", "ERR not found"),
        // The replicated time: never from a client.
        ("BF.INSERT k AT 1700000000000 ITEMS a", NOT_REPLAYED),
        ("BF.INSERT k TIMESPAN 1000 AT 1 ITEMS a", NOT_REPLAYED),
    ] {
        assert_eq!(c.cmd(line), err(error), "{line}");
        assert_eq!(c.cmd("DBSIZE"), int(0), "{line}");
    }
    // Arity, as for BF.INSERT's other options.
    assert_eq!(c.cmd("BF.INSERT k TIMESPAN"), arity_error("BF.INSERT"));
    // On existing keys of another kind, nothing changes either.
    c.cmd("BF.RESERVE classic 0.01 100");
    c.cmd("BF.ADD classic a");
    c.cmd("BF.RESERVE count 0.01 100 WINDOW");
    c.cmd("BF.RESERVE time 0.01 100 TIMESPAN 60000");
    c.cmd("SET str x");
    let digest = c.cmd("DEBUG DIGEST");
    for (line, error) in [
        ("BF.INSERT classic WINDOW ITEMS b", OTHER_KIND),
        ("BF.INSERT classic TIMESPAN 100 ITEMS b", OTHER_KIND),
        ("BF.INSERT count TIMESPAN 100 ITEMS b", OTHER_KIND),
        ("BF.INSERT time WINDOW ITEMS b", OTHER_KIND),
        ("BF.INSERT count AT 5 ITEMS b", NOT_REPLAYED),
        ("BF.RESERVE count 0.01 100 WINDOW", "ERR item exists"),
        ("BF.RESERVE time 0.01 100", "ERR item exists"),
        ("BF.RESERVE str 0.01 100 WINDOW", WRONGTYPE),
        ("BF.INSERT str WINDOW ITEMS b", WRONGTYPE),
    ] {
        assert_eq!(c.cmd(line), err(error), "{line}");
    }
    assert_eq!(c.cmd("DEBUG DIGEST"), digest);
    assert_eq!(c.cmd("BF.CARD classic"), int(1));
    assert_eq!(c.cmd("BF.EXISTS str a"), int(0));
}

/// RedisBloom scans every argument for its words: a key named `window` or `timespan`, or a
/// value of another option, is not an option here.
#[test]
fn options_are_read_by_position() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE window 0.01 100"), ok());
    assert_eq!(c.cmd("TYPE window"), simple("MBbloom--"));
    assert_eq!(c.cmd("BF.INSERT timespan ITEMS window"), ints(&[1]));
    assert_eq!(c.cmd("TYPE timespan"), simple("MBbloom--"));
    assert_eq!(
        c.cmd("BF.RESERVE k 0.01 100 EXPANSION window"),
        err("ERR bad expansion")
    );
    assert_eq!(c.cmd("BF.RESERVE k 0.01 100 TIMESPAN window"), err(SPAN));
    // Missing keys still become classic scaling filters through BF.ADD.
    c.cmd("BF.ADD plain x");
    assert_eq!(c.cmd("TYPE plain"), simple("MBbloom--"));
}

#[test]
fn a_count_window_finds_its_last_capacity_additions_and_forgets_the_rest() {
    let (_server, mut c) = Server::start_with_conn();
    let capacity = 1000;
    assert_eq!(c.cmd("BF.RESERVE w 0.01 1000 WINDOW"), ok());
    assert_eq!(c.cmd("BF.RESERVE c 0.01 1000 NONSCALING"), ok());
    let total = 10_000;
    for batch in 0..total / 250 {
        multi(&mut c, "BF.MADD", "w", &items("i", batch * 250, 250));
        let end = (batch + 1) * 250;
        let start = end.saturating_sub(capacity);
        assert_eq!(
            found(&mut c, "w", &items("i", start, end - start)),
            end - start
        );
    }
    // Additions older than twice the capacity are found at about the error rate.
    let old = found(&mut c, "w", &items("i", 0, total - 2 * capacity));
    assert!(old < (total - 2 * capacity) / 30, "{old}");
    let strangers = found(&mut c, "w", &items("never", 0, 20_000));
    assert!(strangers <= 20_000 / 100 * 13 / 10, "{strangers}");
    assert!(c.cmd("BF.CARD w").int() <= 1200);
    // Memory, as the reference targets: about 2× a non-scaling filter of the capacity.
    let window = c.cmd("MEMORY USAGE w").int() as f64;
    let classic = c.cmd("MEMORY USAGE c").int() as f64;
    assert!(window / classic < 2.5, "{window} / {classic}");
}

#[test]
fn an_item_added_again_is_renewed() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE w 0.01 200 WINDOW");
    assert_eq!(c.cmd("BF.ADD w kept"), int(1));
    for round in 0..10 {
        multi(
            &mut c,
            "BF.MADD",
            "w",
            &items(&format!("r{round}-"), 0, 150),
        );
        assert_eq!(c.cmd("BF.ADD w kept"), int(0), "round {round}");
    }
    assert_eq!(c.cmd("BF.EXISTS w kept"), int(1));
    // No longer renewed: forgotten.
    multi(&mut c, "BF.MADD", "w", &items("late", 0, 1000));
    assert_eq!(c.cmd("BF.EXISTS w kept"), int(0));
}

#[test]
fn a_time_window_keeps_a_burst_for_its_span_then_forgets_it_without_writes() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("BF.RESERVE t 0.01 1000 TIMESPAN 1000"), ok());
    let burst = items("b", 0, 500);
    let start = std::time::Instant::now();
    assert_eq!(
        multi(&mut c, "BF.MADD", "t", &burst),
        Value::Array(vec![int(1); 500])
    );
    assert_eq!(found(&mut c, "t", &burst), 500);
    let dump = c.cmd("DUMP t");
    let digest = c.cmd("DEBUG DIGEST-VALUE t");
    std::thread::sleep(std::time::Duration::from_millis(700));
    if start.elapsed().as_millis() < 950 {
        assert_eq!(found(&mut c, "t", &burst), 500, "within the span");
        assert_eq!(c.cmd("BF.CARD t"), int(500));
    }
    // Forgotten within span × (1 + 1/4), with no write in between.
    std::thread::sleep(std::time::Duration::from_millis(1300 - 700));
    assert_eq!(found(&mut c, "t", &burst), 0);
    assert_eq!(c.cmd("BF.CARD t"), int(0));
    assert_eq!(
        info_value(&c.cmd("BF.INFO t"), "Number of items inserted"),
        int(0)
    );
    // Every read above changed nothing.
    c.cmd("BF.SCANDUMP t 0");
    c.cmd("BF.DEBUG t");
    assert_eq!(c.cmd("DUMP t"), dump);
    assert_eq!(c.cmd("DEBUG DIGEST-VALUE t"), digest);
    // The next write drops what expired: CARD counts only the new item.
    assert_eq!(c.cmd("BF.ADD t b0"), int(1));
    assert_eq!(c.cmd("BF.CARD t"), int(1));
}

#[test]
fn more_than_capacity_within_the_span_shortens_the_window_and_says_so() {
    let (_server, mut c) = Server::start_with_conn();
    c.cmd("BF.RESERVE t 0.01 200 TIMESPAN 60000");
    for round in 0..10 {
        multi(
            &mut c,
            "BF.MADD",
            "t",
            &items(&format!("r{round}-"), 0, 200),
        );
    }
    let info = c.cmd("BF.INFO t");
    assert!(info_value(&info, "Early slides").int() > 0);
    assert!(info_value(&info, "Window held (ms)").int() < 60000);
    // The last capacity additions are still found, and strangers at about the error rate.
    assert_eq!(found(&mut c, "t", &items("r9-", 0, 200)), 200);
    assert!(found(&mut c, "t", &items("never", 0, 10_000)) < 200);
}

#[test]
fn transactions_and_scripts_write_window_filters() {
    let (_server, mut c) = Server::start_with_conn();
    assert_eq!(c.cmd("MULTI"), ok());
    c.cmd("BF.RESERVE t 0.01 100 TIMESPAN 60000");
    c.cmd("BF.ADD t a");
    c.cmd("BF.INSERT t ITEMS a b");
    assert_eq!(
        c.cmd("EXEC"),
        Value::Array(vec![ok(), int(1), ints(&[0, 1])])
    );
    let script = "return redis.call('BF.MADD', KEYS[1], 'c', 'a')";
    assert_eq!(c.call(&["EVAL", script, "1", "t"]), ints(&[1, 0]));
    assert_eq!(c.cmd("BF.CARD t"), int(3));
}

#[test]
fn keyspace_notifications_for_window_writes() {
    let Some((events, _)) = keyspace_events_of(&[
        "BF.RESERVE t 0.01 10 TIMESPAN 1000",
        "BF.ADD t a",
        "BF.MADD t a",
        "BF.INSERT w WINDOW ITEMS b",
    ]) else {
        return;
    };
    assert_eq!(events, ["bf.reserve", "bf.add", "bf.add", "bf.add"]);
}

/// `INFO bf`'s Bloom totals count window filters as one filter each, with their capacity and
/// the items within their window (as BF.CARD), through writes, copies, reloads and deletes.
#[test]
fn window_filters_join_the_bloom_totals() {
    let (_server, mut c) = Server::start_with_conn();
    let totals = |c: &mut Conn| -> Vec<i64> {
        [
            "bf_bloom_num_objects",
            "bf_bloom_total_memory_bytes",
            "bf_bloom_num_filters_across_objects",
            "bf_bloom_num_items_across_objects",
            "bf_bloom_capacity_across_objects",
        ]
        .iter()
        .map(|name| info_field(c, "bf", name).parse().unwrap())
        .collect()
    };
    c.cmd("BF.RESERVE w 0.01 200 WINDOW");
    c.cmd("BF.INSERT t CAPACITY 300 TIMESPAN 60000 ITEMS a b a");
    c.cmd("BF.MADD w a b c");
    let size = |c: &mut Conn, key: &str| c.call(&["BF.INFO", key, "SIZE"]).array()[0].int();
    let bytes = size(&mut c, "w") + size(&mut c, "t");
    assert_eq!(totals(&mut c), vec![2, bytes, 2, 5, 500]);
    multi(&mut c, "BF.MADD", "w", &items("more", 0, 1000));
    let card = c.cmd("BF.CARD w").int() + 2;
    assert_eq!(totals(&mut c)[3], card);
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    // The old values may be freed after the load, on the lazy-free thread (Valkey 9).
    let reloaded = vec![2, bytes, 2, card, 500];
    wait_for("the old values' free", || totals(&mut c) == reloaded);
    c.cmd("DEL w t");
    assert_eq!(totals(&mut c), vec![0, 0, 0, 0, 0]);
}
