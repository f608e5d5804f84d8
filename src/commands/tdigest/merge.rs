//! `TDIGEST.MERGE destination numkeys source [source ...] [COMPRESSION compression] [OVERRIDE]`
//!
//! Builds a new digest — fresh counters; its compression the one given, else with OVERRIDE or
//! without a destination the largest of the sources', else the destination's — merges the old
//! destination into it first unless OVERRIDE, then each source in order (the same source any
//! number of times; the destination's name means its old digest), and stores it at the
//! destination. Each merge first compresses both digests in place, sources included, as
//! RedisBloom's `td_merge` does; MERGE is replicated, so replicas do the same. Reply `+OK`.
//!
//! Errors, in RedisBloom's order: `WRONGTYPE` (destination); `ERR T-Digest: error parsing
//! numkeys`, `… numkeys needs to be a positive integer`, arity (fewer sources than numkeys, or
//! COMPRESSION last); the compression's errors (as CREATE's); `… wrong keyword` (options naming
//! neither keyword; other words are ignored when one is there); per source `… key does not
//! exist` (the destination's name too, when it is missing) / `WRONGTYPE`; `… allocation of
//! destination digest failed`; `… overflow detected` (nothing stored; the sources merged so far
//! stay compressed, as in RedisBloom, and here that is replicated).
//!
//! Replicated verbatim; keyspace event `tdigest.merge`. Key specs name the destination
//! (written) and the sources (read), so ACL and cluster routing see every key — RedisBloom 2.8.2
//! declared only the destination.

use super::errors;
use super::rules::{compression, find, COMPRESSION_BLOCK};
use super::stored::StoredDigest;
use super::values::{existing_read, existing_read_mut, replicate_compression};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::lookup::Lookup;
use crate::commands::reply::Reply;
use crate::commands::sources::{Source, Sources};
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, Keys};
use crate::commands::tracked::Tracked;
use crate::core::tdigest::{merge_compression, TDigest};

pub static MERGE: CommandSpec = CommandSpec {
    name: "tdigest.merge",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::DestinationAndSources,
    acl_categories: "write",
    summary: "Merges multiple t-digest sketches into a single sketch",
    complexity: "O(N*K), where N is the number of centroids and K being the number of input \
                 sketches",
    since: "2.4.0",
    tips: None,
    args: &[
        ArgSpec::new("destination-key", ArgKind::Key),
        ArgSpec::new("numkeys", ArgKind::Integer),
        ArgSpec::new("source-key", ArgKind::Key).multiple(),
        COMPRESSION_BLOCK,
        ArgSpec::new("override", ArgKind::PureToken)
            .token("OVERRIDE")
            .optional(),
    ],
    run: merge,
};

fn merge(call: &Call) -> CommandResult {
    let mut destination = call.open_for_write()?;
    let mut old = match destination.lookup::<StoredDigest>() {
        Lookup::Found(old) => Some(old),
        Lookup::Missing => None,
        Lookup::WrongType => return Err(Failure::Message(errors::WRONG_TYPE)),
    };
    let parsed = parse(call.args)?;
    let out_of_memory = || Failure::Message(errors::MERGE_FAILED);
    let Sources {
        order,
        mut keys,
        args,
    } = call.open_sources(3, parsed.sources, out_of_memory(), |_, source, key| {
        match (source, key) {
            // The destination's name means its old digest, which must exist.
            (Source::Destination, _) if old.is_none() => Err(Failure::Message(errors::KEY_MISSING)),
            (_, Some(key)) => existing_read(key).map(drop),
            _ => Ok(()),
        }
    })?;
    let mut sources: Vec<Tracked<StoredDigest>> = Vec::new();
    sources
        .try_reserve_exact(args.len())
        .map_err(|_| out_of_memory())?;
    // Every source was checked as it was opened: now each key's digest, to compress.
    for key in &mut keys {
        // Merging compresses a source, which can change its size.
        sources.push(Tracked::new(existing_read_mut(key)?));
    }

    let compression = {
        let mut compressions = Vec::new();
        compressions
            .try_reserve_exact(order.len())
            .map_err(|_| out_of_memory())?;
        for &source in &order {
            if let Some(digest) = pick(source, &mut old, &mut sources) {
                compressions.push(digest.compression());
            }
        }
        let old_digest = old.as_mut().map(|old| &*old.digest_mut());
        merge_compression(
            parsed.compression,
            parsed.overriding,
            old_digest,
            compressions,
        )
    };
    let mut merged = TDigest::new(compression, &call.memory()).map_err(|_| out_of_memory())?;

    // RedisBloom merges the old destination first and ignores its failure.
    let mut compressed = Compressed::new(&args).ok_or_else(out_of_memory)?;
    if let Some(old) = old.as_mut().filter(|_| !parsed.overriding) {
        compressed.note(Source::Destination, old.digest_mut().compress_changes());
        let _ = merged.merge_from(old.digest_mut());
    }
    for &source in &order {
        let Some(digest) = pick(source, &mut old, &mut sources) else {
            continue;
        };
        compressed.note(source, digest.compress_changes());
        if merged.merge_from(digest).is_err() {
            for &key_index in &compressed.keys {
                replicate_compression(call, key_index);
            }
            return Err(Failure::Message(errors::OVERFLOW));
        }
    }

    let snapshots = call.snapshots();
    for source in &mut sources {
        // Compressed by the merge here and on every peer: nothing owed any more.
        source.paid();
        source.note_buffer(snapshots);
    }
    drop(sources);
    drop(keys);
    // The old value is freed when the new one takes its place.
    drop(old);
    destination.store(StoredDigest::new(merged, snapshots))?;
    call.finish_write(c"tdigest.merge");
    Ok(Reply::OK)
}

/// The digest of `source`.
fn pick<'a>(
    source: Source,
    old: &'a mut Option<Tracked<StoredDigest>>,
    sources: &'a mut [Tracked<StoredDigest>],
) -> Option<&'a mut TDigest> {
    match source {
        Source::Destination => old.as_mut().map(|old| old.digest_mut()),
        Source::Key(n) => sources.get_mut(n).map(|source| source.digest_mut()),
    }
}

/// The keys whose digests a merge's compressions changed, once each, in the order first
/// changed: what replicas must be told should a later merge fail.
struct Compressed<'s> {
    /// The arguments of the source keys ([`Sources::args`]).
    args: &'s [usize],
    /// Whether the destination (first), then each source key, is in `keys` already.
    seen: Vec<bool>,
    /// The arguments of the changed keys.
    keys: Vec<usize>,
}

impl<'s> Compressed<'s> {
    /// Room for every key of `args` and the destination; `None` without memory for it.
    fn new(args: &'s [usize]) -> Option<Self> {
        let mut seen = Vec::new();
        seen.try_reserve_exact(1 + args.len()).ok()?;
        seen.resize(1 + args.len(), false);
        let mut keys = Vec::new();
        keys.try_reserve_exact(1 + args.len()).ok()?;
        Some(Compressed { args, seen, keys })
    }

    /// Notes that merging `source` compressed it, `changed` saying whether that changed it.
    fn note(&mut self, source: Source, changed: bool) {
        let (slot, key_index) = match source {
            Source::Destination => (0, Some(1)),
            Source::Key(n) => (1 + n, self.args.get(n).copied()),
        };
        if let (true, Some(seen), Some(key_index)) = (changed, self.seen.get_mut(slot), key_index) {
            if !*seen {
                *seen = true;
                self.keys.push(key_index);
            }
        }
    }
}

/// `TDIGEST.MERGE destination numkeys source… [COMPRESSION c] [OVERRIDE]`, as parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeArgs {
    /// How many sources follow `numkeys` (arguments `3..3 + sources`).
    pub sources: usize,
    /// The compression given.
    pub compression: Option<i64>,
    /// Whether the destination's old digest is replaced rather than merged in.
    pub overriding: bool,
}

/// MERGE's arguments after the destination's type was checked: `numkeys`, then the options
/// after the sources — the first COMPRESSION anywhere (its value the next argument), the first
/// OVERRIDE anywhere, other words ignored unless neither keyword is there.
pub fn parse(args: &[&[u8]]) -> Result<MergeArgs, Failure> {
    let numkeys = args.get(2).copied().unwrap_or_default();
    let numkeys = parse_integer(numkeys).ok_or(Failure::Message(errors::BAD_NUMKEYS))?;
    if numkeys <= 0 {
        return Err(Failure::Message(errors::NUMKEYS_NOT_POSITIVE));
    }
    let sources = usize::try_from(numkeys).map_err(|_| Failure::WrongArity)?;
    let options = args
        .get(3..)
        .and_then(|rest| rest.get(sources..))
        .ok_or(Failure::WrongArity)?;
    let mut parsed = MergeArgs {
        sources,
        compression: None,
        overriding: find(options, "OVERRIDE").is_some(),
    };
    if let Some(at) = find(options, "COMPRESSION") {
        let value = options.get(at + 1).ok_or(Failure::WrongArity)?;
        parsed.compression = Some(compression(value)?);
    }
    if !options.is_empty() && parsed.compression.is_none() && !parsed.overriding {
        return Err(Failure::Message(errors::WRONG_KEYWORD));
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::{assert_refused, words};

    #[test]
    fn merge_options_as_redisbloom_reads_them() {
        let merge_of = |text: &str| parse(&words(text));
        let plain = MergeArgs {
            sources: 2,
            compression: None,
            overriding: false,
        };
        assert_eq!(merge_of("m d 2 a b"), Ok(plain));
        assert_eq!(
            merge_of("m d 2 a b OVERRIDE FOO"),
            Ok(MergeArgs {
                overriding: true,
                ..plain
            })
        );
        assert_eq!(
            merge_of("m d 1 a FOO compression 5"),
            Ok(MergeArgs {
                sources: 1,
                compression: Some(5),
                overriding: false,
            })
        );
        assert_refused(merge_of("m d 2 a b FOO"), errors::WRONG_KEYWORD);
        assert_refused(
            merge_of("m d 1 a COMPRESSION OVERRIDE"),
            errors::BAD_COMPRESSION,
        );
        assert_eq!(merge_of("m d 1 a COMPRESSION"), Err(Failure::WrongArity));
        assert_eq!(merge_of("m d 3 a b"), Err(Failure::WrongArity));
        assert_refused(merge_of("m d 0 a"), errors::NUMKEYS_NOT_POSITIVE);
        assert_refused(merge_of("m d x a"), errors::BAD_NUMKEYS);
    }
}
