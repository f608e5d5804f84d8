//! Cuckoo-filter helpers that suites of every concern use.

use super::{loadchunks_of, scandump_of, Conn, Value};

/// Every (iterator, chunk) pair CF.SCANDUMP gives for `key`, up to its `[0, nil]`; empty for a
/// missing key or a filter with no items.
pub fn scandump(c: &mut Conn, key: &str) -> Vec<(i64, Vec<u8>)> {
    let (chunks, end) = scandump_of(c, "CF", key);
    assert!(
        end.is_none_or(|end| matches!(end, Value::Nil | Value::Null)),
        "{key}"
    );
    chunks
}

/// Replays CF.SCANDUMP pairs with CF.LOADCHUNK.
pub fn loadchunks(c: &mut Conn, key: &str, chunks: &[(i64, Vec<u8>)]) {
    loadchunks_of(c, "CF", key, chunks);
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
