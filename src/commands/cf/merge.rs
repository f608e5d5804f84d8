//! `CF.MERGE destination numkeys source [source ...]` (ours: RedisBloom has no union of Cuckoo
//! filters)
//!
//! Stores at the destination the multiset union of the destination, when it exists, and of
//! every listed source (`core::cf::filter::merge`): each fingerprint of each is inserted into
//! the union's sub-filter of the same place, as `CF.ADD` places one there, so `CF.COUNT` of an
//! item in the union is the sum of its counts, and the items and deletes add up. A source
//! listed twice counts twice; the destination's name as a source means its old filter again.
//! The filters must have one shape: bucket count, bucket size and expansion; a filter with
//! more sub-filters makes the union grow to them. The union keeps the destination's maximum
//! iterations (the first source's when the destination is created). Reply `+OK`.
//!
//! Errors, all before anything changes: arity (also for words after the sources); `ERR numkeys
//! must be a positive integer`; `WRONGTYPE` (the destination); then source by source, as
//! reached, `ERR not found` / `WRONGTYPE`; then `ERR filters differ in …` naming the first
//! difference; then the memory (`ERR operation exceeds cuckoo object memory limit`,
//! `ERR Insufficient memory`); last `ERR the union does not fit: a sub-filter has no room for
//! a fingerprint` (the union is refused whole).
//!
//! The union is built beside the filters, then takes the destination's place. Each key is
//! opened once (`commands/sources.rs`); the sources are declared as keys, so a cluster refuses
//! sources in other slots. Replicated verbatim (the same fingerprints poured in the same order
//! land in the same slots); keyspace event `cf.merge`.

use super::errors;
use super::values::{lookup_read, lookup_write};
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::sources::{counted_sources, Source, FIRST_SOURCE};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, Keys, KEY_ARG};
use crate::core::cf::CuckooFilter;
use crate::core::Error;

pub static MERGE: CommandSpec = CommandSpec {
    name: "cf.merge",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::DestinationAndSources,
    acl_categories: "write",
    summary: "Stores the multiset union of Cuckoo filters of one shape at the destination",
    complexity: "O(n), where n is the number of fingerprints of the sources",
    since: "1.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("numkeys", ArgKind::Integer),
        ArgSpec::new("source", ArgKind::Key).multiple(),
    ],
    run: merge,
};

fn merge(call: &Call) -> CommandResult {
    let sources = parse(call.args)?;
    let mut key = call.open_for_write()?;
    let destination = match lookup_write(&mut key) {
        Lookup::Missing => None,
        Lookup::WrongType => return Err(Failure::Message(errors::WRONG_TYPE)),
        Lookup::Found(filter) => Some(filter),
    };
    let exists = destination.is_some();
    let opened = call.open_sources(
        FIRST_SOURCE,
        sources,
        out_of_memory(),
        |_, source, key| match (source, key) {
            (_, Some(key)) => lookup_read(key).existing().map(drop),
            (Source::Destination, None) if !exists => {
                Err(Failure::Message(crate::commands::errors::NOT_FOUND))
            }
            _ => Ok(()),
        },
    )?;
    let mut found = Vec::new();
    found
        .try_reserve_exact(opened.keys.len())
        .map_err(|_| out_of_memory())?;
    for key in &opened.keys {
        found.push(lookup_read(key).existing()?);
    }
    let mut filters: Vec<&CuckooFilter> = Vec::new();
    filters
        .try_reserve_exact(1 + opened.order.len())
        .map_err(|_| out_of_memory())?;
    let old = destination.as_deref();
    filters.extend(old);
    for source in &opened.order {
        let filter = match *source {
            Source::Destination => old,
            Source::Key(n) => found.get(n).copied(),
        };
        filters.push(filter.ok_or(Failure::Message(crate::commands::errors::INTERNAL_ERROR))?);
    }
    let union = CuckooFilter::union(&filters, &call.memory()).map_err(errors::merge)?;
    drop(filters);
    drop(found);
    drop((opened, destination));
    key.put(union)?;
    call.finish_write(c"cf.merge");
    Ok(Reply::OK)
}

fn out_of_memory() -> Failure {
    errors::fail(Error::OutOfMemory)
}

/// CF.MERGE's arguments (`args`, the command name first): how many sources follow numkeys,
/// and nothing after them.
pub fn parse(args: &[&[u8]]) -> Result<usize, Failure> {
    match counted_sources(args)? {
        (sources, []) => Ok(sources),
        _ => Err(Failure::WrongArity),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::{assert_refused, words};

    #[test]
    fn numkeys_and_exactly_that_many_sources() {
        let merge_of = |text: &str| parse(&words(text));
        assert_eq!(merge_of("CF.MERGE d 2 a b"), Ok(2));
        assert_eq!(merge_of("CF.MERGE d 1 d"), Ok(1));
        for arity in ["CF.MERGE d 3 a b", "CF.MERGE d 1 a b"] {
            assert_eq!(merge_of(arity), Err(Failure::WrongArity), "{arity}");
        }
        for bad in ["CF.MERGE d 0 a", "CF.MERGE d -2 a", "CF.MERGE d x a"] {
            assert_refused(merge_of(bad), errors::BAD_NUMKEYS);
        }
    }
}
