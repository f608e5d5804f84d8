//! The Top-K data type `TopK-TYPE`, encoding version 0: RedisBloom's name and format, so
//! RedisBloom's RDB files and DUMP payloads load here (the heap's pointers in them are
//! ignored) and ours load there (the format is `core::topk::rdb`: pointers written as 0, and
//! items whole, NUL bytes included, where RedisBloom cuts them at their first NUL).
//! RedisBloom's type has no digest or copy callbacks (DEBUG DIGEST-VALUE is one constant for
//! every Top-K, COPY fails); this one has both.
//!
//! Top-Ks that forget are the type `tk-window`, encoding version 0
//! (`core::topk::window::rdb`).

use super::super::data_type::{DataType, Format, Io, Registered, StoredValue};
use crate::commands::topk;
use crate::core::rdb::RdbWrite;
use crate::core::topk::window::rdb as window_rdb;
use crate::core::topk::{rdb, TopK, WindowTopK};
use crate::core::{Error, Memory};

/// The Top-K family and its data type.
pub static REGISTERED: Registered = Registered {
    family: &topk::FAMILY,
    types: &[&TOPK_TYPE, &WINDOW_TYPE],
};

static TOPK_TYPE: DataType = DataType::of::<TopKFormat>();
static WINDOW_TYPE: DataType = DataType::of::<WindowFormat>();

struct TopKFormat;

/// `tk-window`: Top-Ks that forget (`core::topk::window`). The name clashes with no
/// RedisBloom type, so RedisBloom refuses such a value by its name.
struct WindowFormat;

impl Format for WindowFormat {
    type Value = WindowTopK;
    const NAME: &'static str = "tk-window";
    const ENCODING_VERSION: i32 = window_rdb::ENCODING_VERSION;

    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<WindowTopK, Error> {
        window_rdb::load(io, encver, memory)
    }

    /// Rewritten as `RESTORE` (the default), as the classic Top-K.
    fn save(topk: &WindowTopK, out: &mut impl RdbWrite) {
        window_rdb::save(topk, out);
    }
}

impl StoredValue for WindowTopK {
    /// The buckets, the totals, the heap, its list of items and each item.
    fn arrays(&self) -> usize {
        (self.shape().params.k() as usize).saturating_add(4)
    }

    fn try_clone(&self) -> Result<WindowTopK, Error> {
        WindowTopK::try_clone(self)
    }
}

impl Format for TopKFormat {
    type Value = TopK;
    const NAME: &'static str = "TopK-TYPE";
    const ENCODING_VERSION: i32 = rdb::ENCODING_VERSION;

    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<TopK, Error> {
        rdb::load(io, encver, memory)
    }

    /// Rewritten as `RESTORE` (the default): no sequence of TOPK commands sets arbitrary
    /// buckets and heap slots.
    fn save(topk: &TopK, out: &mut impl RdbWrite) {
        rdb::save(topk, out);
    }
}

impl StoredValue for TopK {
    /// The buckets, the heap, its list of items and each item.
    fn arrays(&self) -> usize {
        (self.params().k() as usize).saturating_add(3)
    }

    fn try_clone(&self) -> Result<TopK, Error> {
        TopK::try_clone(self)
    }
}
