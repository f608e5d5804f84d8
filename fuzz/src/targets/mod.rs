//! One function per fuzz target (`fuzz_targets/<name>.rs` calls it), each checking
//! invariants of what it decodes. A failed invariant panics, which libFuzzer reports as a
//! crash with its input. Each family's targets are in its module (`bf`, with its filters that
//! forget in `bf/window.rs` and valkey-bloom's in `bf/valkey.rs`, `cf`, `cms`, `topk`, `tdigest`); `args` checks the number parsers the families share, and `shared` holds the checks several
//! targets make.
//!
//! | target | input |
//! |---|---|
//! | `bf_rdb_classic` | a `DUMP` payload of `MBbloom--` (RedisBloom's type), encoding versions 1–4 |
//! | `bf_rdb_fast` | a `DUMP` payload of `bfblocked` (the fast layout) |
//! | `bf_scandump` | a BF.SCANDUMP stream (`stream`): header, then LOADCHUNK pairs |
//! | `bf_window` | a `DUMP` payload of `bf-window` (filters that forget), or its SCANDUMP stream |
//! | `bf_valkey` | a `DUMP` payload of `bloomfltr` (valkey-bloom's type), or a `BF.LOAD` payload |
//! | `cf_rdb` | a `DUMP` payload of `MBbloomCF`, encoding versions 1–4 |
//! | `cf_scandump` | a CF.SCANDUMP stream |
//! | `args_numbers` | one argument: the integer, double, error-rate, range and layout parsers |
//! | `bf_args` | a command line, one argument per line: BF.RESERVE and BF.INSERT options |
//! | `cf_args` | a command line, one argument per line: CF.RESERVE and CF.INSERT options |
//! | `cms_rdb` | a `DUMP` payload of `CMSk-TYPE` (RedisBloom's type) |
//! | `cms_window` | a `DUMP` payload of `cm-window` (Count-Min sketches that forget) |
//! | `cms_args` | a command line, one argument per line: CMS.INITBY*, CMS.INCRBY, CMS.MERGE |
//! | `topk_rdb` | a `DUMP` payload of `TopK-TYPE` (RedisBloom's type, heap pointers and all) |
//! | `topk_window` | a `DUMP` payload of `tk-window` (Top-Ks that forget) |
//! | `topk_args` | a command line, one argument per line: TOPK.RESERVE, TOPK.INCRBY, TOPK.LIST |
//! | `tdigest_rdb` | a `DUMP` payload of `TDIS-TYPE` (RedisBloom's t-digest type) |
//! | `tdigest_args` | a command line, one argument per line: every TDIGEST.* argument parser |

mod args;
mod bf;
mod cf;
mod cms;
mod shared;
mod tdigest;
mod topk;

pub use args::args_numbers;
pub use bf::{bf_args, bf_rdb_classic, bf_rdb_fast, bf_scandump, bf_valkey, bf_window};
pub use cf::{cf_args, cf_rdb, cf_scandump};
pub use cms::{cms_args, cms_rdb, cms_window};
pub use tdigest::{tdigest_args, tdigest_rdb};
pub use topk::{topk_args, topk_rdb, topk_window};
