//! A command's keys: opened through its `Call` (the server opens each name once per command,
//! `glue/context.rs`), and looked up through their own handles ([`ReadKey`], [`WriteKey`]),
//! which a value borrowed mutably keeps borrowed: a second lookup while it lives does not
//! compile, and no second handle reaches it.

use std::any::Any;

use super::errors::{self, Failure};
use super::lookup::Lookup;
use super::metrics::Measured;
use super::server::{Held, OpenKey, Server};
use super::tracked::Tracked;

/// A key opened for reading: unlike a write open, it does not count as a modification
/// (WATCH, client-side caching).
pub struct ReadKey<'a>(OpenKey<'a>);

/// A key opened for writing.
pub struct WriteKey<'a>(OpenKey<'a>);

impl<'a> ReadKey<'a> {
    /// The key at argument `index`, opened by `server` for reading, unless a key of its name
    /// was opened already.
    pub(super) fn open(server: &'a dyn Server, index: usize) -> Result<ReadKey<'a>, Failure> {
        OpenKey::open(server, index, false).map(ReadKey)
    }

    /// What the key holds, if it is a `T`.
    pub fn lookup<T: Any>(&self) -> Lookup<&T> {
        self.lookup_as(|value| value.downcast_ref())
    }

    /// What the key holds, as `pick` views a module value (a family of several value types).
    pub fn lookup_as<'k, V>(&'k self, pick: impl FnOnce(&'k dyn Any) -> Option<V>) -> Lookup<V> {
        Lookup::of(self.0.server().held(&self.0), pick)
    }

    /// What the key holds, for a read that may change how it is held but not what it answers
    /// (a t-digest compressing its buffer); the key is not signalled as modified. Untracked: a
    /// read that can change the value's footprint wraps it in a [`Tracked`] around that change,
    /// so the reads that change nothing pay nothing.
    pub fn lookup_mut<T: Any>(&mut self) -> Lookup<&mut T> {
        let server = self.0.server();
        Lookup::of(server.held_mut(&mut self.0), |value| value.downcast_mut())
    }
}

impl<'a> WriteKey<'a> {
    /// The key at argument `index`, opened by `server` for writing (as [`ReadKey::open`]).
    pub(super) fn open(server: &'a dyn Server, index: usize) -> Result<WriteKey<'a>, Failure> {
        OpenKey::open(server, index, true).map(WriteKey)
    }

    /// What the key holds, if it is a `T`: a [`Tracked`] value, so what the command changes in
    /// it reaches the totals.
    // Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
    #[inline(always)]
    pub fn lookup<T: Measured + Any>(&mut self) -> Lookup<Tracked<'_, T>> {
        self.lookup_as(|value| value.downcast_mut().map(Tracked::new))
    }

    /// What the key holds, as `pick` views a module value (a family of several value types).
    // Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
    #[inline(always)]
    pub fn lookup_as<'k, V>(
        &'k mut self,
        pick: impl FnOnce(&'k mut dyn Any) -> Option<V>,
    ) -> Lookup<V> {
        let server = self.0.server();
        Lookup::of(server.held_mut(&mut self.0), pick)
    }

    /// The value at the key as `pick` views it, or the `T` that `create` makes when the key is
    /// empty, stored and then viewed by `pick`.
    // Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
    #[inline(always)]
    pub fn existing_or_created<'k, T: Measured + Any, V>(
        &'k mut self,
        create: impl FnOnce() -> Result<T, Failure>,
        pick: impl FnOnce(&'k mut dyn Any) -> Option<V>,
    ) -> Result<V, Failure> {
        let server = self.0.server();
        match server.held_mut(&mut self.0) {
            Held::Empty(key) => {
                let stored = store(server, key, create()?)?;
                pick(stored).ok_or(Failure::Message(errors::INTERNAL_ERROR))
            }
            held => Lookup::of(held, pick).existing(),
        }
    }

    /// What the key holds, borrowed for no longer than this call: found when `is` says the
    /// value is the command's (for a command that creates a value only where there is none).
    pub fn peek(&self, is: impl FnOnce(&dyn Any) -> bool) -> Lookup<()> {
        Lookup::of(self.0.server().held(&self.0), |v| is(v).then_some(()))
    }

    /// Whether the key holds nothing at all (for a command that creates a value only there,
    /// refusing a value of any type).
    pub fn is_empty(&self) -> bool {
        matches!(self.peek(|_| true), Lookup::Missing)
    }

    /// Puts a new value under the key, which must be empty, adding it to its family's totals.
    pub fn store<T: Measured + Any>(&mut self, value: T) -> Result<(), Failure> {
        store(self.0.server(), &mut self.0, value).map(drop)
    }

    /// Puts `value` under the key in place of the `T` it holds (freed, its footprint leaving
    /// the totals as the new one's enters), or under the empty key: a merge's destination.
    pub fn put<T: Measured + Any>(&mut self, value: T) -> Result<(), Failure> {
        if self.is_empty() {
            return self.store(value);
        }
        *self.lookup::<T>().existing()? = value;
        Ok(())
    }
}

/// Stores `value` under the empty key `key`, adds it to its family's totals, and lends it back.
fn store<'k, T: Measured + Any>(
    server: &dyn Server,
    key: &'k mut OpenKey,
    value: T,
) -> Result<&'k mut dyn Any, Failure> {
    let footprint = value.footprint();
    let stored = server
        .set_value(key, Box::new(value))
        .ok_or(Failure::Message(errors::WRONG_TYPE))?;
    T::totals().entered(footprint);
    Ok(stored)
}
