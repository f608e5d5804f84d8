//! `BF.MERGE destination numkeys source [source ...] [OVERFILL]` (ours: RedisBloom and
//! valkey-bloom have no union of filters)
//!
//! Stores at the destination the union of the sources and, when it exists, of the destination
//! itself (`core::bf::chain::merge`): a filter that finds every item any of them found. It is
//! created with the sources' parameters when missing. The filters must be scalable filters of
//! one shape — layout, hashing, scaling, expansion, capacity and error rate — or valkey-bloom's
//! filters of one shape (its seed included, `ValkeyBloom::union`, which never passes a
//! capacity), and a filter with more sub-filters brings them along. A sub-filter made from two or more counts the
//! items its bits hold (so `BF.CARD` counts an item added to two sources once); a union that
//! would put one past its capacity, and so past its error rate, is refused unless `OVERFILL`
//! asks for it (`BF.INFO` then says so). Reply `+OK`.
//!
//! Errors, all before anything changes: arity; `ERR numkeys must be a positive integer`;
//! `Unknown argument received` (a word after the sources other than `OVERFILL`); `WRONGTYPE`
//! or a filter that forgets (the destination); then source by source, as reached: `ERR not
//! found`, `WRONGTYPE`, a filter that forgets, `ERR filters differ in kind …` (RedisBloom's and
//! valkey-bloom's); then `ERR filters differ in …` naming the first difference; then the capacity;
//! then the memory (`ERR operation exceeds bloom object memory limit`, `ERR Insufficient
//! memory`).
//!
//! The union is built beside the filters, then takes the destination's place: a merge needs
//! memory for the union while the old destination still stands. Each key is opened once
//! (`commands/sources.rs`), the sources are declared as keys, so a cluster refuses sources in
//! other slots. Replicated verbatim (the union of the same bytes is the same bytes); keyspace
//! event `bf.merge`.

use std::convert::Infallible;

use super::errors;
use super::valkey;
use super::values::{lookup_read, lookup_write, Bloom};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::keys::ReadKey;
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::sources::{counted_sources, Source, FIRST_SOURCE};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, Keys, KEY_ARG};
use crate::core::bf::chain::Chain;
use crate::core::bf::valkey::ValkeyBloom;
use crate::core::Error;

pub static MERGE: CommandSpec = CommandSpec {
    name: "bf.merge",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::DestinationAndSources,
    acl_categories: "write",
    summary: "Stores the union of Bloom filters of one shape at the destination",
    complexity: "O(n), where n is the number of bytes of the filters",
    since: "1.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("numkeys", ArgKind::Integer),
        ArgSpec::new("source", ArgKind::Key).multiple(),
        ArgSpec::new("overfill", ArgKind::PureToken)
            .token("OVERFILL")
            .optional(),
    ],
    run: merge,
};

/// Where the sources are, and whether the union may pass its capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeArgs {
    /// How many sources there are (numkeys), from argument 3 on.
    pub sources: usize,
    /// `OVERFILL`: a sub-filter may pass its capacity.
    pub overfill: bool,
}

/// The kinds of filter that merge, each only with its own kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// RedisBloom's scalable filters (either layout).
    Scalable,
    /// valkey-bloom's.
    Valkey,
}

/// A filter at a source, as a merge reads it.
type Mergeable<'k> = Bloom<&'k Chain, Infallible, &'k ValkeyBloom>;

fn kind<C, W, V>(filter: &Bloom<C, W, V>) -> Kind {
    match filter {
        Bloom::Valkey(_) => Kind::Valkey,
        _ => Kind::Scalable,
    }
}

fn merge(call: &Call) -> CommandResult {
    let parsed = parse(call.args)?;
    let mut key = call.open_for_write()?;
    let destination = match lookup_write(&mut key) {
        Lookup::Missing => None,
        Lookup::WrongType => return Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Found(Bloom::Window(_)) => return Err(Failure::Message(errors::FORGETS)),
        Lookup::Found(found) => Some(found),
    };
    // The destination as a source reads it (a filter that forgets was refused above).
    let old: Option<Mergeable> = match &destination {
        Some(Bloom::Chain(chain)) => Some(Bloom::Chain(&**chain)),
        Some(Bloom::Valkey(object)) => Some(Bloom::Valkey(&**object)),
        _ => None,
    };
    // The union's kind: the destination's, else the first source's.
    let mut union_kind = old.as_ref().map(kind);
    let exists = old.is_some();
    let sources = call.open_sources(
        FIRST_SOURCE,
        parsed.sources,
        out_of_memory(),
        |_, source, key| match (source, key) {
            (_, Some(key)) => {
                let found = kind(&mergeable_at(key)?);
                if *union_kind.get_or_insert(found) != found {
                    return Err(Failure::Message(errors::KINDS_DIFFER));
                }
                Ok(())
            }
            (Source::Destination, None) if !exists => Err(Failure::Message(errors::NOT_FOUND)),
            _ => Ok(()),
        },
    )?;
    let union: Bloom<Chain, Infallible, ValkeyBloom> = if union_kind == Some(Kind::Valkey) {
        let objects = filters_of(old, &sources.keys, |f| match f {
            Bloom::Valkey(object) => Some(object),
            _ => None,
        })?;
        let union = ValkeyBloom::union(&objects, valkey::limit(call), &call.memory());
        Bloom::Valkey(union.map_err(errors::merge)?)
    } else {
        let chains = filters_of(old, &sources.keys, |f| match f {
            Bloom::Chain(chain) => Some(chain),
            _ => None,
        })?;
        let union = Chain::union(&chains, parsed.overfill, &call.memory());
        Bloom::Chain(union.map_err(errors::merge)?)
    };
    drop((sources, destination));
    match union {
        Bloom::Chain(union) => key.put(union)?,
        Bloom::Window(never) => match never {},
        Bloom::Valkey(union) => key.put(union)?,
    }
    call.finish_write(c"bf.merge");
    Ok(Reply::OK)
}

/// The filters a merge of one kind reads, as `pick` views them: the destination's `old` one,
/// then each source key's once (a union of the same filter twice is that filter).
fn filters_of<'k, T>(
    old: Option<Mergeable<'k>>,
    keys: &'k [ReadKey],
    pick: fn(Mergeable<'k>) -> Option<&'k T>,
) -> Result<Vec<&'k T>, Failure> {
    let mut filters = Vec::new();
    filters
        .try_reserve_exact(1 + keys.len())
        .map_err(|_| out_of_memory())?;
    filters.extend(old.and_then(pick));
    for key in keys {
        filters.extend(pick(mergeable_at(key)?));
    }
    Ok(filters)
}

/// The filter at a source key, or why it cannot be merged.
fn mergeable_at<'k>(key: &'k ReadKey) -> Result<Mergeable<'k>, Failure> {
    match lookup_read(key).existing()? {
        Bloom::Chain(chain) => Ok(Bloom::Chain(chain)),
        Bloom::Window(_) => Err(Failure::Message(errors::FORGETS)),
        Bloom::Valkey(object) => Ok(Bloom::Valkey(object)),
    }
}

fn out_of_memory() -> Failure {
    errors::fail(Error::OutOfMemory)
}

/// BF.MERGE's arguments (`args`, the command name first, arity checked): numkeys, the
/// sources, then `OVERFILL` (in any case) or nothing.
pub fn parse(args: &[&[u8]]) -> Result<MergeArgs, Failure> {
    let (sources, options) = counted_sources(args)?;
    let overfill = match options {
        [] => false,
        [word] if word.eq_ignore_ascii_case(b"OVERFILL") => true,
        _ => return Err(Failure::Message(errors::UNKNOWN_ARGUMENT)),
    };
    Ok(MergeArgs { sources, overfill })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::{assert_refused, words};

    #[test]
    fn numkeys_sources_and_overfill() {
        let merge_of = |text: &str| parse(&words(text));
        assert_eq!(
            merge_of("BF.MERGE d 2 a b"),
            Ok(MergeArgs {
                sources: 2,
                overfill: false
            })
        );
        assert_eq!(
            merge_of("BF.MERGE d 1 a overfill"),
            Ok(MergeArgs {
                sources: 1,
                overfill: true
            })
        );
        // A source may be named OVERFILL: numkeys says where the sources end.
        assert_eq!(
            merge_of("BF.MERGE d 1 OVERFILL"),
            Ok(MergeArgs {
                sources: 1,
                overfill: false
            })
        );
        assert_eq!(merge_of("BF.MERGE d 3 a b"), Err(Failure::WrongArity));
        for bad in ["BF.MERGE d 0 a", "BF.MERGE d -1 a", "BF.MERGE d x a"] {
            assert_refused(merge_of(bad), errors::BAD_NUMKEYS);
        }
        for extra in ["BF.MERGE d 1 a b", "BF.MERGE d 1 a OVERFILL OVERFILL"] {
            assert_refused(merge_of(extra), errors::UNKNOWN_ARGUMENT);
        }
    }
}
