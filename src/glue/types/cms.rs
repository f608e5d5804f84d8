//! The Count-Min sketch data type `CMSk-TYPE`, encoding version 0: RedisBloom's name and
//! format, so RedisBloom's RDB files and DUMP payloads load here and ours load there, byte for
//! byte (the format is `core::cms::rdb`). RedisBloom's type has no digest or copy callbacks
//! (DEBUG DIGEST-VALUE is one constant for every sketch, COPY fails); this one has both.

use super::super::data_type::{
    rewrite_as_restore, Aof, DataType, Digest, Format, Io, Registered, StoredValue,
};
use crate::commands::cms;
use crate::core::cms::{rdb, CountMinSketch};
use crate::core::Error;

/// The Count-Min sketch family and its data type.
pub static REGISTERED: Registered = Registered {
    family: &cms::FAMILY,
    types: &[&SKETCH_TYPE],
};

static SKETCH_TYPE: DataType = DataType::of::<Sketch>();

struct Sketch;

impl Format for Sketch {
    type Value = CountMinSketch;
    const NAME: &'static str = "CMSk-TYPE";
    const ENCODING_VERSION: i32 = rdb::ENCODING_VERSION;

    fn load(io: &mut Io, encver: i32) -> Result<CountMinSketch, Error> {
        let memory = io.memory();
        rdb::load(io, encver, &memory)
    }

    fn save(sketch: &CountMinSketch, io: &mut Io) {
        rdb::save(sketch, io);
    }

    /// `RESTORE`: no sequence of CMS commands sets arbitrary counters.
    fn rewrite(sketch: &CountMinSketch, aof: &mut Aof) {
        rewrite_as_restore::<Sketch>(aof, |out| rdb::save(sketch, out));
    }

    /// Every field it saves, so any difference shows.
    fn digest(sketch: &CountMinSketch, digest: &mut Digest) {
        rdb::save(sketch, digest);
    }
}

impl StoredValue for CountMinSketch {
    /// `32 + 4 × width × depth`: RedisBloom 8's `CMSMemUsage`, to the byte.
    fn memory_usage(&self) -> u64 {
        CountMinSketch::memory_usage(self)
    }

    fn arrays(&self) -> usize {
        1
    }

    fn try_clone(&self) -> Result<CountMinSketch, Error> {
        CountMinSketch::try_clone(self)
    }
}
