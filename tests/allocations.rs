//! The single-item commands — BF.EXISTS, BF.ADD, BF.CARD, BF.INFO with a field — allocate
//! nothing: not per call, not per item, in neither protocol, on any path they can take (found,
//! missing key, wrong type, error reply). The module counts every allocation it makes through
//! its global allocator (`bf_heap_allocations` in `INFO bf`); each test reads that count
//! around a batch of commands on a real server and wants it unchanged. A change that makes
//! one of these commands allocate fails here, naming the command.
// matrix: no — it counts this build's allocations on this machine's server.

mod common;

use common::*;

/// Times each command runs: an allocation on any of its paths shows as at least this many.
const REPEAT: usize = 200;

/// The module's allocation count.
fn allocations(c: &mut Conn) -> u64 {
    let count = info_field(c, "bf", "bf_heap_allocations");
    count
        .parse()
        .unwrap_or_else(|_| panic!("no bf_heap_allocations in INFO bf: {count:?}"))
}

/// Allocations the module made while `commands` ran, pipelined. Reading the count is itself
/// a command: what one read costs (two reads in a row tell) is taken off.
fn allocations_of(c: &mut Conn, commands: &[Vec<String>]) -> u64 {
    let first = allocations(c);
    let second = allocations(c);
    let per_read = second - first;
    for args in commands {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        c.send(&args);
    }
    for args in commands {
        let reply = c.read();
        assert!(
            !matches!(reply, Value::Error(ref e) if e.contains("internal error")),
            "{args:?}: {reply:?}"
        );
    }
    allocations(c) - second - per_read
}

/// Each command `REPEAT` times.
fn repeated(commands: &[&[&str]]) -> Vec<Vec<String>> {
    let once = commands
        .iter()
        .map(|args| args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
    let once: Vec<Vec<String>> = once.collect();
    (0..REPEAT).flat_map(|_| once.clone()).collect()
}

/// Fixtures: a classic filter, a fast one, a chain of several sub-filters, a roomy filter
/// for adds (adding never grows it here), and a string.
fn fixtures(c: &mut Conn) {
    c.cmd("BF.RESERVE classic 0.01 1000");
    c.cmd("BF.RESERVE fast 0.01 1000 LAYOUT FAST");
    c.cmd("BF.RESERVE roomy 0.001 1000000");
    c.cmd("BF.RESERVE roomyfast 0.001 1000000 LAYOUT FAST");
    c.cmd("BF.RESERVE chain 0.01 10");
    for key in ["classic", "fast", "chain", "roomy", "roomyfast"] {
        let mut args = vec!["BF.MADD", key];
        let items: Vec<String> = (0..100).map(|i| format!("item{i}")).collect();
        args.extend(items.iter().map(String::as_str));
        assert!(c.call(&args).array().iter().all(|r| !r.is_error()));
    }
    assert!(
        c.cmd("BF.DEBUG chain").array().len() > 3,
        "chain has several links"
    );
    c.cmd("SET string value");
}

/// Every path of the single-item commands, in the client's protocol.
fn single_item_commands(c: &mut Conn) {
    let cases: &[(&str, &[&[&str]])] = &[
        (
            "BF.EXISTS",
            &[
                &["BF.EXISTS", "classic", "item7"],
                &["BF.EXISTS", "classic", "absent"],
                &["BF.EXISTS", "fast", "item7"],
                &["BF.EXISTS", "fast", "absent"],
                &["BF.EXISTS", "chain", "item1"],
                &["BF.EXISTS", "chain", "absent"],
                &["BF.EXISTS", "missing", "item7"],
                &["BF.EXISTS", "string", "item7"],
            ],
        ),
        (
            "BF.ADD",
            &[
                &["BF.ADD", "roomy", "item7"],
                &["BF.ADD", "roomyfast", "item7"],
                &["BF.ADD", "chain", "item1"],
                &["BF.ADD", "string", "item7"],
            ],
        ),
        (
            "BF.CARD",
            &[
                &["BF.CARD", "classic"],
                &["BF.CARD", "fast"],
                &["BF.CARD", "missing"],
                &["BF.CARD", "string"],
            ],
        ),
        (
            "BF.INFO <field>",
            &[
                &["BF.INFO", "classic", "CAPACITY"],
                &["BF.INFO", "classic", "size"],
                &["BF.INFO", "chain", "FILTERS"],
                &["BF.INFO", "fast", "ITEMS"],
                &["BF.INFO", "classic", "EXPANSION"],
                &["BF.INFO", "fast", "LAYOUT"],
                &["BF.INFO", "classic", "NOSUCHFIELD"],
                &["BF.INFO", "missing", "CAPACITY"],
                &["BF.INFO", "string", "CAPACITY"],
            ],
        ),
    ];
    for (command, runs) in cases {
        assert_eq!(
            allocations_of(c, &repeated(runs)),
            0,
            "{command} allocated: the single-item commands must not ({runs:?})"
        );
    }
    // New items, each once: adds that set bits (the filters have room: none grows).
    let new_items: Vec<Vec<String>> = ["roomy", "roomyfast"]
        .iter()
        .flat_map(|key| {
            (0..REPEAT).map(move |i| vec!["BF.ADD".into(), key.to_string(), format!("new{i}")])
        })
        .collect();
    assert_eq!(
        allocations_of(c, &new_items),
        0,
        "BF.ADD of new items allocated"
    );
    assert_eq!(c.cmd("BF.CARD roomy").int(), 100 + REPEAT as i64);
}

#[test]
fn single_item_commands_allocate_nothing() {
    let (_server, mut c) = Server::start_with_conn();
    fixtures(&mut c);
    single_item_commands(&mut c);
}

#[test]
fn single_item_commands_allocate_nothing_in_resp3() {
    let server = Server::start();
    let mut c = server.conn().resp3();
    fixtures(&mut c);
    single_item_commands(&mut c);
}

#[test]
fn the_count_sees_allocations() {
    // The control: commands that do allocate move the count, so a zero above means something.
    let (_server, mut c) = Server::start_with_conn();
    let at_least = REPEAT as u64;
    let create = repeated(&[&["BF.RESERVE", "made", "0.01", "100"], &["DEL", "made"]]);
    assert!(allocations_of(&mut c, &create) >= at_least);
    let auto_create = repeated(&[&["BF.ADD", "auto", "item"], &["DEL", "auto"]]);
    assert!(allocations_of(&mut c, &auto_create) >= at_least);
    c.cmd("BF.RESERVE f 0.01 1000");
    let full_info = repeated(&[&["BF.INFO", "f"]]);
    assert!(
        allocations_of(&mut c, &full_info) >= at_least,
        "the full BF.INFO builds its map"
    );
}
