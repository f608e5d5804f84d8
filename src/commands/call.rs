//! One invocation of a command ([`Call`]): its arguments, the server context, the
//! configuration, and the few things every command does with its key — open it, see what it
//! holds ([`Lookup`]), store a new value, finish a write. Family-neutral: each family names its
//! own data types when it looks a key up.

use std::ffi::CStr;

use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::native_types::RedisType;
use redis_module::{Context, RedisString};

use super::cf::rules::Defaults as CuckooDefaults;
use super::errors::{self, Failure};
use super::metrics::{Measured, Metrics, Tracked};
use super::reply::Out;
use crate::core::bloom::chain::Params as BloomParams;
use crate::core::Memory;

/// Raises keyspace event `event` on key `name` (the glue's, without allocating per call).
pub type Notify = fn(&Context, &'static CStr, &RedisString);

/// The data types the module registered with the server.
pub struct Types {
    /// `MBbloom--`: RedisBloom's type, for classic Bloom filters.
    pub bloom: &'static RedisType,
    /// `bfblocked`: fast-layout Bloom filters.
    pub fast: &'static RedisType,
    /// `MBbloomCF`: RedisBloom's type for Cuckoo filters.
    pub cuckoo: &'static RedisType,
}

/// The configuration when the command started: how filters created without explicit
/// parameters are built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// The `bf-*` configs: what BF.ADD and BF.MADD auto-create, and the defaults of
    /// BF.RESERVE and BF.INSERT options.
    pub bloom: BloomParams,
    /// The `cf-*` configs: what CF.ADD and CF.INSERT auto-create, the defaults of CF.RESERVE
    /// options, and the limits every CF command checks.
    pub cuckoo: CuckooDefaults,
}

/// One invocation of a command.
pub struct Call<'a> {
    pub ctx: &'a Context,
    /// The arguments, the command name first, as the bytes the client sent.
    pub args: &'a [&'a [u8]],
    /// The key (argument 1) as the server's string, for opening it; `None` without one.
    pub key: Option<&'a RedisString>,
    pub types: &'a Types,
    pub config: Config,
    /// Where new arrays come from, and how large one filter may grow.
    pub memory: Memory,
    /// The module's totals, which values stored or changed by the command update.
    pub metrics: &'static Metrics,
    /// Raises a module keyspace event (`notify-keyspace-events` with `d`) on a key.
    pub notify: Notify,
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

/// What `get_value` says of one candidate type: a value, an empty key, or another type.
fn classify<V>(value: Result<Option<V>, redis_module::RedisError>) -> Option<Lookup<V>> {
    match value {
        Ok(Some(value)) => Some(Lookup::Found(value)),
        Ok(None) => Some(Lookup::Missing),
        Err(_) => None,
    }
}

impl Call<'_> {
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

    /// The key's name (argument 1; the arity is checked before any key is opened).
    fn key_name(&self) -> Result<&RedisString, Failure> {
        self.key.ok_or(Failure::WrongArity)
    }

    /// Opens the key for writing.
    pub fn open_for_write(&self) -> Result<RedisKeyWritable, Failure> {
        Ok(self.ctx.open_key_writable(self.key_name()?))
    }

    /// Opens the key for reading: unlike a write open, it does not count as a modification
    /// (WATCH, client-side caching).
    pub fn open_for_read(&self) -> Result<RedisKey, Failure> {
        Ok(self.ctx.open_key(self.key_name()?))
    }

    /// What a key opened for writing holds, if it is a `T` stored as one of `types`: a
    /// [`Tracked`] value, so what the command changes in it reaches the totals.
    pub fn lookup<'k, T: Measured>(
        &self,
        key: &'k RedisKeyWritable,
        types: &[&RedisType],
    ) -> Lookup<Tracked<'k, T>> {
        types
            .iter()
            .find_map(|data_type| classify(key.get_value::<T>(data_type)))
            .unwrap_or(Lookup::WrongType)
            .map(|value| Tracked::new(value, self.metrics))
    }

    /// What a key opened for reading holds, if it is a `T` stored as one of `types`.
    pub fn lookup_read<'k, T>(&self, key: &'k RedisKey, types: &[&RedisType]) -> Lookup<&'k T> {
        types
            .iter()
            .find_map(|data_type| classify(key.get_value::<T>(data_type)))
            .unwrap_or(Lookup::WrongType)
    }

    /// The value at the key, or the one `create` makes (with its data type) when the key is
    /// empty.
    pub fn existing_or_created<'k, T: Measured>(
        &self,
        key: &'k RedisKeyWritable,
        types: &[&RedisType],
        create: impl FnOnce() -> Result<(&'static RedisType, T), Failure>,
    ) -> Result<Tracked<'k, T>, Failure> {
        match self.lookup(key, types) {
            Lookup::Missing => {
                let (data_type, value) = create()?;
                self.store(key, data_type, value)?;
                self.lookup(key, &[data_type]).existing()
            }
            found => found.existing(),
        }
    }

    /// Puts a new value under an empty key, adding it to the totals.
    pub fn store<T: Measured>(
        &self,
        key: &RedisKeyWritable,
        data_type: &RedisType,
        value: T,
    ) -> Result<(), Failure> {
        let footprint = value.footprint();
        key.set_value(data_type, value)
            .map_err(|_| Failure::Message(errors::WRONG_TYPE))?;
        T::family(self.metrics).entered(footprint);
        Ok(())
    }

    /// Every successful write ends here: replicate the command as it came (as RedisBloom
    /// does, so replicas and the AOF see the same command) and tell keyspace listeners.
    pub fn finish_write(&self, event: &'static CStr) {
        self.ctx.replicate_verbatim();
        if let Some(name) = self.key {
            (self.notify)(self.ctx, event, name);
        }
    }
}
