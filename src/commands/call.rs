//! One invocation of a command ([`Call`]): its arguments, the [`Server`] it asks for its
//! keys and memory, and where it streams its reply. Its keys are opened here, once per name
//! (`keys.rs`), and read or changed through their own handles.

use std::any::Any;
use std::ffi::CStr;

use super::errors::{CommandResult, Failure};
use super::keys::{ReadKey, WriteKey};
use super::metrics::Measured;
use super::reply::{Out, Reply};
use super::server::{Origin, Replicated, Server};
use crate::core::Memory;

/// One invocation of a command.
pub struct Call<'a> {
    /// The arguments, the command name first, as the bytes the client sent. Their count
    /// satisfies the command's arity.
    pub args: &'a [&'a [u8]],
    /// The server. Private: a command reaches its keys only through `keys.rs` (opened here,
    /// once per name) and asks the rest through the methods below, so no command can open,
    /// hold or store a value around them:
    ///
    /// ```compile_fail,E0616
    /// # use redis_bf::commands::call::Call;
    /// fn around_the_handles(call: &Call) {
    ///     let _ = call.server.open(1, true);
    /// }
    /// ```
    server: &'a dyn Server,
    /// Where a command that streams its reply writes it.
    pub out: &'a dyn Out,
}

impl<'a> Call<'a> {
    /// The command with arguments `args`, run by `server`, replying to `out`.
    pub fn new(args: &'a [&'a [u8]], server: &'a dyn Server, out: &'a dyn Out) -> Call<'a> {
        Call { args, server, out }
    }

    /// Argument `i` as bytes (empty past the end).
    pub fn arg(&self, i: usize) -> &[u8] {
        self.args.get(i).copied().unwrap_or_default()
    }

    /// Fails with Redis's arity error unless `ok`: for the shape rules an arity cannot say.
    pub fn require_arity(&self, ok: bool) -> Result<(), Failure> {
        ok.then_some(()).ok_or(Failure::WrongArity)
    }

    /// Where new arrays come from, and how large one value may grow.
    pub fn memory(&self) -> Memory {
        self.server.memory()
    }

    /// A warning in the server log.
    pub fn log_warning(&self, text: &str) {
        self.server.log_warning(text);
    }

    /// Opens the command's key (argument 1) for writing.
    pub fn open_for_write(&self) -> Result<WriteKey<'a>, Failure> {
        WriteKey::open(self.server, 1)
    }

    /// Opens the command's key (argument 1) for reading.
    pub fn open_for_read(&self) -> Result<ReadKey<'a>, Failure> {
        ReadKey::open(self.server, 1)
    }

    /// Opens the key at argument `index` for reading (the sources of a merge), unless a key of
    /// that name is open already.
    pub fn open_read_at(&self, index: usize) -> Result<ReadKey<'a>, Failure> {
        ReadKey::open(self.server, index)
    }

    /// Whether the command was accepted once already and is being applied again (from the
    /// primary, or an AOF being loaded).
    pub fn replayed(&self) -> bool {
        self.server.replayed()
    }

    /// Where the command comes from.
    pub fn origin(&self) -> Origin {
        self.server.origin()
    }

    /// The server's clock, in milliseconds since the Unix epoch.
    pub fn now_ms(&self) -> u64 {
        self.server.now_ms()
    }

    /// How many child processes the server forked since the module loaded (`Server::snapshots`).
    pub fn snapshots(&self) -> u64 {
        self.server.snapshots()
    }

    /// Fills `out` from the server's random generator (for a draw the write then replicates).
    pub fn random_bytes(&self, out: &mut [u8]) {
        self.server.random_bytes(out);
    }

    /// A write whose outcome depends on more than its arguments ends here: `commands` are
    /// replicated instead of the command as it came, and `events` raised (`Server::written_as`).
    pub fn written_as(&self, events: &[&'static CStr], commands: &[Replicated]) {
        self.server.written_as(events, commands);
    }

    /// Replicates `commands` besides what the command replicates (`Server::also_replicate`).
    pub fn also_replicate(&self, commands: &[Replicated]) {
        self.server.also_replicate(commands);
    }

    /// How a command that makes a value ends: `value` stored under `key` (empty: each family
    /// checks that in its own order, RedisBloom's), the write finished as `event`, and `+OK`.
    pub fn create<T: Measured + Any>(
        &self,
        key: &mut WriteKey,
        value: T,
        event: &'static CStr,
    ) -> CommandResult {
        key.store(value)?;
        self.finish_write(event);
        Ok(Reply::OK)
    }

    /// Every successful write ends here: replicate the command as it came (as RedisBloom
    /// does, so replicas and the AOF see the same command) and tell keyspace listeners.
    pub fn finish_write(&self, event: &'static CStr) {
        self.server.written(event);
    }
}
