//! Bloom-filter helpers that suites of every concern use.

use super::{ok, Conn, Value};

/// Every (iterator, chunk) pair BF.SCANDUMP gives for `key`; empty for a missing key.
pub fn scandump(c: &mut Conn, key: &str) -> Vec<(i64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut iter = 0i64;
    loop {
        let reply = c.call(&["BF.SCANDUMP", key, &iter.to_string()]);
        if reply.is_error() {
            return out;
        }
        let parts = reply.array();
        let next = parts[0].int();
        if next == 0 {
            return out;
        }
        out.push((next, parts[1].bulk()));
        iter = next;
    }
}

/// Replays SCANDUMP pairs with BF.LOADCHUNK, as a client restoring a filter does.
pub fn loadchunks(c: &mut Conn, key: &str, chunks: &[(i64, Vec<u8>)]) {
    for (iter, data) in chunks {
        let reply = c.call_bytes(&[
            b"BF.LOADCHUNK",
            key.as_bytes(),
            iter.to_string().as_bytes(),
            data,
        ]);
        assert_eq!(reply, ok());
    }
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
