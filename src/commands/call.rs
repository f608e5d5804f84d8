//! One invocation of a command ([`Call`]): its arguments, the [`Server`] it asks for its
//! keys and memory, and the few things every command does with a key — open it, see what it
//! holds ([`Lookup`]), store a new value, finish a write. A command asks for its own value
//! type and gets it, `WRONGTYPE`, or an empty key.

use std::any::Any;
use std::ffi::CStr;

use super::errors::{self, Failure};
use super::metrics::Measured;
use super::reply::Out;
use super::server::{Held, OpenKey, Server};
use super::tracked::Tracked;
use crate::core::Memory;

/// A key opened for reading: unlike a write open, it does not count as a modification
/// (WATCH, client-side caching), and what it holds can only be read.
pub struct ReadKey<'a>(OpenKey<'a>);

/// A key opened for writing.
pub struct WriteKey<'a>(OpenKey<'a>);

/// One invocation of a command.
pub struct Call<'a> {
    /// The arguments, the command name first, as the bytes the client sent. Their count
    /// satisfies the command's arity.
    pub args: &'a [&'a [u8]],
    /// The server, for the command's keys and memory.
    pub server: &'a dyn Server,
    /// Where a command that streams its reply writes it.
    pub out: &'a dyn Out,
}

/// What a key holds, from a command's point of view: `V` is `&T` for keys opened to read (or
/// `&mut T`, [`Call::lookup_read_mut`]), [`Tracked<T>`] (a `&mut T` that keeps the totals) for
/// keys opened to write.
pub enum Lookup<V> {
    Missing,
    WrongType,
    Found(V),
}

impl<V> Lookup<V> {
    /// What `held` is, for a command whose values are `T`s.
    fn of<'k, T: Any>(held: Held<'k>, found: impl FnOnce(&'k mut T) -> V) -> Lookup<V> {
        match held {
            Held::Empty => Lookup::Missing,
            Held::Value(value) => value
                .downcast_mut()
                .map_or(Lookup::WrongType, |v| Lookup::Found(found(v))),
            Held::Other => Lookup::WrongType,
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
    pub fn open_for_write(&self) -> WriteKey<'a> {
        WriteKey(OpenKey::open(self.server, 1, true))
    }

    /// Opens the command's key (argument 1) for reading.
    pub fn open_for_read(&self) -> ReadKey<'a> {
        self.open_read_at(1)
    }

    /// Opens the key at argument `index` for reading (the sources of a merge).
    pub fn open_read_at(&self, index: usize) -> ReadKey<'a> {
        ReadKey(OpenKey::open(self.server, index, false))
    }

    /// What a key opened for writing holds, if it is a `T`: a [`Tracked`] value, so what the
    /// command changes in it reaches the totals.
    pub fn lookup<'k, T: Measured + Any>(&self, key: &'k WriteKey) -> Lookup<Tracked<'k, T>> {
        Lookup::of(self.server.held(&key.0), Tracked::new)
    }

    /// What a key opened for reading holds, if it is a `T`.
    pub fn lookup_read<'k, T: Any>(&self, key: &'k ReadKey) -> Lookup<&'k T> {
        Lookup::of(self.server.held(&key.0), |value: &'k mut T| &*value)
    }

    /// What a key opened for reading holds, for a read that may change how it is held but not
    /// what it answers (a t-digest compressing its buffer); the key is not signalled as
    /// modified. Untracked: a read that can change the value's footprint wraps it in a
    /// [`Tracked`] around that change, so the reads that change nothing pay nothing.
    pub fn lookup_read_mut<'k, T: Any>(&self, key: &'k ReadKey) -> Lookup<&'k mut T> {
        Lookup::of(self.server.held(&key.0), |value: &'k mut T| value)
    }

    /// The value at the key, or the one `create` makes when the key is empty.
    pub fn existing_or_created<'k, T: Measured + Any>(
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

    /// Puts a new value under an empty key, adding it to its family's totals.
    pub fn store<T: Measured + Any>(&self, key: &WriteKey, value: T) -> Result<(), Failure> {
        let footprint = value.footprint();
        if !self.server.set_value(&key.0, Box::new(value)) {
            return Err(Failure::Message(errors::WRONG_TYPE));
        }
        T::totals().entered(footprint);
        Ok(())
    }

    /// Every successful write ends here: replicate the command as it came (as RedisBloom
    /// does, so replicas and the AOF see the same command) and tell keyspace listeners.
    pub fn finish_write(&self, event: &'static CStr) {
        self.server.written(event);
    }
}
