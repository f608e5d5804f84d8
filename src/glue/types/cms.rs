//! The Count-Min sketch data type `CMSk-TYPE`: RedisBloom's name and format, so RedisBloom's
//! RDB files and DUMP payloads load here and ours load there, byte for byte (the format is
//! `core::cms::rdb`). It writes encoding 1, Redis 8.12's, or 0 for RedisBloom before it
//! (`cms-rdb-encoding`), and reads both. RedisBloom's type has no digest or copy callbacks
//! (DEBUG DIGEST-VALUE is one constant for every sketch, COPY fails); this one has both.
//!
//! Sketches that forget are the type `cm-window`, encoding version 0 (`core::cms::window::rdb`).

use super::super::data_type::{DataType, Format, Io, Registered, StoredValue};
use crate::commands::cms::{self, config};
use crate::core::cms::window::rdb as window_rdb;
use crate::core::cms::{rdb, CountMinSketch, WindowSketch};
use crate::core::rdb::RdbWrite;
use crate::core::{Error, Memory};

/// The Count-Min sketch family and its data type.
pub static REGISTERED: Registered = Registered {
    family: &cms::FAMILY,
    types: &[&SKETCH_TYPE, &WINDOW_TYPE],
};

static SKETCH_TYPE: DataType = DataType::of::<SketchFormat>();
static WINDOW_TYPE: DataType = DataType::of::<WindowFormat>();

struct SketchFormat;

/// `cm-window`: sketches that forget (`core::cms::window`). The name clashes with no
/// RedisBloom type, so RedisBloom refuses such a value by its name.
struct WindowFormat;

impl Format for WindowFormat {
    type Value = WindowSketch;
    const NAME: &'static str = "cm-window";
    const ENCODING_VERSION: i32 = window_rdb::ENCODING_VERSION;

    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<WindowSketch, Error> {
        window_rdb::load(io, encver, memory)
    }

    /// Rewritten as `RESTORE` (the default), as the classic sketch.
    fn save(sketch: &WindowSketch, out: &mut impl RdbWrite) {
        window_rdb::save(sketch, out);
    }
}

impl StoredValue for WindowSketch {
    /// The counters and the per-tick totals.
    fn arrays(&self) -> usize {
        2
    }

    fn try_clone(&self) -> Result<WindowSketch, Error> {
        WindowSketch::try_clone(self)
    }
}

impl Format for SketchFormat {
    type Value = CountMinSketch;
    const NAME: &'static str = "CMSk-TYPE";
    const ENCODING_VERSION: i32 = rdb::ENCODING_VERSION;

    fn written_encoding() -> i32 {
        config::rdb_encoding()
    }

    /// Sketches of other cell sizes widen to four bytes while the older encoding is written,
    /// so that what is held is what is saved, on every replica alike.
    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<CountMinSketch, Error> {
        let sketch = rdb::load(io, encver, memory)?;
        if config::legacy_cells() {
            sketch.with_four_byte_cells(memory)
        } else {
            Ok(sketch)
        }
    }

    /// Rewritten as `RESTORE` (the default): no sequence of CMS commands sets arbitrary
    /// counters.
    fn save(sketch: &CountMinSketch, out: &mut impl RdbWrite) {
        rdb::save(sketch, out, config::rdb_encoding());
    }
}

impl StoredValue for CountMinSketch {
    fn arrays(&self) -> usize {
        1
    }

    fn try_clone(&self) -> Result<CountMinSketch, Error> {
        CountMinSketch::try_clone(self)
    }
}
