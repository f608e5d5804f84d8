//! `TDIGEST.QUANTILE key quantile [quantile ...]`, `TDIGEST.CDF key value [value ...]` and
//! `TDIGEST.TRIMMED_MEAN key low_cut_quantile high_cut_quantile`
//!
//! QUANTILE: for each fraction, the value below which that fraction of the observations lies
//! (each run of non-decreasing fractions shares RedisBloom's interpolation cursor, so the
//! answers depend on the order given, as RedisBloom's do). CDF: for each value, the fraction of
//! observations below it plus half of those equal to it. Both reply an array of doubles, NaN
//! for an empty digest. TRIMMED_MEAN: the mean of the observations between the two cut
//! fractions, a double.
//!
//! Errors, in RedisBloom's order: `ERR T-Digest: key does not exist` / `WRONGTYPE`; then
//! QUANTILE per fraction `… error parsing quantile`, `… quantile should be in [0,1]`; CDF per
//! value `… error parsing cdf` (±inf are values); TRIMMED_MEAN `… error parsing
//! low_cut_percentile`, `… error parsing high_cut_percentile`, `… low_cut_percentile and
//! high_cut_percentile should be in [0,1]`, `… low_cut_percentile should be lower than
//! high_cut_percentile`.
//!
//! Each compresses the digest's buffer first, as RedisBloom's does: on a primary in place,
//! replicated (see the family's docs); on a replica's client, in a copy.

use super::errors;
use super::rules::each;
use super::values::{existing_read_mut, read_compressing, COMPRESSING_READ};
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::CommandResult;
use crate::commands::errors::Failure;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::short_list::ShortList;
use crate::core::tdigest::TDigest;
use crate::core::Error;

pub static QUANTILE: CommandSpec = CommandSpec {
    name: "tdigest.quantile",
    flags: COMPRESSING_READ,
    arity: -3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read fast",
    summary: "Returns, for each input fraction, an estimation of the value (floating point) \
              that is smaller than the given fraction of observations",
    complexity: "O(N) where N is the number of quantiles specified.",
    since: "2.4.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("quantile", ArgKind::Double).multiple(),
    ],
    run: quantile,
};

pub static CDF: CommandSpec = CommandSpec {
    name: "tdigest.cdf",
    flags: COMPRESSING_READ,
    arity: -3,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read fast",
    summary: "Returns, for each input value, an estimation of the floating-point fraction of \
              (observations smaller than the given value + half the observations equal to the \
              given value). Multiple fractions can be retrieved in a single call.",
    complexity: "O(N) where N is the number of values specified.",
    since: "2.4.0",
    tips: None,
    args: &[KEY_ARG, ArgSpec::new("value", ArgKind::Double).multiple()],
    run: cdf,
};

pub static TRIMMED_MEAN: CommandSpec = CommandSpec {
    name: "tdigest.trimmed_mean",
    flags: COMPRESSING_READ,
    arity: 4,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "read",
    summary: "Returns an estimation of the mean value from the sketch, excluding observation \
              values outside the low and high cutoff quantiles",
    complexity: "O(N) where N is the number of centroids",
    since: "2.4.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("low_cut_quantile", ArgKind::Double),
        ArgSpec::new("high_cut_quantile", ArgKind::Double),
    ],
    run: trimmed_mean,
};

fn quantile(call: &Call) -> CommandResult {
    per_point(call, parse_quantile, TDigest::quantiles)
}

fn cdf(call: &Call) -> CommandResult {
    per_point(call, parse_cdf, TDigest::cdfs)
}

/// What QUANTILE and CDF read from their arguments: a point per argument, or a failure.
type Points = fn(&[&[u8]]) -> Result<ShortList<f64>, Failure>;
/// Their answers over a digest, one per point.
type Answers = fn(&TDigest, &[f64]) -> Result<ShortList<f64>, Error>;

/// QUANTILE and CDF: the points `parse` reads from the arguments after the key, each
/// answered by `answer` over the compressed digest.
fn per_point(call: &Call, parse: Points, answer: Answers) -> CommandResult {
    let mut key = call.open_for_read()?;
    let stored = existing_read_mut(&mut key)?;
    let points = parse(call.args.get(2..).unwrap_or_default())?;
    let answers = read_compressing(
        call,
        stored,
        |_| true,
        |digest, in_place| {
            compress_if(digest, in_place);
            answer(digest, &points)
        },
    )?;
    Ok(doubles(call, &answers))
}

fn trimmed_mean(call: &Call) -> CommandResult {
    let mut key = call.open_for_read()?;
    let stored = existing_read_mut(&mut key)?;
    let (low, high) = parse_trimmed_mean(call.arg(2), call.arg(3))?;
    let mean = read_compressing(
        call,
        stored,
        |_| true,
        |digest, in_place| {
            compress_if(digest, in_place);
            digest.trimmed_mean(low, high)
        },
    )?;
    Ok(Reply::Scalar(Scalar::Double(mean)))
}

fn compress_if(digest: &mut TDigest, in_place: bool) {
    if in_place {
        digest.compress();
    }
}

/// An array of doubles, written as it goes.
pub(super) fn doubles(call: &Call, values: &[f64]) -> Reply {
    call.out.scalars(values.iter().map(|&x| Scalar::Double(x)));
    Reply::Sent
}

/// QUANTILE's quantiles: each a number within [0, 1].
pub fn parse_quantile(args: &[&[u8]]) -> Result<ShortList<f64>, Failure> {
    each(args, |arg| {
        let q = parse_double(arg).ok_or(Failure::Message(errors::BAD_QUANTILE))?;
        if (0.0..=1.0).contains(&q) {
            Ok(q)
        } else {
            Err(Failure::Message(errors::QUANTILE_RANGE))
        }
    })
}

/// CDF's values: any number, ±inf included.
pub fn parse_cdf(args: &[&[u8]]) -> Result<ShortList<f64>, Failure> {
    each(args, |arg| {
        parse_double(arg).ok_or(Failure::Message(errors::BAD_CDF))
    })
}

/// TRIMMED_MEAN's cuts: the low one parsed, the high one parsed, both within [0, 1], then the
/// low one below the high one.
pub fn parse_trimmed_mean(low: &[u8], high: &[u8]) -> Result<(f64, f64), Failure> {
    let low = parse_double(low).ok_or(Failure::Message(errors::BAD_LOW_CUT))?;
    let high = parse_double(high).ok_or(Failure::Message(errors::BAD_HIGH_CUT))?;
    let unit = 0.0..=1.0;
    if !unit.contains(&low) || !unit.contains(&high) {
        return Err(Failure::Message(errors::CUTS_RANGE));
    }
    if low >= high {
        return Err(Failure::Message(errors::CUTS_ORDER));
    }
    Ok((low, high))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::{assert_refused, words};

    #[test]
    fn lists_fail_at_their_first_bad_element() {
        assert_eq!(parse_quantile(&words("-0 1 0.5")).map(|q| q.len()), Ok(3));
        assert_refused(parse_quantile(&words("1.5 x")), errors::QUANTILE_RANGE);
        assert_refused(parse_quantile(&words("inf")), errors::QUANTILE_RANGE);
        assert_eq!(parse_cdf(&words("-inf inf")).map(|v| v.len()), Ok(2));
        assert_refused(parse_cdf(&words("1 x")), errors::BAD_CDF);
    }

    #[test]
    fn cuts_are_checked_in_redisbloom_order() {
        assert_refused(parse_trimmed_mean(b"x", b"y"), errors::BAD_LOW_CUT);
        assert_refused(parse_trimmed_mean(b"2", b"y"), errors::BAD_HIGH_CUT);
        assert_refused(parse_trimmed_mean(b"2", b"0.5"), errors::CUTS_RANGE);
        assert_refused(parse_trimmed_mean(b"0.5", b"0.5"), errors::CUTS_ORDER);
        assert_eq!(parse_trimmed_mean(b"0.1", b"0.9"), Ok((0.1, 0.9)));
    }
}
