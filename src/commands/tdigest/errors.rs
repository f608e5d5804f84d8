//! The t-digest family's wire texts, byte for byte as RedisBloom sends them
//! (`src/rm_tdigest.c`, 2.8.2 and 8.x alike): every one `ERR T-Digest: …`.

use std::ffi::CStr;

use crate::commands::errors::Failure;
use crate::core;
use crate::core::tdigest::AddError;

pub use crate::commands::errors::WRONG_TYPE;

pub const KEY_MISSING: &CStr = c"ERR T-Digest: key does not exist";
pub const KEY_EXISTS: &CStr = c"ERR T-Digest: key already exists";
/// CREATE without COMPRESSION in its options; MERGE with options naming neither keyword.
pub const WRONG_KEYWORD: &CStr = c"ERR T-Digest: wrong keyword";
pub const BAD_COMPRESSION: &CStr = c"ERR T-Digest: error parsing compression parameter";
pub const COMPRESSION_NOT_POSITIVE: &CStr =
    c"ERR T-Digest: compression parameter needs to be a positive integer";
/// CREATE of a digest that cannot be had: RedisBloom's for a failed allocation, here also for
/// a compression whose capacity would not fit RedisBloom's format, and for the memory limit.
pub const CREATE_FAILED: &CStr = c"ERR T-Digest: allocation failed";
/// The same for MERGE's new digest.
pub const MERGE_FAILED: &CStr = c"ERR T-Digest: allocation of destination digest failed";
pub const BAD_VALUE_TO_ADD: &CStr = c"ERR T-Digest: error parsing val parameter";
pub const VALUE_NOT_FINITE: &CStr = c"ERR T-Digest: val parameter needs to be a finite number";
pub const OVERFLOW: &CStr = c"ERR T-Digest: overflow detected";
pub const BAD_NUMKEYS: &CStr = c"ERR T-Digest: error parsing numkeys";
pub const NUMKEYS_NOT_POSITIVE: &CStr = c"ERR T-Digest: numkeys needs to be a positive integer";
/// RANK and REVRANK.
pub const BAD_VALUE: &CStr = c"ERR T-Digest: error parsing value";
pub const BAD_RANK: &CStr = c"ERR T-Digest: error parsing rank";
pub const RANK_NEGATIVE: &CStr = c"ERR T-Digest: rank needs to be non negative";
pub const BAD_QUANTILE: &CStr = c"ERR T-Digest: error parsing quantile";
pub const QUANTILE_RANGE: &CStr = c"ERR T-Digest: quantile should be in [0,1]";
pub const BAD_CDF: &CStr = c"ERR T-Digest: error parsing cdf";
pub const BAD_LOW_CUT: &CStr = c"ERR T-Digest: error parsing low_cut_percentile";
pub const BAD_HIGH_CUT: &CStr = c"ERR T-Digest: error parsing high_cut_percentile";
pub const CUTS_RANGE: &CStr =
    c"ERR T-Digest: low_cut_percentile and high_cut_percentile should be in [0,1]";
pub const CUTS_ORDER: &CStr =
    c"ERR T-Digest: low_cut_percentile should be lower than high_cut_percentile";
/// Ours: a read on a replica (or any read that may not compress the digest in place) needs a
/// compressed copy, and the memory for it could not be had.
pub const NO_MEMORY_TO_READ: &CStr = c"ERR T-Digest: insufficient memory to read the digest";

/// Why a digest could not be made, as the other families' `fail` maps the core's errors: an
/// allocation that failed or would pass the memory limit.
pub fn fail(_: core::Error) -> Failure {
    Failure::Message(CREATE_FAILED)
}

/// Why an add or a merge stopped.
pub fn add(error: AddError) -> Failure {
    Failure::Message(match error {
        AddError::Overflow => OVERFLOW,
        AddError::NotFinite => VALUE_NOT_FINITE,
    })
}
