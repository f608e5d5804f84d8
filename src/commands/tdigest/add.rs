//! `TDIGEST.ADD key value [value ...]`
//!
//! Adds each value with weight 1, in order; the buffer is merged into the centroids whenever it
//! fills. Reply `+OK`. Errors, in RedisBloom's order: `ERR T-Digest: key does not exist` /
//! `WRONGTYPE`; then, for the first bad value, `… error parsing val parameter` (not a number,
//! NaN, out of a double's range) or `… val parameter needs to be a finite number` (±inf) —
//! nothing is added; `… overflow detected` when the total weight would pass 2⁶³ (reachable
//! only through MERGE): the values before it stay added, as in RedisBloom.
//!
//! Replicated verbatim; keyspace event `tdigest.add`. After an overflow RedisBloom replicates
//! nothing though it kept the values before it (and may have merged its buffer on the way):
//! here those values are replicated as an ADD of their own, and that merge after them.

use super::errors;
use super::rules::each;
use super::values::{compression_of, existing_write, settle};
use crate::commands::call::Call;
use crate::commands::double::parse_double;
use crate::commands::errors::CommandResult;
use crate::commands::errors::Failure;
use crate::commands::reply::Reply;
use crate::commands::server::{Arg, Replicated};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use crate::core::short_list::ShortList;

pub static ADD: CommandSpec = CommandSpec {
    name: "tdigest.add",
    flags: "write deny-oom",
    arity: -3,
    keys: Keys::One(KeyAccess::Write),
    acl_categories: "write",
    summary: "Adds one or more observations to a t-digest sketch",
    complexity: "O(N), where N is the number of samples to add",
    since: "2.4.0",
    tips: None,
    args: &[KEY_ARG, ArgSpec::new("value", ArgKind::Double).multiple()],
    run: add,
};

fn add(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    let mut stored = existing_write(&mut key)?;
    let texts = call.args.get(2..).unwrap_or_default();
    let values = parse(texts)?;
    settle(call, 1, &mut stored);
    let digest = stored.digest_mut();
    for (added, &value) in values.iter().enumerate() {
        let compressions = digest.info().total_compressions;
        if let Err(error) = digest.add(value) {
            let compressed = digest.info().total_compressions != compressions;
            stored.note_buffer(call.snapshots());
            replicate_partial(call, added, compressed);
            return Err(errors::add(error));
        }
    }
    stored.note_buffer(call.snapshots());
    call.finish_write(c"tdigest.add");
    Ok(Reply::OK)
}

/// What an ADD that overflowed did, replicated instead of it: the `added` values before the
/// one refused, then the merge that the refused one may have run first.
fn replicate_partial(call: &Call, added: usize, compressed: bool) {
    let mut commands = Vec::new();
    if added > 0 {
        commands.push(Replicated {
            command: c"TDIGEST.ADD",
            args: (1..2 + added).map(Arg::Own).collect(),
        });
    }
    if compressed {
        commands.push(compression_of(1));
    }
    call.written_as(&[c"tdigest.add"], &commands);
}

/// ADD's values (the arguments after the key): each a number (NaN refused), then finite.
pub fn parse(args: &[&[u8]]) -> Result<ShortList<f64>, Failure> {
    each(args, |arg| {
        let value = parse_double(arg).ok_or(Failure::Message(errors::BAD_VALUE_TO_ADD))?;
        if value.is_finite() {
            Ok(value)
        } else {
            Err(Failure::Message(errors::VALUE_NOT_FINITE))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::{assert_refused, words};

    #[test]
    fn values_fail_at_their_first_bad_element() {
        assert_refused(parse(&words("1 inf x")), errors::VALUE_NOT_FINITE);
        assert_refused(parse(&words("1 1e309 inf")), errors::BAD_VALUE_TO_ADD);
        assert_eq!(parse(&words("1 -2.5 0")).map(|v| v.len()), Ok(3));
    }
}
