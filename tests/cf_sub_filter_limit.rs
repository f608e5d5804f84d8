//! The last limit on a Cuckoo filter's growth: 65535 sub-filters, as RedisBloom 8 refuses a
//! 65536th (`src/cuckoo.c`; its `tests/flow/test_cuckoo.py`,
//! `test_counter_overflow_with_large_number_of_items`).
// matrix: no — a minute of the module's own work (65534 LOADCHUNKs, each walking the
// sub-filters before it, as RedisBloom's does) and no server API that the Cuckoo suites on the
// matrix do not already use.

mod common;

use common::*;

#[test]
fn growth_stops_at_65535_sub_filters() {
    // The limit may not stop the growth first (a module argument: every server takes it).
    let server = Server::with(Module::RedisBf)
        .setting("cf-max-expansions", "65536")
        .start();
    let mut c = server.conn();
    // RedisBloom's test_counter_overflow_with_large_number_of_items grows a filter one
    // sub-filter at a time until RedisBloom 8 refuses a 65536th; here a SCANDUMP stream
    // builds the 65534 full one-slot sub-filters it would reach, pipelined.
    let filters = 65534u64;
    let mut header = Vec::new();
    for field in [filters, 1, 0, filters] {
        header.extend_from_slice(&field.to_le_bytes());
    }
    header.extend_from_slice(&[1, 0, 20, 0, 1, 0]);
    assert_eq!(c.call_bytes(&[b"CF.LOADCHUNK", b"cf", b"1", &header]), ok());
    for i in 0..filters {
        let iter = (i + 2).to_string();
        c.send(&[
            b"CF.LOADCHUNK",
            b"cf",
            iter.as_bytes(),
            &[(i % 255 + 1) as u8],
        ]);
    }
    for _ in 0..filters {
        assert_eq!(c.read(), ok());
    }
    // The first item gets the 65535th sub-filter, the rest find no room and may not grow.
    assert_eq!(c.cmd("CF.INSERT cf ITEMS a b c"), ints(&[1, -1, -1]));
    assert_eq!(c.cmd("CF.ADD cf d"), err("ERR Insufficient memory"));
    assert_eq!(
        c.cmd("CF.DEBUG cf"),
        bulk(b"bktsize:1 buckets:1 items:65535 deletes:0 filters:65535 max_iterations:20 expansion:1")
    );
    assert_eq!(c.cmd("CF.EXISTS cf a"), int(1));
    assert_eq!(c.cmd("CF.DEL cf a"), int(1));
}
