//! Reply values. The glue writes them with the server's own reply calls, which send RESP3
//! booleans, maps and nulls as `:1`/`:0`, flat arrays and `$-1` to RESP2 clients — exactly what
//! RedisBloom sends — so commands build one value for both protocols. Single values and
//! [`Reply::Field`] are built without touching the heap: the single-item commands allocate
//! nothing. Multi-item commands write their arrays element by element through [`Out`]
//! instead of building them.

use std::ffi::CStr;

/// One value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// `+OK`.
    Ok,
    /// An integer.
    Integer(i64),
    /// `#t`/`#f` in RESP3, `:1`/`:0` in RESP2.
    Bool(bool),
    /// `_` in RESP3, `$-1` in RESP2.
    Null,
    /// This integer in RESP2, `#f` in RESP3 (CF.INSERT's -1 for an item that did not fit).
    IntegerOrFalse(i64),
    /// A bulk string that lives as long as the module.
    Text(&'static str),
    /// A simple string (`+…`), as valkey-bloom names its `BF.INFO` fields.
    Status(&'static CStr),
    /// A double: RESP3's double, a bulk string of its shortest round-trip form in RESP2
    /// (the server's `RedisModule_ReplyWithDouble`, as RedisBloom replies doubles).
    Double(f64),
}

/// One reply, possibly nested.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A single value.
    Scalar(Scalar),
    /// A binary-safe bulk string.
    Bulk(Vec<u8>),
    /// An array of replies.
    Array(Vec<Reply>),
    /// A map whose keys are simple strings, in this order (RESP2: a flat array).
    Map(Vec<(&'static CStr, Reply)>),
    /// One named value: a one-pair map in RESP3, a one-element array holding the value in
    /// RESP2 (RedisBloom's reply to `BF.INFO key <field>`).
    Field(&'static CStr, Scalar),
    /// An error element inside an array (per-item failures of multi-item commands).
    Error(&'static CStr),
    /// Nothing more: the command wrote its reply through [`Out`].
    Sent,
}

/// Writes a reply to the client as it is produced (the glue's writer, one server call per
/// element): multi-item commands stream their arrays through it rather than build them. A
/// command that writes through it returns [`Reply::Sent`].
pub trait Out {
    /// Begins an array of exactly `len` elements, each then given by [`Out::scalar`],
    /// [`Out::bulk`] or [`Out::error`].
    fn array(&self, len: usize);
    /// A value: the next element of the array begun.
    fn scalar(&self, value: Scalar);
    /// A binary-safe bulk string: the next element of the array begun.
    fn bulk(&self, bytes: &[u8]);
    /// An error element of the array begun.
    fn error(&self, text: &'static CStr);
}

impl dyn Out + '_ {
    /// An array of `values`, written element by element: a command's answer per item.
    pub fn scalars(&self, values: impl ExactSizeIterator<Item = Scalar>) {
        self.array(values.len());
        values.for_each(|value| self.scalar(value));
    }
}

impl Reply {
    /// `+OK`.
    pub const OK: Reply = Reply::Scalar(Scalar::Ok);

    /// A boolean.
    pub fn bool(b: bool) -> Reply {
        Reply::Scalar(Scalar::Bool(b))
    }

    /// An integer.
    pub fn integer(n: i64) -> Reply {
        Reply::Scalar(Scalar::Integer(n))
    }

    /// A count, as the signed integer RESP carries (saturating: counts never get near 2^63).
    pub fn count(n: u64) -> Reply {
        Reply::integer(i64::try_from(n).unwrap_or(i64::MAX))
    }
}
