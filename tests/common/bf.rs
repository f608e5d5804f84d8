//! Bloom-filter helpers that suites of every concern use.

use super::{loadchunks_of, scandump_of, Conn, Value};

/// Every (iterator, chunk) pair BF.SCANDUMP gives for `key`; empty for a missing key.
pub fn scandump(c: &mut Conn, key: &str) -> Vec<(i64, Vec<u8>)> {
    scandump_of(c, "BF", key).0
}

/// Replays SCANDUMP pairs with BF.LOADCHUNK, as a client restoring a filter does.
pub fn loadchunks(c: &mut Conn, key: &str, chunks: &[(i64, Vec<u8>)]) {
    loadchunks_of(c, "BF", key, chunks);
}

/// The reply to one `BF.LOADCHUNK key iter data`, for the tests of what it refuses.
pub fn loadchunk(c: &mut Conn, key: &str, iter: i64, data: &[u8]) -> Value {
    c.call_bytes(&[
        b"BF.LOADCHUNK",
        key.as_bytes(),
        iter.to_string().as_bytes(),
        data,
    ])
}

/// The value BF.INFO's RESP2 array gives for `name`.
pub fn info_value(info: &Value, name: &str) -> Value {
    let fields = info.array();
    fields
        .chunks(2)
        .find(|pair| pair[0].text() == name)
        .unwrap_or_else(|| panic!("no {name} in {fields:?}"))[1]
        .clone()
}
