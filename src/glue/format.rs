//! What a data type declares ([`Format`]) and what its values offer the shared callbacks
//! ([`StoredValue`]); `data_type.rs` builds the server's callback table from them. A type
//! whose values no sequence of its own commands rebuilds is rewritten in the AOF as
//! `RESTORE key 0 <payload>` ([`rewrite_as_restore`], `Format::rewrite`'s default).

use std::any::Any;

use super::io::{Aof, Digest, Io};
use crate::commands::metrics::Measured;
use crate::core::dump::{self, DumpWriter};
use crate::core::rdb::RdbWrite;
use crate::core::relocate::Relocate;
use crate::core::{Error, Memory};

/// What the shared callbacks need to know of a stored value, besides its footprint (whose
/// bytes are what `MEMORY USAGE` reports).
pub trait StoredValue: Sized + Measured + Relocate + Any {
    /// Separately allocated arrays it holds (sub-filters): each costs a free.
    fn arrays(&self) -> usize;
    /// An independent copy for `COPY`, or an error instead of aborting the server.
    fn try_clone(&self) -> Result<Self, Error>;
}

/// One data type: its name and encoding, its value type, and its format.
pub trait Format: 'static {
    /// The values it holds.
    type Value: StoredValue;
    /// The type's name (9 characters), which RDB files and DUMP payloads carry.
    const NAME: &'static str;
    /// The newest encoding version it writes; it loads this one and the older ones it knows.
    const ENCODING_VERSION: i32;
    /// The encoding version it writes, registered with the server when the module loads:
    /// the newest, unless a load-time setting keeps an older one for older readers.
    fn written_encoding() -> i32 {
        Self::ENCODING_VERSION
    }
    /// Whether a new value is stored as this type (several types may hold the same Rust
    /// type, told apart by the value: a Bloom filter's layout).
    fn holds(_value: &Self::Value) -> bool {
        true
    }
    /// Whether active defrag moves its values now (a config may turn it off for a type).
    fn defragged() -> bool {
        true
    }
    /// A value from its RDB fields written with encoding version `encver`, within the load's
    /// bounds ([`Io::memory`]).
    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<Self::Value, Error>;
    /// Writes the value's RDB fields (to the RDB, a DUMP payload or a digest).
    fn save(value: &Self::Value, out: &mut impl RdbWrite);
    /// Writes the value as the commands that rebuild it (an AOF rewrite without preamble):
    /// unless the type has commands that do, `RESTORE key 0 <payload>` of its saved fields,
    /// as RedisBloom rewrites the types whose counters no item sets alone.
    fn rewrite(value: &Self::Value, aof: &mut Aof) {
        rewrite_as_restore(aof, Self::NAME, Self::written_encoding(), |out| {
            Self::save(value, out)
        });
    }
    /// Adds every field of the value to a DEBUG DIGEST: unless the type says otherwise, the
    /// fields it saves, so any difference shows.
    fn digest(value: &Self::Value, digest: &mut Digest) {
        Self::save(value, digest);
    }
}

/// The RDB version of the payloads [`rewrite_as_restore`] writes: Redis 6.0's, the oldest
/// server the module runs on. Every later server, and Valkey, reads it.
const RESTORE_RDB_VERSION: u16 = 9;

/// Writes a value of the data type `name` (written with encoding version `encver`) into the
/// AOF being rewritten as `RESTORE key 0 <payload>`, its `DUMP` payload built from the RDB
/// fields `save` writes: for the types whose values no sequence of their own commands
/// rebuilds (counters and buckets no item reaches alone). RedisBloom rewrites those types the
/// same way, so either module loads the other's AOF. If the payload cannot be allocated, the
/// rewrite fails.
fn rewrite_as_restore(aof: &mut Aof, name: &str, encver: i32, save: impl Fn(&mut DumpWriter)) {
    let payload = dump::type_id(name, encver)
        .ok_or(Error::BadEncoding)
        .and_then(|id| dump::payload(id, RESTORE_RDB_VERSION, save));
    match payload {
        Ok(payload) => aof.restore(&payload),
        Err(_) => aof.fail(c"redis-bf: no memory for a RESTORE payload, AOF rewrite aborted"),
    }
}
