//! The filter engine: pure Rust, with no Redis types, no globals and no `unsafe`. Everything
//! a user can reach returns a `Result`. One wing per filter family, sharing the hash
//! functions, the error type and the memory rules:
//!
//! * [`bloom`] — RedisBloom's scalable Bloom filter, bit-exact, and the fast layout;
//! * [`cuckoo`] — RedisBloom's Cuckoo filter, bit-exact: it can delete and count;
//! * [`tdigest`] — RedisBloom's t-digest, bit-exact, whose reads never change it;
//! * [`hash`] — MurmurHash64A, MurmurHash2 and xxh3, as the families use them;
//! * [`Error`] — what can go wrong, without wire text;
//! * [`Footprint`] — what one filter adds to the module's totals;
//! * [`le`] — little-endian fields read from plain bytes (SCANDUMP headers, RDB fields);
//! * [`Memory`] — where new arrays come from, and how large a filter may grow;
//! * [`rdb`] — a value as the fields of an RDB file, read and written by each family's format.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

pub mod bloom;
pub mod cuckoo;
mod error;
mod footprint;
pub mod hash;
pub mod le;
mod memory;
pub mod rdb;
pub mod tdigest;

pub use error::Error;
pub use footprint::Footprint;
pub use memory::{eager_zeroed, try_copy, Memory, Zeroed, EAGER};
