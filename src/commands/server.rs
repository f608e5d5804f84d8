//! What a command asks of the server ([`Server`]), which the glue implements with the module
//! API: its keys, the memory bound, replication and keyspace events, the log. Values are
//! handed over as [`Stored`] trait objects and found again as `dyn Any`, so nothing here
//! knows which families or data types exist: the glue matches a value to its data type, and
//! a family's wing downcasts what a key holds to its own value type.

use std::any::Any;
use std::ffi::CStr;
use std::os::raw::c_void;

use super::errors::Failure;
use super::metrics::Measured;
pub use super::origin::{Arg, Origin, Replicated};
use crate::core::Memory;

/// A value a key can hold: any type the totals count. The glue stores it under the data type
/// registered for it.
pub trait Stored: Any + Measured {}

impl<T: Any + Measured> Stored for T {}

/// What a command asks of the server. Each call is made only when a command asks, so a
/// command pays for nothing it does not use (a read builds no memory bound).
pub trait Server {
    /// Where new arrays come from, and how large one value may grow.
    fn memory(&self) -> Memory;
    /// Opens the key at argument `index`; `write` also lets the command change it. The
    /// handle is the server's, opaque to commands, and goes back to [`close`](Server::close).
    /// A name the command opened already is refused (a bug of the command): two handles of one
    /// key would reach one value.
    fn open(&self, index: usize, write: bool) -> Result<*mut c_void, Failure>;
    /// Closes a key this server opened, once (its handle is taken out of it).
    fn close(&self, key: &mut OpenKey);
    /// What an open key holds, to read. A found value stays valid while the key is open; the
    /// shared borrow of the key is what keeps [`held_mut`](Server::held_mut) from lending it
    /// mutably meanwhile.
    fn held<'k>(&self, key: &'k OpenKey) -> Held<&'k dyn Any>;
    /// What an open key holds, to change: the value borrowed mutably for as long as the key
    /// is, so nothing else can borrow it meanwhile. An empty key comes back with the borrow,
    /// for [`set_value`](Server::set_value).
    fn held_mut<'k, 'a>(
        &self,
        key: &'k mut OpenKey<'a>,
    ) -> Held<&'k mut dyn Any, &'k mut OpenKey<'a>>;
    /// Stores `value` under an open, empty key, as the data type registered for it, and lends
    /// it back; `None` if the server did not take it (the value is then dropped).
    fn set_value<'k>(
        &self,
        key: &'k mut OpenKey,
        value: Box<dyn Stored>,
    ) -> Option<&'k mut dyn Any>;
    /// Replicates the command as it came and raises keyspace event `event` on its key
    /// (argument 1, the key it wrote).
    fn written(&self, event: &'static CStr);
    /// Replicates `commands` instead of the command as it came (in order; the server wraps
    /// several in one transaction), and raises the keyspace events `events` on its key, in
    /// order: for writes whose outcome depends on more than their arguments, which must reach
    /// replicas and the AOF as commands that repeat it exactly.
    fn written_as(&self, events: &[&'static CStr], commands: &[Replicated]);
    /// Whether the command was accepted once already and is being applied again: it came over
    /// the replication link from the primary, or from an AOF being loaded.
    fn replayed(&self) -> bool;
    /// The server's clock, in milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64;
    /// A warning in the server log.
    fn log_warning(&self, text: &str);
    /// Where the running command comes from.
    fn origin(&self) -> Origin;
    /// Replicates `commands` besides whatever the running command replicates (in order, all
    /// in one transaction), raising no event: for a change a command makes that its own
    /// arguments do not say — a read that rewrites how a value is held.
    fn also_replicate(&self, commands: &[Replicated]);
    /// How many child processes the server has forked since the module loaded (BGSAVE, full
    /// synchronisations, AOF rewrites): each wrote the keyspace as it stood, in the form the
    /// data types save.
    fn snapshots(&self) -> u64;
    /// Fills `out` from the server's random generator: for what a write draws at random,
    /// which it then replicates as drawn.
    fn random_bytes(&self, out: &mut [u8]);
}

/// What an open key holds, as the server's data type says: `V` borrows the value, `E` is
/// what an empty key gives back (the key's own borrow, to store a value under it).
pub enum Held<V, E = ()> {
    Empty(E),
    /// A value of one of the module's data types.
    Value(V),
    /// Anything else: another module's type or a Redis type.
    Other,
}

/// A key the server opened for the command, closed when dropped. Its handle comes only from
/// [`Server::open`], which opens each name once per command, so two `OpenKey`s never reach one
/// value; commands open keys through `commands/keys.rs`.
pub struct OpenKey<'a> {
    handle: *mut c_void,
    server: &'a dyn Server,
}

impl<'a> OpenKey<'a> {
    /// The key at argument `index`, opened by `server`.
    pub(super) fn open(
        server: &'a dyn Server,
        index: usize,
        write: bool,
    ) -> Result<OpenKey<'a>, Failure> {
        let handle = server.open(index, write)?;
        Ok(OpenKey { handle, server })
    }

    /// The server's handle, for the glue that gave it (null once closed).
    pub fn handle(&self) -> *mut c_void {
        self.handle
    }

    /// The handle, leaving the key closed in Rust's eyes: for the glue's `close`.
    pub fn take_handle(&mut self) -> *mut c_void {
        std::mem::replace(&mut self.handle, std::ptr::null_mut())
    }

    /// Whether `server` opened this key.
    pub fn opened_by(&self, server: &dyn Server) -> bool {
        std::ptr::addr_eq(self.server, server)
    }

    /// The server that opened it.
    pub(super) fn server(&self) -> &'a dyn Server {
        self.server
    }
}

impl Drop for OpenKey<'_> {
    fn drop(&mut self) {
        self.server.close(self);
    }
}
