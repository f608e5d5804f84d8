//! What the t-digest commands share of the digests at keys: the lookups that find one with
//! RedisBloom's key errors, and how a digest's compressions — owed since a save, or made by a
//! read — reach replicas.

use std::ffi::CStr;

use super::errors;
use super::stored::StoredDigest;
use crate::commands::call::Call;
use crate::commands::errors::Failure;
use crate::commands::keys::{ReadKey, WriteKey};
use crate::commands::server::{Arg, Origin, Replicated};
use crate::commands::tracked::Tracked;
use crate::core::tdigest::TDigest;
use crate::core::Error;

/// The command RedisBloom would run to compress a digest and change nothing else, replicated
/// with the key and `0` for each compression a read, a save or a failed merge made.
pub const COMPRESS_COMMAND: &CStr = c"TDIGEST.QUANTILE";

/// The flags of the reads that compress: they may replicate that compression, as PFCOUNT
/// (`readonly may-replicate` in Redis's own table) may replicate its cache.
pub(super) const COMPRESSING_READ: &str = "readonly may-replicate";

/// The command that compresses the digest at argument `key_index`, as replicated.
pub(super) fn compression_of(key_index: usize) -> Replicated<'static> {
    Replicated {
        command: COMPRESS_COMMAND,
        args: vec![Arg::Own(key_index), Arg::Bytes(b"0")],
    }
}

/// Replicates the compression of the digest at argument `key_index`.
pub(super) fn replicate_compression(call: &Call, key_index: usize) {
    call.also_replicate(&[compression_of(key_index)]);
}

/// The digest at a key opened for writing, or `ERR T-Digest: key does not exist` /
/// `WRONGTYPE`, before any argument is parsed (RedisBloom's order).
// Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
#[inline(always)]
pub(super) fn existing_write<'k>(
    key: &'k mut WriteKey,
) -> Result<Tracked<'k, StoredDigest>, Failure> {
    key.lookup().or_missing(errors::KEY_MISSING)
}

/// The digest at a key opened for reading, shared: for reads that never change it.
pub(super) fn existing_read<'k>(key: &'k ReadKey) -> Result<&'k StoredDigest, Failure> {
    key.lookup().or_missing(errors::KEY_MISSING)
}

/// The digest at a key opened for reading, for a read that may compress it: untracked, so
/// whatever compresses it tracks it (`read_compressing`, MERGE's sources).
pub(super) fn existing_read_mut<'k>(key: &'k mut ReadKey) -> Result<&'k mut StoredDigest, Failure> {
    key.lookup_mut().or_missing(errors::KEY_MISSING)
}

/// Before a command that may change the digest at argument `key_index` (a write, or a read
/// that compresses): on a primary, the compression the digest owes — since a save, a load or
/// a fork ([`StoredDigest::owes_compression`]) — is made and replicated first.
pub(super) fn settle(call: &Call, key_index: usize, stored: &mut StoredDigest) {
    let snapshots = call.snapshots();
    // What is owed first: the origin costs a read of the context flags.
    if stored.owes_compression(snapshots) && call.origin() == Origin::Primary {
        stored.digest_mut().compress();
        replicate_compression(call, key_index);
        stored.paid();
    }
    stored.note_buffer(snapshots);
}

/// A read that RedisBloom answers after compressing the digest where `compresses` says so.
/// On a primary or in a replay, `read` gets `true`: it compresses the digest in place as
/// RedisBloom does (any owed compression first), and a compression that changed it is
/// replicated. On a replica's client it gets `false` and reads from a compressed copy,
/// changing nothing.
pub(super) fn read_compressing<T>(
    call: &Call,
    stored: &mut StoredDigest,
    compresses: impl FnOnce(&TDigest) -> bool,
    read: impl FnOnce(&mut TDigest, bool) -> Result<T, Error>,
) -> Result<T, Failure> {
    let no_memory = |_| Failure::Message(errors::NO_MEMORY_TO_READ);
    // With no buffer and nothing owed there is nothing to compress, whoever reads: the
    // context flags (about 160 instructions) are not asked.
    let snapshots = call.snapshots();
    if !stored.digest_mut().has_buffer() && !stored.owes_compression(snapshots) {
        stored.note_buffer(snapshots);
        return read(stored.digest_mut(), true).map_err(no_memory);
    }
    if call.origin() == Origin::Replica {
        return read(stored.digest_mut(), false).map_err(no_memory);
    }
    // Only here is the digest compressed in place, which can change its size: a sum of weights
    // past 2^53 rounds, as RedisBloom's does. So only here is it tracked for the totals.
    let mut stored = Tracked::new(stored);
    settle(call, 1, &mut stored);
    let digest = stored.digest_mut();
    let changes = digest.compress_changes() && compresses(digest);
    let answer = read(digest, true).map_err(no_memory)?;
    if changes {
        replicate_compression(call, 1);
        stored.note_buffer(call.snapshots());
    }
    Ok(answer)
}
