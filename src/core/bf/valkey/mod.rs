//! valkey-bloom's Bloom filters (its data type `bloomfltr`), bit-exact, so that a valkey-bloom
//! user's filters load here and answer as they did, and move back.
//!
//! * `sip` — SipHash-1-3 of an item as valkey-bloom's hashing feeds it;
//! * [`filter`] — one sub-filter: the `bloomfilter` crate's bitmap blob and probes;
//! * [`object`] — the object under a key: scaling, tightening, sizes, limits;
//! * [`rdb`] — its RDB fields;
//! * [`payload`] — its `BF.LOAD` payload, which valkey-bloom's AOF rewrite writes.
//!
//! The layout is implemented here rather than taken from the `bloomfilter` crate: the crate
//! ties the format to its version and `expect`s on a malformed blob (valkey-bloom's load
//! paths abort the server on one), where every decoder here refuses with an error.

pub mod filter;
pub mod object;
pub mod payload;
pub mod rdb;
mod sip;

#[cfg(test)]
mod tests;

pub use filter::Seed;
pub use object::{AddError, Params, ValkeyBloom, FIXED_SEED, OBJECT_LIMIT};
