//! A digest as RDB fields (see `core::rdb`), field for field as RedisBloom's `TDigestRdbSave`/
//! `TDigestRdbLoad` (`src/rm_tdigest.c`) for the data type `TDIS-TYPE`, encoding version 0 (the
//! only one any RedisBloom wrote):
//!
//! `compression, min, max` (doubles), `cap, merged_nodes, unmerged_nodes, total_compressions`
//! (signed), `merged_weight, unmerged_weight` (doubles), then `merged_nodes` means and
//! `merged_nodes` weights (doubles).
//!
//! The buffer has no place in it: RedisBloom compresses the digest in place before saving.
//! [`save`] writes [`TDigest::merged_view`], the same bytes, and leaves the digest as it was.
//! Only a digest of total weight ≤ 1 keeps a buffer through the compression (RedisBloom's
//! single-observation shortcut); its nodes are lost in the file, and RedisBloom reloads them as
//! zeroed slots. [`load`] rebuilds what such a digest held instead where the file tells it: the
//! one observation, `(min, 1)`, or weightless `(0.0, 0)` nodes (the only kind a total weight of
//! 0 can hold); an observation among weightless nodes keeps RedisBloom's zeroed slots.
//!
//! RedisBloom 2.8.2 loads any field values, allocating from the stored compression and then
//! trusting the stored `cap` (RESTORE of a forged one overflows the heap); RedisBloom 8 checks
//! only `0 ≤ merged_nodes ≤ cap`. Here everything is checked before it is used: the compression
//! is a whole number in range, `cap` is the one it implies, the counts fit it, weights are
//! whole, non-negative and add up (below 2⁵³, where the total is exact), every double is
//! finite, and the arrays pass [`Memory::check`] before they are allocated. Weightless nodes that RedisBloom's reload left
//! in real files are kept, so those files load and save back unchanged.

use super::digest::{
    capacity, memory_usage, node_arrays, TDigest, EXACT_SIZE, MAX_COMPRESSION, TWO_POW_63,
};
use crate::core::rdb::{known_version, RdbRead, RdbWrite};
use crate::core::{Error, Memory};

/// The encoding version of `TDIS-TYPE`.
pub const ENCODING_VERSION: i32 = 0;

/// Saves the compressed digest without compressing it (`OutOfMemory` when its buffer needs a
/// compressed copy that cannot be had; nothing is written then).
pub fn save(digest: &TDigest, out: &mut impl RdbWrite) -> Result<(), Error> {
    let view = digest.merged_view()?;
    let merged = view.merged;
    out.double(view.compression);
    out.double(view.min);
    out.double(view.max);
    // SaveSigned and SaveUnsigned write the same 64 bits.
    for signed in [
        view.cap as i64,
        merged as i64,
        (view.means.len() - merged) as i64,
        view.total_compressions,
    ] {
        out.unsigned(signed as u64);
    }
    out.double(view.merged_weight as f64);
    out.double(view.unmerged_weight as f64);
    for &mean in view.means.iter().take(merged) {
        out.double(mean);
    }
    for &weight in view.weights.iter().take(merged) {
        out.double(weight as f64);
    }
    Ok(())
}

fn signed(input: &mut impl RdbRead) -> Result<i64, Error> {
    Ok(input.unsigned()? as i64)
}

fn count(input: &mut impl RdbRead) -> Result<usize, Error> {
    usize::try_from(signed(input)?).map_err(|_| Error::BadEncoding)
}

fn finite(input: &mut impl RdbRead) -> Result<f64, Error> {
    let x = input.double()?;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(Error::BadEncoding)
    }
}

/// A weight: a whole double from 0 to below 2⁶³, as a `long long` converts (not −0).
fn weight(input: &mut impl RdbRead) -> Result<i64, Error> {
    let w = input.double()?;
    if (0.0..TWO_POW_63).contains(&w) && w.fract() == 0.0 && w.is_sign_positive() {
        Ok(w as i64)
    } else {
        Err(Error::BadEncoding)
    }
}

/// Loads a `TDIS-TYPE` value of encoding version `encver`.
pub fn load(input: &mut impl RdbRead, encver: i32, memory: &Memory) -> Result<TDigest, Error> {
    known_version(encver, ENCODING_VERSION..=ENCODING_VERSION)?;
    let compression = finite(input)?;
    let min = finite(input)?;
    let max = finite(input)?;
    let cap = count(input)?;
    let merged = count(input)?;
    let unmerged = count(input)?;
    let total_compressions = signed(input)?;
    let merged_weight = weight(input)?;
    let unmerged_weight = weight(input)?;

    let whole = compression.fract() == 0.0 && compression >= 1.0;
    if !whole || compression > MAX_COMPRESSION as f64 || cap != capacity(compression as i64) {
        return Err(Error::BadEncoding);
    }
    let total = merged_weight
        .checked_add(unmerged_weight)
        .ok_or(Error::BadEncoding)?;
    let nodes = merged.checked_add(unmerged).ok_or(Error::BadEncoding)?;
    // A buffer survives a save only when the total weight is at most 1: the one observation,
    // weightless nodes (a source's, merged in), or both. Where the observation cannot be told
    // from weightless nodes, its weight is counted and its place lost, as RedisBloom loses it.
    let buffer = match (unmerged, unmerged_weight) {
        (0, 0) => None,
        (1, 1) if min == max => Some((min, 1)),
        (1.., 0 | 1) => Some((0.0, 0)),
        _ => return Err(Error::BadEncoding),
    };
    if nodes > cap
        || total_compressions < 0
        || (buffer.is_some() && (merged != 0 || merged_weight != 0))
        || merged_weight as f64 + unmerged_weight as f64 >= TWO_POW_63
    {
        return Err(Error::BadEncoding);
    }
    memory.check(memory_usage(cap))?;
    let (mut means, mut weights) = node_arrays(cap)?;
    for _ in 0..merged {
        means.push(finite(input)?);
    }
    let mut merged_sum: i64 = 0;
    for _ in 0..merged {
        let w = weight(input)?;
        // Saturating: past 2⁵³ the weights may pass the total, and adding to such a digest
        // may take their sum past 2⁶³ while the total stays below it; the digest saves that.
        merged_sum = merged_sum.saturating_add(w);
        weights.push(w);
    }
    // RedisBloom's reload of a one-value digest leaves weightless nodes and a total above their
    // sum (`merged_weight` counts the lost value); below 2⁵³ never a total under it. From 2⁵³ on
    // the total is kept as RedisBloom keeps it, a double sum rounded at every compression, so
    // it drifts from the exact sum of the weights either way, and so does what a file holds.
    if merged_sum > total && total < EXACT_SIZE {
        return Err(Error::BadEncoding);
    }
    if let Some((mean, w)) = buffer {
        means.resize(nodes, mean);
        weights.resize(nodes, w);
    }
    Ok(TDigest {
        compression,
        min,
        max,
        cap,
        merged,
        total_compressions,
        merged_weight,
        unmerged_weight,
        means,
        weights,
    })
}
