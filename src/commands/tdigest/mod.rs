//! The t-digest commands (`TDIGEST.*`): RedisBloom's answers to the bit, and one history per
//! digest whichever server holds it — primary, replica, AOF replay, restart.
//!
//! # Reads that compress, replicated
//!
//! RedisBloom compresses a digest in place when QUANTILE, CDF, TRIMMED_MEAN and most RANK and
//! BYRANK calls find a buffer, and replicates nothing; its replicas and AOF never see the
//! compression, and a compression changes the digest's later centroids, so they drift. Here a
//! read on a primary compresses exactly where RedisBloom's would — same answers, same centroids
//! and `INFO` afterwards — and replicates that compression as [`COMPRESS_COMMAND`]
//! (`TDIGEST.QUANTILE key 0`): a RedisBloom read that compresses and changes nothing else, so a
//! RedisBloom replica or AOF applies it too. A replica applies it from its primary's stream (or
//! an AOF replay from the file) in place and appends it to its own AOF; a replica's own clients
//! read from a compressed copy ([`TDigest::merged_view`](crate::core::tdigest::TDigest::merged_view)) and change nothing. The compressing
//! reads are flagged `may-replicate`, as Redis flags PFCOUNT, whose reads also rewrite a value
//! and replicate it: Redis then holds them back during `CLIENT PAUSE WRITE` (where a
//! replicated change would be refused) and refuses them in read-only scripts (`EVAL_RO`, which
//! RedisBloom allows). A read that need not compress (MIN, MAX, INFO, ranks outside the values)
//! replicates nothing.
//!
//! A failed MERGE is not replicated, yet RedisBloom compresses the sources it merged before
//! failing: those compressions are replicated one by one.
//!
//! # Saves
//!
//! RedisBloom's format cannot carry the buffer, so every save writes the compressed digest
//! (`core::tdigest::rdb::save`, from the view, leaving the value alone). What RedisBloom does
//! besides, and what is done here:
//!
//! * an in-process save (DUMP, SAVE, DEBUG RELOAD, DEBUG OBJECT, MIGRATE) compresses
//!   RedisBloom's digest in place: here the save leaves the value alone and marks it as owing
//!   that compression ([`StoredDigest::save`]); the next command on it on a primary compresses
//!   it and replicates that — RedisBloom's centroids from then on, with the change in the
//!   replication stream. Only INFO in between differs from RedisBloom's (it shows the buffer,
//!   as the replicas hold it);
//! * a value loaded from a file or payload may be the compressed form of a digest that its
//!   peers hold with a buffer (a primary restarted from its RDB that replicas resynchronise with
//!   partially, or one that ran DEBUG RELOAD): it owes a compression too, which the primary
//!   replicates at its next command (a no-op here; it realigns the peers);
//! * a forked save (BGSAVE, a full synchronisation, an AOF rewrite) writes the compressed form
//!   in the child while the primary keeps its buffer, so a replica synchronised from it, or the
//!   AOF, would start from another digest: the primary compresses a digest whose buffer is
//!   older than the last fork (`Server::snapshots`) at its next command, and replicates that.
//!   RedisBloom's primary keeps its buffer: there the bits differ from RedisBloom's, on purpose.
//!
//! What cannot be realigned: a replica's own snapshot (for its sub-replicas, or its own restart
//! with partial resynchronisation) drops the buffer where nobody replicates a compression.
//!
//! # Merges and aliasing
//!
//! A key's value is handed out as `&mut`, so no key is opened twice: MERGE opens its
//! destination once and each distinct source once, and a source named like the destination is
//! the destination's old digest.

mod add;
mod create;
pub mod errors;
mod info;
mod merge;
mod quantile;
mod rank;
mod rules;
mod stored;
mod values;

pub use add::ADD;
pub use create::{CREATE, RESET};
pub use info::{INFO, MAX, MIN};
pub use merge::MERGE;
pub use quantile::{CDF, QUANTILE, TRIMMED_MEAN};
pub use rank::{BYRANK, BYREVRANK, RANK, REVRANK};
pub use stored::StoredDigest;
pub use values::COMPRESS_COMMAND;
/// The argument parsers, pure functions of the arguments (fuzzed).
pub use {
    add::parse as parse_add,
    create::parse as parse_create,
    merge::{parse as parse_merge, MergeArgs},
    quantile::{parse_cdf, parse_quantile, parse_trimmed_mean},
    rank::{parse_byrank, parse_rank},
    rules::DEFAULT_COMPRESSION,
};

use super::family::{Family, InfoField, InfoSection, Stat};
use stored::{CAPACITY, OBSERVATIONS, TOTALS};

/// The t-digest family, as the glue registers it.
pub static FAMILY: Family = Family {
    acl_category: "tdigest",
    commands: &[
        &CREATE,
        &RESET,
        &ADD,
        &MERGE,
        &MIN,
        &MAX,
        &QUANTILE,
        &CDF,
        &RANK,
        &REVRANK,
        &BYRANK,
        &BYREVRANK,
        &TRIMMED_MEAN,
        &INFO,
    ],
    settings: &[],
    totals: &TOTALS,
    info: InfoSection {
        name: c"tdigest_core_metrics",
        fields: &INFO_FIELDS,
    },
    stand_in: |_| None,
};

static INFO_FIELDS: [InfoField; 4] = [
    InfoField::new(c"tdigest_total_memory_bytes", Stat::Bytes),
    InfoField::new(c"tdigest_num_objects", Stat::Objects),
    // TDIGEST.INFO's `Observations`, summed.
    InfoField::new(
        c"tdigest_observations_across_objects",
        Stat::Count(OBSERVATIONS),
    ),
    // TDIGEST.INFO's `Capacity` (nodes), summed.
    InfoField::new(c"tdigest_capacity_across_objects", Stat::Count(CAPACITY)),
];
