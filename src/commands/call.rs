//! One invocation of a command ([`Call`]): its arguments, the [`Server`] it asks for its key,
//! configuration and memory, and the few things every command does with its key — open it,
//! see what it holds ([`Lookup`]), store a new value, finish a write. Which data type holds
//! which filter is the glue's business: a command asks for a [`Filter`] type, and gets it or
//! `WRONGTYPE`.

use std::ffi::CStr;
use std::os::raw::c_void;

use super::cf::rules::Defaults as CuckooDefaults;
use super::errors::{self, Failure};
use super::metrics::{Measured, Metrics, Tracked};
use super::reply::Out;
use crate::core::bloom::chain::{Chain, Params as BloomParams};
use crate::core::cuckoo::CuckooFilter;
use crate::core::Memory;

/// What a command asks of the server, for the command's own key (argument 1). The glue
/// implements it with the server's calls; each is made only when a command asks, so a command
/// pays for nothing it does not use (a read reads no configuration, builds no memory bound).
pub trait Server {
    /// The `bf-*` configs now: what BF.ADD and BF.MADD auto-create, and the defaults of
    /// BF.RESERVE and BF.INSERT options.
    fn bloom_config(&self) -> BloomParams;
    /// The `cf-*` configs now: what CF.ADD and CF.INSERT auto-create, the defaults of
    /// CF.RESERVE options, and the limits every CF insert checks.
    fn cuckoo_config(&self) -> CuckooDefaults;
    /// Where new arrays come from, and how large one filter may grow.
    fn memory(&self) -> Memory;
    /// Opens the key; `write` also lets the command change it. The handle is the server's,
    /// opaque to commands, and goes back to [`close`](Server::close).
    fn open(&self, write: bool) -> *mut c_void;
    /// Closes a key [`open`](Server::open) gave.
    fn close(&self, key: *mut c_void);
    /// What an open key holds. A found value stays valid while the key is open.
    fn held<'k>(&self, key: &'k OpenKey) -> Held<'k>;
    /// Stores `value` under an open, empty key (the data type follows the value: its family,
    /// and for a Bloom filter its layout); the value back if the server refuses it.
    fn set_value(&self, key: &OpenKey, value: NewValue) -> Result<(), NewValue>;
    /// Replicates the command as it came and raises keyspace event `event` on its key.
    fn written(&self, event: &'static CStr);
    /// A warning in the server log.
    fn log_warning(&self, text: &str);
}

/// What an open key holds, as the server's data type says.
pub enum Held<'k> {
    Empty,
    /// A Bloom filter, of either layout.
    Bloom(&'k mut Chain),
    Cuckoo(&'k mut CuckooFilter),
    /// Anything else: another module's type or a Redis type.
    Other,
}

/// A value a command stores under an empty key.
pub enum NewValue {
    Bloom(Chain),
    Cuckoo(CuckooFilter),
}

/// A filter a key may hold: how to find it in what a key holds, and how to store it.
pub trait Filter: Measured + Sized {
    fn found(held: Held<'_>) -> Option<Lookup<&mut Self>>;
    fn stored(self) -> NewValue;
}

impl Filter for Chain {
    fn found(held: Held<'_>) -> Option<Lookup<&mut Chain>> {
        match held {
            Held::Bloom(chain) => Some(Lookup::Found(chain)),
            Held::Empty => Some(Lookup::Missing),
            Held::Cuckoo(_) | Held::Other => None,
        }
    }

    fn stored(self) -> NewValue {
        NewValue::Bloom(self)
    }
}

impl Filter for CuckooFilter {
    fn found(held: Held<'_>) -> Option<Lookup<&mut CuckooFilter>> {
        match held {
            Held::Cuckoo(filter) => Some(Lookup::Found(filter)),
            Held::Empty => Some(Lookup::Missing),
            Held::Bloom(_) | Held::Other => None,
        }
    }

    fn stored(self) -> NewValue {
        NewValue::Cuckoo(self)
    }
}

/// A key the server opened for the command, closed when dropped.
pub struct OpenKey<'a> {
    handle: *mut c_void,
    server: &'a dyn Server,
}

impl OpenKey<'_> {
    /// The server's handle, for the glue that gave it.
    pub fn handle(&self) -> *mut c_void {
        self.handle
    }
}

impl Drop for OpenKey<'_> {
    fn drop(&mut self) {
        self.server.close(self.handle);
    }
}

/// A key opened for reading: unlike a write open, it does not count as a modification
/// (WATCH, client-side caching), and what it holds can only be read.
pub struct ReadKey<'a>(OpenKey<'a>);

/// A key opened for writing.
pub struct WriteKey<'a>(OpenKey<'a>);

/// One invocation of a command.
pub struct Call<'a> {
    /// The arguments, the command name first, as the bytes the client sent.
    pub args: &'a [&'a [u8]],
    /// The server, for the command's key, configuration and memory.
    pub server: &'a dyn Server,
    /// The module's totals, which values stored or changed by the command update.
    pub metrics: &'static Metrics,
    /// Where a command that streams its reply writes it.
    pub out: &'a dyn Out,
}

/// What a key holds, from a command's point of view: `V` is `&T` for keys opened to read,
/// [`Tracked<T>`] (a `&mut T` that keeps the totals) for keys opened to write.
pub enum Lookup<V> {
    Missing,
    WrongType,
    Found(V),
}

impl<V> Lookup<V> {
    /// The same outcome, a found value passed through `f`.
    fn map<W>(self, f: impl FnOnce(V) -> W) -> Lookup<W> {
        match self {
            Lookup::Found(value) => Lookup::Found(f(value)),
            Lookup::Missing => Lookup::Missing,
            Lookup::WrongType => Lookup::WrongType,
        }
    }

    /// The value, or `ERR not found` / `WRONGTYPE`.
    pub fn existing(self) -> Result<V, Failure> {
        match self {
            Lookup::Found(value) => Ok(value),
            Lookup::Missing => Err(Failure::Message(errors::NOT_FOUND)),
            Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
        }
    }
}

impl<'a> Call<'a> {
    /// Argument `i` as bytes (the caller has checked the arity).
    pub fn arg(&self, i: usize) -> &[u8] {
        self.args.get(i).copied().unwrap_or_default()
    }

    /// Fails with Redis's arity error unless `ok`.
    pub fn require_arity(&self, ok: bool) -> Result<(), Failure> {
        if ok {
            Ok(())
        } else {
            Err(Failure::WrongArity)
        }
    }

    /// The `bf-*` configs now.
    pub fn bloom_config(&self) -> BloomParams {
        self.server.bloom_config()
    }

    /// The `cf-*` configs now.
    pub fn cuckoo_config(&self) -> CuckooDefaults {
        self.server.cuckoo_config()
    }

    /// Where new arrays come from, and how large one filter may grow.
    pub fn memory(&self) -> Memory {
        self.server.memory()
    }

    /// A warning in the server log.
    pub fn log_warning(&self, text: &str) {
        self.server.log_warning(text);
    }

    /// Opens the key (argument 1; the arity is checked before any key is opened).
    fn open(&self, write: bool) -> Result<OpenKey<'a>, Failure> {
        if self.args.len() < 2 {
            return Err(Failure::WrongArity);
        }
        Ok(OpenKey {
            handle: self.server.open(write),
            server: self.server,
        })
    }

    /// Opens the key for writing.
    pub fn open_for_write(&self) -> Result<WriteKey<'a>, Failure> {
        self.open(true).map(WriteKey)
    }

    /// Opens the key for reading.
    pub fn open_for_read(&self) -> Result<ReadKey<'a>, Failure> {
        self.open(false).map(ReadKey)
    }

    /// What a key opened for writing holds, if it is a `T`: a [`Tracked`] value, so what the
    /// command changes in it reaches the totals.
    pub fn lookup<'k, T: Filter>(&self, key: &'k WriteKey) -> Lookup<Tracked<'k, T>> {
        T::found(self.server.held(&key.0))
            .unwrap_or(Lookup::WrongType)
            .map(|value| Tracked::new(value, self.metrics))
    }

    /// What a key opened for reading holds, if it is a `T`.
    pub fn lookup_read<'k, T: Filter>(&self, key: &'k ReadKey) -> Lookup<&'k T> {
        T::found(self.server.held(&key.0))
            .unwrap_or(Lookup::WrongType)
            .map(|value| &*value)
    }

    /// The value at the key, or the one `create` makes when the key is empty.
    pub fn existing_or_created<'k, T: Filter>(
        &self,
        key: &'k WriteKey,
        create: impl FnOnce() -> Result<T, Failure>,
    ) -> Result<Tracked<'k, T>, Failure> {
        match self.lookup(key) {
            Lookup::Missing => {
                self.store(key, create()?)?;
                self.lookup(key).existing()
            }
            found => found.existing(),
        }
    }

    /// Puts a new value under an empty key, adding it to the totals.
    pub fn store<T: Filter>(&self, key: &WriteKey, value: T) -> Result<(), Failure> {
        let footprint = value.footprint();
        self.server
            .set_value(&key.0, value.stored())
            .map_err(|_| Failure::Message(errors::WRONG_TYPE))?;
        T::family(self.metrics).entered(footprint);
        Ok(())
    }

    /// Every successful write ends here: replicate the command as it came (as RedisBloom
    /// does, so replicas and the AOF see the same command) and tell keyspace listeners.
    pub fn finish_write(&self, event: &'static CStr) {
        self.server.written(event);
    }
}
