//! An AOF rewrite of a value as `RESTORE key 0 <payload>`, for the data types whose values no
//! sequence of their own commands rebuilds (`Format::rewrite`'s default).

use super::io::Aof;
use crate::core::dump::{self, DumpWriter};
use crate::core::Error;

/// The RDB version of the payloads [`rewrite_as_restore`] writes: Redis 6.0's, the oldest
/// server the module runs on. Every later server, and Valkey, reads it.
const RESTORE_RDB_VERSION: u16 = 9;

/// Writes a value of the data type `name` (written with encoding version `encver`) into the
/// AOF being rewritten as `RESTORE key 0 <payload>`, its `DUMP` payload built from the RDB
/// fields `save` writes: for the types whose values no sequence of their own commands
/// rebuilds (counters and buckets no item reaches alone). RedisBloom rewrites those types the
/// same way, so either module loads the other's AOF. If the payload cannot be allocated, the
/// rewrite fails.
pub fn rewrite_as_restore(aof: &mut Aof, name: &str, encver: i32, save: impl Fn(&mut DumpWriter)) {
    let payload = dump::type_id(name, encver)
        .ok_or(Error::BadEncoding)
        .and_then(|id| dump::payload(id, RESTORE_RDB_VERSION, save));
    match payload {
        Ok(payload) => aof.restore(&payload),
        Err(_) => aof.fail(c"redis-bf: no memory for a RESTORE payload, AOF rewrite aborted"),
    }
}
