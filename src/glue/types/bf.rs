//! The two Bloom-filter data types, holding the same value (`Chain`) in their own RDB format:
//!
//! * `MBbloom--`, encoding version 4: RedisBloom's name and format, for classic filters, so
//!   RedisBloom's RDB files and DUMP payloads load here and ours load there;
//! * `bfblocked`, encoding version 1: fast-layout filters. RedisBloom has no such type, so it
//!   refuses them cleanly instead of misreading them.
//!
//! A filter's layout decides its type; saving writes the format of that layout.
//!
//! * `bf-window`, encoding version 0: filters that forget (`core::bf::window`), by count or by
//!   time (a kind field in the value). The name clashes with no RedisBloom type, released
//!   (`MBbloom*`, `CMSk-TYPE`, `TopK-TYPE`, `TDIS-TYPE`) or not (`APBFcTYPE`, `APBFtTYPE` of
//!   its unreleased age-partitioned branch), so RedisBloom refuses such a value by its name.
//! * `bloomfltr`, encoding version 1: valkey-bloom's filters, in its format
//!   (`core::bf::valkey`), so valkey-bloom's RDB files, DUMP payloads and AOF files load here
//!   and ours load there. An AOF rewrite writes each as `BF.LOAD key <payload>`, as
//!   valkey-bloom's does.

use super::super::data_type::{Aof, DataType, Digest, Format, Io, Registered, StoredValue};
use super::super::memory;
use crate::commands::bf;
use crate::core::bf::chain::{Chain, LayoutKind};
use crate::core::bf::valkey::{payload, rdb as valkey_rdb, ValkeyBloom};
use crate::core::bf::window::{encoding as window_encoding, WindowFilter};
use crate::core::bf::{encoding, rdb};
use crate::core::rdb::RdbWrite;
use crate::core::{Error, Memory};

/// The Bloom-filter family and its data types.
pub static REGISTERED: Registered = Registered {
    family: &bf::FAMILY,
    types: &[&CLASSIC_TYPE, &FAST_TYPE, &WINDOW_TYPE, &VALKEY_TYPE],
};

static CLASSIC_TYPE: DataType = DataType::of::<ChainFormat<false>>();
static FAST_TYPE: DataType = DataType::of::<ChainFormat<true>>();
static WINDOW_TYPE: DataType = DataType::of::<WindowFormat>();
static VALKEY_TYPE: DataType = DataType::of::<ValkeyFormat>();

/// The data type of one layout: `ChainFormat<false>` is `MBbloom--` (classic filters), `ChainFormat<true>`
/// is `bfblocked` (fast-layout filters).
struct ChainFormat<const FAST: bool>;

/// `bf-window`: filters that forget.
struct WindowFormat;

/// `bloomfltr`: valkey-bloom's filters.
struct ValkeyFormat;

impl<const FAST: bool> Format for ChainFormat<FAST> {
    type Value = Chain;
    const NAME: &'static str = if FAST { "bfblocked" } else { "MBbloom--" };
    const ENCODING_VERSION: i32 = if FAST {
        rdb::FAST_ENCODING_VERSION
    } else {
        rdb::ENCODING_VERSION
    };

    fn holds(chain: &Chain) -> bool {
        (chain.layout() == LayoutKind::Fast) == FAST
    }

    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<Chain, Error> {
        if FAST {
            rdb::load_fast(io, encver, memory)
        } else {
            rdb::load_classic(io, encver, memory)
        }
    }

    fn save(chain: &Chain, out: &mut impl RdbWrite) {
        rdb::save(chain, out);
    }

    /// The BF.LOADCHUNK sequence BF.SCANDUMP would give.
    fn rewrite(chain: &Chain, aof: &mut Aof) {
        aof.loadchunks(
            c"BF.LOADCHUNK",
            &encoding::encode_header(chain),
            encoding::chunks(chain),
        );
    }

    /// Every field and every bit, so any difference shows (blocks never written are known to
    /// be zero, and skipped).
    fn digest(chain: &Chain, digest: &mut Digest) {
        digest.numbers(&[
            u64::from(chain.options()),
            u64::from(chain.growth()),
            chain.items(),
        ]);
        for link in chain.links() {
            let shape = link.shape();
            digest.numbers(&[
                shape.entries(),
                shape.error().to_bits(),
                u64::from(shape.hashes()),
                shape.bytes(),
                link.items(),
            ]);
            for array in link.arrays() {
                digest.sparse(array);
            }
        }
    }
}

impl Format for WindowFormat {
    type Value = WindowFilter;
    const NAME: &'static str = "bf-window";
    const ENCODING_VERSION: i32 = window_encoding::ENCODING_VERSION;

    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<WindowFilter, Error> {
        window_encoding::load(io, encver, memory)
    }

    fn save(filter: &WindowFilter, out: &mut impl RdbWrite) {
        window_encoding::save(filter, out);
    }

    /// The BF.LOADCHUNK sequence BF.SCANDUMP would give.
    fn rewrite(filter: &WindowFilter, aof: &mut Aof) {
        aof.loadchunks(
            c"BF.LOADCHUNK",
            &window_encoding::encode_header(filter),
            window_encoding::chunks(filter),
        );
    }

    /// Every field (the header holds them all) and every bit, so any difference shows.
    fn digest(filter: &WindowFilter, digest: &mut Digest) {
        digest.bytes(&window_encoding::encode_header(filter));
        for segment in filter.bits().chunks(window_encoding::MAX_CHUNK) {
            digest.bytes(segment);
        }
    }
}

impl StoredValue for WindowFilter {
    /// The bits, and the per-generation counts and times.
    fn arrays(&self) -> usize {
        3
    }

    fn try_clone(&self) -> Result<WindowFilter, Error> {
        WindowFilter::try_clone(self)
    }
}

impl StoredValue for Chain {
    fn arrays(&self) -> usize {
        self.links().len()
    }

    fn try_clone(&self) -> Result<Chain, Error> {
        Chain::try_clone(self, &memory::machine_memory())
    }
}

impl Format for ValkeyFormat {
    type Value = ValkeyBloom;
    const NAME: &'static str = "bloomfltr";
    const ENCODING_VERSION: i32 = valkey_rdb::ENCODING_VERSION;

    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<ValkeyBloom, Error> {
        valkey_rdb::load(io, encver, memory)
    }

    /// Its digest is every field it saves (the default).
    fn save(object: &ValkeyBloom, out: &mut impl RdbWrite) {
        valkey_rdb::save(object, out);
    }

    /// `bloom-defrag-enabled`, as valkey-bloom.
    fn defragged() -> bool {
        bf::config::valkey_defrag()
    }

    /// `BF.LOAD key <payload>`, as valkey-bloom rewrites it.
    fn rewrite(object: &ValkeyBloom, aof: &mut Aof) {
        match payload::encode(object) {
            Ok(bytes) => aof.key_and(c"BF.LOAD", &bytes),
            Err(_) => aof.fail(c"redis-bf: no memory for a BF.LOAD payload, AOF rewrite aborted"),
        }
    }
}

impl StoredValue for ValkeyBloom {
    /// Each sub-filter's blob.
    fn arrays(&self) -> usize {
        self.filters().len()
    }

    fn try_clone(&self) -> Result<ValkeyBloom, Error> {
        ValkeyBloom::try_clone(self)
    }
}
