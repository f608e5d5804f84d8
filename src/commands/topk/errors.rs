//! The Top-K family's wire texts, byte for byte as RedisBloom 8 sends them (`src/rm_topk.c`),
//! and the text of each core error in a TOPK command. Most carry no `ERR` code, one does:
//! RedisBloom writes them so, and clients match on the text.

use std::ffi::CStr;

use crate::commands::errors::Failure;
use crate::commands::window_options::OptionTexts;
use crate::core;
use crate::core::topk::ReserveError;

pub const KEY_EXISTS: &CStr = c"TopK: key already exists";
pub const NOT_FOUND: &CStr = c"TopK: key does not exist";
/// An increment outside [0, 100000]: RedisBloom's text, 28 spaces and all (its C literal
/// continues a line inside the string).
pub const BAD_INCREMENT: &CStr = c"TopK: increment must be an integer greater or equal to 0                            and smaller or equal to 100,000";
pub const WITHCOUNT_EXPECTED: &CStr = c"WITHCOUNT keyword expected";
const INVALID_K: &CStr = c"TopK: invalid k";
const INVALID_WIDTH: &CStr = c"TopK: invalid width";
const INVALID_DEPTH: &CStr = c"TopK: invalid depth";
const INVALID_DECAY: &CStr = c"TopK: invalid decay value. must be '<= 1' & '> 0'";

const UNKNOWN_ARGUMENT: &CStr = c"TopK: unknown argument";
/// Ours: TOPK.ADVANCE on a Top-K that does not forget.
pub const NOT_A_WINDOW: &CStr = c"TopK: the key holds no Top-K that forgets";

const INSUFFICIENT_MEMORY: &CStr = c"ERR Insufficient memory to create topk data structure";
/// Ours, worded as valkey-bloom words its per-object limit (`bf-memory-usage-limit`).
const OVER_LIMIT: &CStr = c"ERR operation exceeds topk object memory limit";

/// The wire text of a core error in a TOPK command: creating a Top-K, or copying an item
/// into its heap.
pub fn text(error: core::Error) -> &'static CStr {
    match error {
        core::Error::OverLimit => OVER_LIMIT,
        _ => INSUFFICIENT_MEMORY,
    }
}

/// A core error of a TOPK command, as its reply.
pub fn fail(error: core::Error) -> Failure {
    Failure::Message(text(error))
}

/// Why TOPK.RESERVE refused its arguments.
pub fn reserve(error: ReserveError) -> Failure {
    Failure::Message(match error {
        ReserveError::K => INVALID_K,
        ReserveError::Width => INVALID_WIDTH,
        ReserveError::Depth => INVALID_DEPTH,
        ReserveError::Decay => INVALID_DECAY,
    })
}

/// Ours: how the options of a Top-Ks that forget (`window.rs`) are refused.
pub const WINDOW_OPTIONS: OptionTexts = OptionTexts {
    window_range: c"TopK: WINDOW must be an integer in the range [1, 1099511627776]",
    timespan_range:
        c"TopK: TIMESPAN must be an integer number of milliseconds in the range [1, 1099511627776]",
    slots_range: c"TopK: SLOTS must be an integer in the range [1, 8]",
    slots_without_window: c"TopK: SLOTS needs WINDOW or TIMESPAN before it",
    one_window: c"TopK: a Top-K forgets by one of WINDOW or TIMESPAN, given once",
    unknown: UNKNOWN_ARGUMENT,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::topk::params::MAX_INCREMENT;

    #[test]
    fn the_increment_text_is_redisbloom_s_and_names_the_rule() {
        let text = BAD_INCREMENT.to_str().unwrap();
        assert_eq!(text.len(), 115);
        assert!(text.contains(&format!("to 0{}and", " ".repeat(28))));
        assert!(text.ends_with("100,000") && MAX_INCREMENT == 100_000);
    }
}
