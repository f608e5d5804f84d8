//! Cuckoo-filter helpers that suites of every concern use.

use super::{ok, Conn, Value};

/// Every (iterator, chunk) pair CF.SCANDUMP gives for `key`, up to its `[0, nil]`; empty for a
/// missing key or a filter with no items.
pub fn scandump(c: &mut Conn, key: &str) -> Vec<(i64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut iter = 0i64;
    loop {
        let reply = c.call(&["CF.SCANDUMP", key, &iter.to_string()]);
        if reply.is_error() {
            return out;
        }
        let parts = reply.array();
        let next = parts[0].int();
        if next == 0 {
            assert!(matches!(parts[1], Value::Nil | Value::Null), "{parts:?}");
            return out;
        }
        out.push((next, parts[1].bulk()));
        iter = next;
    }
}

/// Replays CF.SCANDUMP pairs with CF.LOADCHUNK.
pub fn loadchunks(c: &mut Conn, key: &str, chunks: &[(i64, Vec<u8>)]) {
    for (iter, data) in chunks {
        let reply = c.call_bytes(&[
            b"CF.LOADCHUNK",
            key.as_bytes(),
            iter.to_string().as_bytes(),
            data,
        ]);
        assert_eq!(reply, ok());
    }
}

/// `CF.INSERT key ITEMS <items>` (or another command of that shape) in one call.
pub fn insert_all(
    c: &mut Conn,
    command: &str,
    key: &str,
    items: impl Iterator<Item = String>,
) -> Value {
    let mut args = vec![command.to_string(), key.to_string(), "ITEMS".into()];
    args.extend(items);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    c.call(&args)
}
