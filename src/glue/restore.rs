//! An AOF rewrite of a value as `RESTORE key 0 <payload>`, for the data types whose values no
//! sequence of their own commands rebuilds.

use super::data_type::{Aof, Format};
use crate::core::dump::{self, DumpWriter};
use crate::core::Error;

/// The RDB version of the payloads [`rewrite_as_restore`] writes: Redis 6.0's, the oldest
/// server the module runs on. Every later server, and Valkey, reads it.
const RESTORE_RDB_VERSION: u16 = 9;

/// Writes a value of format `F` into the AOF being rewritten as `RESTORE key 0 <payload>`,
/// its `DUMP` payload built from the RDB fields `save` writes (`save` is `F`'s RDB format):
/// for the types whose values no sequence of their own commands rebuilds (counters and
/// buckets no item reaches alone). RedisBloom rewrites those types the same way, so either
/// module loads the other's AOF. If the payload cannot be allocated, the rewrite fails.
pub fn rewrite_as_restore<F: Format>(aof: &mut Aof, save: impl Fn(&mut DumpWriter)) {
    let payload = dump::type_id(F::NAME, F::written_encoding())
        .ok_or(Error::BadEncoding)
        .and_then(|id| dump::payload(id, RESTORE_RDB_VERSION, save));
    match payload {
        Ok(payload) => aof.restore(&payload),
        Err(_) => aof.fail(c"redis-bf: no memory for a RESTORE payload, AOF rewrite aborted"),
    }
}
