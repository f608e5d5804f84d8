//! Reply values. The glue writes them with the server's own reply calls, which send RESP3
//! booleans, maps and nulls as `:1`/`:0`, flat arrays and `$-1` to RESP2 clients — exactly what
//! RedisBloom sends — so commands build one value for both protocols. The only reply that
//! differs by protocol (a single BF.INFO field) is decided in `info.rs`.

/// One reply, possibly nested.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `+OK`.
    Ok,
    /// An integer.
    Integer(i64),
    /// `#t`/`#f` in RESP3, `:1`/`:0` in RESP2.
    Bool(bool),
    /// `_` in RESP3, `$-1` in RESP2.
    Null,
    /// A binary-safe bulk string.
    Bulk(Vec<u8>),
    /// An array of replies.
    Array(Vec<Reply>),
    /// A map whose keys are simple strings, in this order (RESP2: a flat array).
    Map(Vec<(&'static str, Reply)>),
    /// An error element inside an array (BF.MADD/BF.INSERT per-item failures).
    Error(&'static str),
}
