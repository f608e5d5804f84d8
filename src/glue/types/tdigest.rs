//! The t-digest data type `TDIS-TYPE`, encoding version 0: RedisBloom's name and format, so
//! RedisBloom's RDB files and DUMP payloads load here and ours load there (the format is
//! `core::tdigest::rdb`). RedisBloom's type has no digest, copy or free-effort callbacks; this
//! one has all three.
//!
//! * Save writes the compressed digest — the only form the format holds — from a copy, leaving
//!   the value as it is; a value so saved owes its peers the compression (`commands::tdigest`).
//! * A loaded value owes it too: its peers may hold the digest it was saved from, buffer and
//!   all.
//! * AOF rewrite (without the RDB preamble) writes `RESTORE key 0 <payload>`, as RedisBloom
//!   does — a payload of the compressed digest, so exactly what the preamble or a DUMP would
//!   load. No sequence of RedisBloom's commands rebuilds a buffer: ADD adds weight 1 only,
//!   and MERGE and the reads compress. The rewrite is made in a child, while the primary keeps
//!   its buffer; the primary compresses that buffer at the digest's next command and replicates
//!   the compression into the new AOF (see the family's docs), so the AOF replays to the
//!   primary's digest.
//! * DEBUG DIGEST covers every field and every node, the buffer included, so two servers
//!   holding different buffers differ.

use super::super::data_type::{DataType, Digest, Format, Io, Registered, StoredValue};
use super::super::forks;
use crate::commands::tdigest::{self, StoredDigest};
use crate::core::rdb::RdbWrite;
use crate::core::tdigest::rdb;
use crate::core::{Error, Memory};

/// The t-digest family and its data type.
pub static REGISTERED: Registered = Registered {
    family: &tdigest::FAMILY,
    types: &[&TDIGEST_TYPE],
};

static TDIGEST_TYPE: DataType = DataType::of::<TDigestFormat>();

struct TDigestFormat;

impl Format for TDigestFormat {
    type Value = StoredDigest;
    const NAME: &'static str = "TDIS-TYPE";
    const ENCODING_VERSION: i32 = rdb::ENCODING_VERSION;

    fn load(io: &mut Io, encver: i32, memory: &Memory) -> Result<StoredDigest, Error> {
        let digest = rdb::load(io, encver, memory)?;
        Ok(StoredDigest::loaded(digest, forks::count()))
    }

    /// Rewritten as `RESTORE` (the default), as RedisBloom rewrites it.
    fn save(stored: &StoredDigest, out: &mut impl RdbWrite) {
        stored.save(out);
    }

    /// Every field and every node as held.
    fn digest(stored: &StoredDigest, digest: &mut Digest) {
        stored.read(|d| {
            let info = d.info();
            let (min, max) = d.extremes();
            digest.numbers(&[
                info.compression as u64,
                info.capacity as u64,
                info.merged_nodes as u64,
                info.unmerged_nodes as u64,
                info.merged_weight as u64,
                info.unmerged_weight as u64,
                info.total_compressions as u64,
                min.to_bits(),
                max.to_bits(),
            ]);
            let (means, weights) = d.nodes();
            for (mean, &weight) in means.iter().zip(weights) {
                digest.numbers(&[mean.to_bits(), weight as u64]);
            }
        });
    }
}

impl StoredValue for StoredDigest {
    fn arrays(&self) -> usize {
        2
    }

    fn try_clone(&self) -> Result<StoredDigest, Error> {
        StoredDigest::try_clone(self)
    }
}
