//! Where a command comes from ([`Origin`]) and what it replicates ([`Replicated`]), as a
//! command tells the server (`server.rs`).

use std::ffi::CStr;

/// Where a command comes from, for a command whose reads may change how a value is held
/// (RedisBloom's t-digest reads compress it): who may change it, and who must replicate that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A client of a primary: a change is made here and replicated.
    Primary,
    /// The primary's replication stream, or the AOF being loaded: the command is applied as
    /// the primary applied it.
    Replay,
    /// A client of a replica: nothing may change that the primary did not send.
    Replica,
}

/// A command to replicate: its name and its arguments, the key first.
pub struct Replicated<'a> {
    pub command: &'static CStr,
    pub args: Vec<Arg<'a>>,
}

/// An argument of a replicated command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg<'a> {
    /// The running command's own argument at this index, handed on as the server holds it
    /// (no copy: a key, the items).
    Own(usize),
    /// New bytes.
    Bytes(&'a [u8]),
}
