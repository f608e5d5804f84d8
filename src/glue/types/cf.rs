//! The Cuckoo-filter data type `MBbloomCF`, encoding version 4: RedisBloom's name and format,
//! so RedisBloom's RDB files and DUMP payloads load here and ours load there (the format is
//! `core::cf::rdb`). RedisBloom's type has no digest, copy or free-effort callbacks; this
//! one has all three.

use super::super::data_type::{Aof, DataType, Digest, Format, Io, Registered, StoredValue};
use super::super::memory;
use crate::commands::cf;
use crate::core::cf::{encoding, rdb, CuckooFilter};
use crate::core::rdb::RdbWrite;
use crate::core::{Error, Memory};

/// The Cuckoo-filter family and its data type.
pub static REGISTERED: Registered = Registered {
    family: &cf::FAMILY,
    types: &[&CUCKOO_TYPE],
};

static CUCKOO_TYPE: DataType = DataType::of::<CuckooFormat>();

struct CuckooFormat;

impl Format for CuckooFormat {
    type Value = CuckooFilter;
    const NAME: &'static str = "MBbloomCF";
    const ENCODING_VERSION: i32 = rdb::ENCODING_VERSION;

    /// Values saved before encoding version 4 take today's `cf-*` configs for what they
    /// lack, as RedisBloom 8 does.
    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<CuckooFilter, Error> {
        rdb::load(io, encver, cf::config::defaults().legacy(), memory)
    }

    fn save(filter: &CuckooFilter, out: &mut impl RdbWrite) {
        rdb::save(filter, out);
    }

    /// The CF.LOADCHUNK sequence of a SCANDUMP walk. Unlike SCANDUMP, an empty filter is
    /// written too.
    fn rewrite(filter: &CuckooFilter, aof: &mut Aof) {
        aof.loadchunks(
            c"CF.LOADCHUNK",
            &encoding::encode_header(filter),
            encoding::chunks(filter),
        );
    }

    /// Every field and every fingerprint, so any difference shows (blocks never written are
    /// known to be empty, and skipped).
    fn digest(filter: &CuckooFilter, digest: &mut Digest) {
        digest.numbers(&filter.saved_header().fields());
        for ((num_buckets, _), array) in filter.sub_filters().zip(filter.sub_filter_arrays()) {
            digest.numbers(&[num_buckets]);
            digest.sparse(array);
        }
    }
}

impl StoredValue for CuckooFilter {
    fn arrays(&self) -> usize {
        usize::from(self.num_filters())
    }

    fn try_clone(&self) -> Result<CuckooFilter, Error> {
        CuckooFilter::try_clone(self, &memory::machine_memory())
    }
}
