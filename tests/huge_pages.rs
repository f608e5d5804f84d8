//! `bf-huge-pages`: bit arrays of 2 MiB or more ask for transparent huge pages once they are
//! dense — written by as many items as they have 4 KiB blocks (a window filter: once its ring
//! has gone round), or loaded whole: RDB load (and so RESTORE), LOADCHUNK of a full dump — never
//! fresh (BF.RESERVE, scaling), where each item written at random would fault in 2 MiB; unless
//! the config is `no`. `INFO bf` says which (`bf_huge_pages`) and how many bytes were advised.
//! Where the system cannot give huge pages (setting `never`, or `always`, which the server turns
//! off for its process), the state says why and nothing is advised.
// matrix: no — it tests this machine's transparent huge pages.

mod common;

use common::*;

fn info(c: &mut Conn, field: &str) -> String {
    info_field(c, "bf", field)
}

fn advised(c: &mut Conn) -> u64 {
    info(c, "bf_huge_pages_advised_bytes").parse().unwrap()
}

/// Whether this machine gives huge pages to advised memory (system setting `madvise`).
fn available(c: &mut Conn) -> bool {
    let state = info(c, "bf_huge_pages");
    assert!(
        state == "yes" || state.starts_with("unavailable ("),
        "bf_huge_pages: {state:?}"
    );
    state == "yes"
}

/// A server on a machine that gives huge pages to advised memory, or `None` (and a line in
/// the test's output) where advice has no effect, so there is nothing to check.
fn server_with_huge_pages() -> Option<(Server, Conn)> {
    let (server, mut c) = Server::start_with_conn();
    if available(&mut c) {
        return Some((server, c));
    }
    eprintln!("transparent huge pages are unavailable here: nothing to check");
    None
}

/// About 74 MiB of bits: 2 MiB-aligned parts of it are advised (at least 62 MiB).
const BIG: &str = "56000000";
const BIG_ADVISED: u64 = 62 << 20;
/// Items enough to make that array dense: more than its 4 KiB blocks (about 18,850).
const DENSE_ITEMS: usize = 20_000;

/// Adds the distinct items `first..first + count` to `key` in one BF.MADD.
fn add_items(c: &mut Conn, key: &str, first: usize, count: usize) -> Value {
    let items: Vec<String> = (first..first + count).map(|i| i.to_string()).collect();
    let mut args = vec!["BF.MADD", key];
    args.extend(items.iter().map(String::as_str));
    c.call(&args)
}

#[test]
fn big_arrays_are_advised_however_they_are_made() {
    let (_server, mut c) = Server::start_with_conn();
    if !available(&mut c) {
        eprintln!(
            "transparent huge pages are unavailable here: {}",
            info(&mut c, "bf_huge_pages")
        );
        assert_eq!(c.cmd(&format!("BF.RESERVE big 0.01 {BIG}")), ok());
        assert_eq!(advised(&mut c), 0);
        return;
    }
    let step_advising = |c: &mut Conn, what: &str, command: &str, at_least: u64| {
        let before = advised(c);
        let reply = c.cmd(command);
        assert!(!reply.is_error(), "{what}: {reply:?}");
        let grew = advised(c) - before;
        assert!(grew >= at_least, "{what}: {grew} bytes advised");
    };
    let step =
        |c: &mut Conn, what: &str, command: &str| step_advising(c, what, command, BIG_ADVISED);
    let fresh = |c: &mut Conn, what: &str, command: &str| {
        let before = advised(c);
        assert!(!c.cmd(command).is_error(), "{what}");
        assert_eq!(advised(c), before, "{what}: fresh arrays are not advised");
    };
    fresh(&mut c, "BF.RESERVE", &format!("BF.RESERVE big 0.01 {BIG}"));
    fresh(
        &mut c,
        "BF.RESERVE LAYOUT FAST",
        &format!("BF.RESERVE fast 0.01 {BIG} LAYOUT FAST"),
    );
    for key in ["big", "fast"] {
        let before = advised(&mut c);
        assert!(!add_items(&mut c, key, 0, DENSE_ITEMS).is_error());
        let grew = advised(&mut c) - before;
        assert!(
            grew >= BIG_ADVISED,
            "{key} made dense: {grew} bytes advised"
        );
    }
    // A small filter that scales into a big sub-filter (32.768M items at 0.5%, about 47 MiB of
    // bits): 2000 items fill the first (false positives add nothing, so exactly 1000 would
    // not always do), and the new one holds too few to be dense.
    c.cmd("BF.RESERVE grows 0.01 1000 EXPANSION 32768");
    let before = advised(&mut c);
    assert!(!add_items(&mut c, "grows", 0, 2000).is_error());
    assert_eq!(c.cmd("BF.INFO grows FILTERS"), ints(&[2]));
    assert_eq!(advised(&mut c), before, "scaling: a fresh sub-filter");
    step(&mut c, "DEBUG RELOAD (RDB load)", "DEBUG RELOAD");
    // RESTORE of a DUMP payload loads through the same callback.
    let payload = c.cmd("DUMP big").bulk();
    let before = advised(&mut c);
    let reply = c.call_bytes(&[b"RESTORE", b"restored", b"0", &payload]);
    assert_eq!(reply, ok());
    assert!(advised(&mut c) - before >= BIG_ADVISED, "RESTORE");
    // LOADCHUNK: the chunks of a dense filter fill the array the header made.
    let chunks = bf::scandump(&mut c, "big");
    let before = advised(&mut c);
    bf::loadchunks(&mut c, "copied", &chunks);
    assert!(advised(&mut c) - before >= BIG_ADVISED, "LOADCHUNK");
    assert_eq!(c.cmd("BF.EXISTS copied 5"), c.cmd("BF.EXISTS big 5"));
    // Small arrays never are.
    let before = advised(&mut c);
    c.cmd("BF.RESERVE small 0.01 100000");
    assert_eq!(advised(&mut c), before);
}

/// A window filter is dense once its ring has gone round: every slice has held a generation
/// (`(slices − 1) × generation` additions, then one more). It is advised then, once, and never
/// while young.
#[test]
fn window_filters_are_advised_once_their_ring_has_turned() {
    let Some((_server, mut c)) = server_with_huge_pages() else {
        return;
    };
    // About 6.8 MB of bits: at least one aligned 2 MiB page.
    assert_eq!(c.cmd("BF.RESERVE win 0.0001 1500000 WINDOW"), ok());
    let info = c.cmd("BF.INFO win");
    let field = |name: &str| bf::info_value(&info, name).int() as usize;
    let to_turn = (field("Slices") - 1) * field("Generation size");
    let mut added = 0;
    let mut add = |c: &mut Conn, count: usize| {
        for first in (added..added + count).step_by(50_000) {
            let batch = 50_000.min(added + count - first);
            assert!(!add_items(c, "win", first, batch).is_error());
        }
        added += count;
    };
    let before = advised(&mut c);
    add(&mut c, to_turn);
    assert_eq!(
        advised(&mut c),
        before,
        "young: every slice but one held a generation"
    );
    add(&mut c, 1);
    let turned = advised(&mut c);
    assert!(
        turned - before >= 2 << 20,
        "turned: {} bytes",
        turned - before
    );
    add(&mut c, 100_000);
    assert_eq!(advised(&mut c), turned, "advised once");
    // The latest additions are found; the first ones, more than the window ago, are not.
    let latest = (added - 1).to_string();
    assert_eq!(c.call(&["BF.EXISTS", "win", &latest]), int(1));
    assert_eq!(c.cmd("BF.EXISTS win 1"), int(0));
}

/// A window filter of several RDB strings is read into one array advised before they are
/// copied in. A DEBUG RELOAD then advises its 16 MiB string as the server reads it (at least
/// 12 MiB of it, 2 MiB-aligned) and the whole array besides (at least its size less 4 MiB):
/// more than the filter's size in all, where the strings alone come to less.
#[test]
fn a_window_of_several_rdb_strings_is_advised_whole_when_loaded() {
    let Some((_server, mut c)) = server_with_huge_pages() else {
        return;
    };
    // About 20 MB of bits: two strings.
    assert_eq!(c.cmd("BF.RESERVE win 0.01 8000000 WINDOW"), ok());
    c.cmd("BF.MADD win a b c");
    let size = bf::info_value(&c.cmd("BF.INFO win"), "Size").int() as u64;
    let before = advised(&mut c);
    assert_eq!(c.cmd("DEBUG RELOAD"), ok());
    let grew = advised(&mut c) - before;
    assert!(grew > size, "{grew} bytes advised for {size}");
    assert_eq!(c.cmd("BF.MEXISTS win a b c d"), ints(&[1, 1, 1, 0]));
}

#[test]
fn the_config_turns_it_off_for_new_arrays() {
    let server = Server::with_setting("bf-huge-pages", "no");
    let mut c = server.conn();
    assert_eq!(info(&mut c, "bf_huge_pages"), "no");
    c.cmd(&format!("BF.RESERVE big 0.01 {BIG}"));
    assert_eq!(advised(&mut c), 0);
    if !feature::module_configs() {
        // Before Redis 7.0 module arguments are the only way to set it.
        return;
    }
    let name = config_name(&mut c, "bf-huge-pages");
    assert_eq!(c.call(&["CONFIG", "GET", &name]).array()[1].text(), "no");
    assert!(c.call(&["CONFIG", "SET", &name, "maybe"]).is_error());
    assert_eq!(c.call(&["CONFIG", "SET", &name, "YES"]), ok());
    assert_eq!(c.call(&["CONFIG", "GET", &name]).array()[1].text(), "yes");
    if available(&mut c) {
        c.cmd(&format!("BF.RESERVE big2 0.01 {BIG}"));
        add_items(&mut c, "big2", 0, DENSE_ITEMS);
        assert!(advised(&mut c) >= BIG_ADVISED);
    }
}

#[test]
fn bad_module_argument_is_refused() {
    let refused = Server::with(Module::RedisBf)
        .setting("bf-huge-pages", "sometimes")
        .try_start();
    let log = refused
        .err()
        .expect("the module must refuse bf-huge-pages sometimes");
    assert!(log.contains("bf-huge-pages"), "{log}");
}
