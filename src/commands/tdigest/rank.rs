//! `TDIGEST.RANK key value [value ...]`, `TDIGEST.REVRANK key value [value ...]`,
//! `TDIGEST.BYRANK key rank [rank ...]` and `TDIGEST.BYREVRANK key reverse_rank [reverse_rank ...]`
//!
//! RANK: for each value, the observations below it plus half of those equal to it, rounded as
//! RedisBloom rounds (halves down); REVRANK the same counted from the top (C's `round`). Both
//! an array of integers: −2 for an empty digest, −1 below the smallest value (REVRANK: above
//! the largest), the observation count beyond the other end. BYRANK: for each rank, the value
//! of that rank (BYREVRANK: counted from the top); an array of doubles: NaN for an empty
//! digest, the smallest (largest) value for rank 0, +inf (−inf) from the observation count on.
//!
//! Errors, in RedisBloom's order: `ERR T-Digest: key does not exist` / `WRONGTYPE`; then per
//! element `… error parsing value` (RANK, REVRANK; ±inf are values), `… error parsing rank`
//! (a strict integer), `… rank needs to be non negative`.
//!
//! They compress the digest's buffer where RedisBloom's do — some value within the observed
//! range, some rank strictly between 0 and the count: on a primary in place, replicated (see
//! the family's docs); on a replica's client, in a copy.

use super::errors;
use super::quantile::doubles;
use super::rules::each;
use super::values::{existing_read_mut, read_compressing, COMPRESSING_READ};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::CommandResult;
use crate::commands::errors::Failure;
use crate::commands::reply::Scalar;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::short_list::ShortList;
use crate::core::tdigest::{Order, Ranks};

const fn spec(
    name: &'static str,
    summary: &'static str,
    complexity: &'static str,
    args: &'static [ArgSpec],
    run: fn(&Call) -> CommandResult,
) -> CommandSpec {
    CommandSpec {
        name,
        flags: COMPRESSING_READ,
        arity: -3,
        keys: Keys::One(KeyAccess::Read),
        acl_categories: "read fast",
        summary,
        complexity,
        since: "2.4.0",
        tips: None,
        args,
        run,
    }
}

const VALUES: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("value", ArgKind::Double).multiple()];

pub static RANK: CommandSpec = spec(
    "tdigest.rank",
    "Returns, for each input value (floating-point), the estimated rank of the value (the \
     number of observations in the sketch that are smaller than the value + half the number of \
     observations that are equal to the value)",
    "O(N) where N is the number of values specified.",
    VALUES,
    |call| ranks(call, Order::Ascending),
);

pub static REVRANK: CommandSpec = spec(
    "tdigest.revrank",
    "Returns, for each input value (floating-point), the estimated reverse rank of the value \
     (the number of observations in the sketch that are larger than the value + half the \
     number of observations that are equal to the value)",
    "O(N) where N is the number of values specified.",
    VALUES,
    |call| ranks(call, Order::Descending),
);

pub static BYRANK: CommandSpec = spec(
    "tdigest.byrank",
    "Returns, for each input rank, an estimation of the value (floating-point) with that rank",
    "O(N) where N is the number of ranks specified",
    &[KEY_ARG, ArgSpec::new("rank", ArgKind::Integer).multiple()],
    |call| by_ranks(call, Order::Ascending),
);

pub static BYREVRANK: CommandSpec = spec(
    "tdigest.byrevrank",
    "Returns, for each input reverse rank, an estimation of the value (floating-point) with \
     that reverse rank",
    "O(N) where N is the number of reverse ranks specified.",
    &[
        KEY_ARG,
        ArgSpec::new("reverse_rank", ArgKind::Integer).multiple(),
    ],
    |call| by_ranks(call, Order::Descending),
);

fn ranks(call: &Call, order: Order) -> CommandResult {
    let mut key = call.open_for_read()?;
    let stored = existing_read_mut(&mut key)?;
    let values = parse_rank(call.args.get(2..).unwrap_or_default())?;
    read_compressing(
        call,
        stored,
        |digest| digest.ranks_compress(&values),
        |digest, in_place| {
            // Written as they are made: nothing can fail once they are.
            let reply = |ranks: Ranks| call.out.scalars(ranks.map(Scalar::Integer));
            if in_place {
                digest.ranks_compressing(&values, order, reply)
            } else {
                digest.ranks(&values, order, reply)
            }
        },
    )?;
    Ok(crate::commands::reply::Reply::Sent)
}

fn by_ranks(call: &Call, order: Order) -> CommandResult {
    let mut key = call.open_for_read()?;
    let stored = existing_read_mut(&mut key)?;
    let ranks = parse_byrank(call.args.get(2..).unwrap_or_default())?;
    let values = read_compressing(
        call,
        stored,
        |digest| digest.by_ranks_compress(&ranks),
        |digest, in_place| {
            if in_place {
                digest.by_ranks_compressing(&ranks, order)
            } else {
                digest.by_ranks(&ranks, order)
            }
        },
    )?;
    Ok(doubles(call, &values))
}

/// RANK's and REVRANK's values: any number, ±inf included.
pub fn parse_rank(args: &[&[u8]]) -> Result<ShortList<f64>, Failure> {
    each(args, |arg| {
        parse_double(arg).ok_or(Failure::Message(errors::BAD_VALUE))
    })
}

/// BYRANK's and BYREVRANK's ranks: strict integers, not negative.
pub fn parse_byrank(args: &[&[u8]]) -> Result<ShortList<i64>, Failure> {
    each(args, |arg| {
        let rank = parse_integer(arg).ok_or(Failure::Message(errors::BAD_RANK))?;
        if rank >= 0 {
            Ok(rank)
        } else {
            Err(Failure::Message(errors::RANK_NEGATIVE))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::{assert_refused, words};

    #[test]
    fn lists_fail_at_their_first_bad_element() {
        assert_refused(parse_rank(&words("nan")), errors::BAD_VALUE);
        assert_eq!(parse_rank(&words("-inf 3")).map(|v| v.len()), Ok(2));
        assert_refused(parse_byrank(&words("-1 x")), errors::RANK_NEGATIVE);
        for bad in ["1.5", "1e2", "+1", "01"] {
            assert_refused(parse_byrank(&words(bad)), errors::BAD_RANK);
        }
    }
}
