//! `CMS.MERGE destination numKeys source [source ...] [WEIGHTS weight [weight ...]]`
//!
//! Replaces every counter of the destination, which must exist, by the weighted sum of the
//! sources' counters, and its count by the weighted sum of theirs (weights 1 without
//! WEIGHTS). The destination may be one of the sources, and a source may be listed twice.
//! Reply `+OK`. Errors, in RedisBloom's order (`src/rm_cms.c`), none with ERR, all before
//! anything changes: arity; `CMS: key does not exist` / `WRONGTYPE` (the destination);
//! `CMS: invalid numkeys`; `CMS: Number of keys must be positive`; `CMS: wrong number of
//! keys` (no WEIGHTS) or `CMS: wrong number of keys/weights` (WEIGHTS — the first argument
//! after numKeys spelled so, in any case — not right after the sources, or not one weight
//! per source); then source by source: `CMS: invalid weight value` (not an integer),
//! `CMS: key does not exist` / `WRONGTYPE`, `CMS: width/depth is not equal`, `CMS: cell_size
//! is not equal` (RedisBloom 8.12); last `CMS: MERGE overflow` (a weighted sum outside [0, the
//! destination cell's maximum] for a counter, or outside [0, 2^63) for the count, or any
//! partial sum or product past a signed 64-bit integer).
//! Replicated verbatim; keyspace event `cms.merge` on the destination. Ours: sketches that
//! forget by time merge only with sketches of the same dimensions, window and slots, all
//! aligned to the merge's time (`window.rs`); any other mix is refused, nothing changed,
//! with `CMS: sketches of different windows cannot be merged` or, for count windows, `CMS:
//! sketches that forget by count cannot be merged`.
//!
//! Each key is opened once (`commands/sources.rs`): the destination listed as a source is read
//! through the destination itself (`MergeSource::Destination`), and a source listed twice is
//! opened once. The sources are declared as keys (a key spec for
//! those numKeys counts), so a cluster refuses sources in other slots.

use std::any::Any;

use super::errors;
use super::values::{existing_read, existing_write, Reading, Sketch};
use crate::commands::args::parse_integer;
use crate::commands::call::Call;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::forgetting;
use crate::commands::metrics::Measured;
use crate::commands::reply::Reply;
use crate::commands::sources::Source;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, Keys, KEY_ARG};
use crate::commands::tracked::Tracked;
use crate::core::cms::window::Window;
use crate::core::cms::{CountMinSketch, MergeError, MergeSource, Weighted, WindowSketch};

pub static MERGE: CommandSpec = CommandSpec {
    name: "cms.merge",
    flags: "write deny-oom",
    arity: -4,
    keys: Keys::DestinationAndSources,
    acl_categories: "write",
    summary: "Merges several sketches into one sketch",
    complexity: "O(n) where n is the number of sketches",
    since: "2.0.0",
    tips: None,
    args: &[
        KEY_ARG,
        ArgSpec::new("numKeys", ArgKind::Integer),
        ArgSpec::new("source", ArgKind::Key).multiple(),
        ArgSpec::new(
            "weights",
            ArgKind::Block(&[
                ArgSpec::new("weights", ArgKind::PureToken).token("WEIGHTS"),
                ArgSpec::new("weight", ArgKind::Double).multiple(),
            ]),
        )
        .optional(),
    ],
    run: merge,
};

/// The index of the first source.
const FIRST_SOURCE: usize = 3;

/// Where the sources and the weights are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeArgs {
    /// How many sources there are (numKeys), from argument 3 on.
    pub sources: usize,
    /// Whether WEIGHTS follows them, with one weight per source.
    pub weighted: bool,
}

fn merge(call: &Call) -> CommandResult {
    let mut key = call.open_for_write()?;
    let destination = existing_write(&mut key)?;
    let shape = parse(call.args)?;
    match destination {
        Sketch::Classic(destination) => merge_into(call, destination, shape),
        Sketch::Window(destination) => merge_into(call, destination, shape),
    }
}

/// The merge into a destination of kind `T`: source by source, in RedisBloom's order, its
/// weight, its key, its dimensions; then the cells.
fn merge_into<T: Merged>(
    call: &Call,
    mut destination: Tracked<T>,
    shape: MergeArgs,
) -> CommandResult {
    // Each source checked as it is reached, so a refused one opens no key after it; its
    // weight is kept for the merge.
    let mut weights = Vec::new();
    reserve(&mut weights, shape.sources)?;
    let sources =
        call.open_sources(FIRST_SOURCE, shape.sources, out_of_memory(), |i, _, key| {
            weights.push(weight(call.args, shape, i)?);
            if let Some(key) = key {
                destination
                    .source(existing_read(key)?)
                    .map_err(errors::merge)?;
            }
            Ok(())
        })?;
    let mut unread = sources.keys.iter();
    let mut found: Vec<&T> = Vec::new();
    reserve(&mut found, sources.keys.len())?;
    let mut weighted = Vec::new();
    reserve(&mut weighted, sources.order.len())?;
    for (&source, &weight) in sources.order.iter().zip(&weights) {
        let sketch = match source {
            Source::Destination => None,
            Source::Key(n) if n == found.len() => {
                let sketch = existing_read(unread.next().ok_or_else(internal)?)?;
                let sketch = destination.source(sketch).map_err(errors::merge)?;
                found.push(sketch);
                Some(sketch)
            }
            Source::Key(n) => Some(*found.get(n).ok_or_else(internal)?),
        };
        let source = sketch.map_or(MergeSource::Destination, MergeSource::Other);
        weighted.push(Weighted { source, weight });
    }
    T::merge_from(call, &mut destination, &weighted)?;
    Ok(Reply::OK)
}

/// What CMS.MERGE asks of a kind of sketch.
trait Merged: Measured + Any + Sized {
    /// `found` as a source of this kind that can merge into this sketch, or why not.
    fn source<'k>(&self, found: Reading<'k>) -> Result<&'k Self, MergeError>;
    /// Merges the checked sources, then replicates the merge and raises its event.
    fn merge_from(
        call: &Call,
        destination: &mut Self,
        sources: &[Weighted<Self>],
    ) -> Result<(), Failure>;
}

impl Merged for CountMinSketch {
    fn source<'k>(&self, found: Reading<'k>) -> Result<&'k Self, MergeError> {
        let Sketch::Classic(sketch) = found else {
            return Err(MergeError::WindowsDiffer);
        };
        if (sketch.width(), sketch.depth()) != (self.width(), self.depth()) {
            return Err(MergeError::DimensionsDiffer);
        }
        if sketch.cell_size() != self.cell_size() {
            return Err(MergeError::CellSizesDiffer);
        }
        Ok(sketch)
    }

    fn merge_from(
        call: &Call,
        destination: &mut Self,
        sources: &[Weighted<Self>],
    ) -> Result<(), Failure> {
        destination.merge(sources).map_err(errors::merge)?;
        call.finish_write(c"cms.merge");
        Ok(())
    }
}

/// Ours: sketches that forget by time merge with sketches of the same shape and window, all
/// aligned to the merge's time (`core::cms::window`), which replicas receive with it.
impl Merged for WindowSketch {
    fn source<'k>(&self, found: Reading<'k>) -> Result<&'k Self, MergeError> {
        let Sketch::Window(sketch) = found else {
            return Err(MergeError::WindowsDiffer);
        };
        let (ours, theirs) = (self.shape(), sketch.shape());
        if (ours.width, ours.depth) != (theirs.width, theirs.depth) {
            return Err(MergeError::DimensionsDiffer);
        }
        if !matches!(ours.window, Window::Time(_)) {
            return Err(MergeError::CountWindow);
        }
        if ours != theirs {
            return Err(MergeError::WindowsDiffer);
        }
        Ok(sketch)
    }

    fn merge_from(
        call: &Call,
        destination: &mut Self,
        sources: &[Weighted<Self>],
    ) -> Result<(), Failure> {
        let time = forgetting::write_time(call, &*destination);
        // Replayed: at the newest tick held, which the CMS.ADVANCE before it set.
        destination
            .merge(sources, time.now.unwrap_or(0))
            .map_err(errors::merge)?;
        forgetting::written::<WindowSketch>(call, c"CMS.MERGE", time.opens, c"cms.merge");
        Ok(())
    }
}

/// What cannot happen: the sources' places are counted above.
fn internal() -> Failure {
    Failure::Message(crate::commands::errors::INTERNAL_ERROR)
}

/// Room for `more` elements, or the memory error (a client can send millions of sources).
fn reserve<T>(list: &mut Vec<T>, more: usize) -> Result<(), Failure> {
    list.try_reserve(more).map_err(|_| out_of_memory())
}

fn out_of_memory() -> Failure {
    errors::fail(crate::core::Error::OutOfMemory)
}

/// Where CMS.MERGE's sources and weights are (`args`, the command name first, arity checked):
/// a pure function of them, so it is fuzzed without a server.
pub fn parse(args: &[&[u8]]) -> Result<MergeArgs, Failure> {
    let count = parse_integer(args.get(2).copied().unwrap_or_default())
        .ok_or(Failure::Message(errors::INVALID_NUMKEYS))?;
    if count <= 0 {
        return Err(Failure::Message(errors::NUMKEYS_NOT_POSITIVE));
    }
    let rest = args.get(FIRST_SOURCE..).unwrap_or(&[]);
    let len = rest.len() as u64;
    let count = count.unsigned_abs();
    match rest.iter().position(|a| a.eq_ignore_ascii_case(b"WEIGHTS")) {
        None if count == len => Ok(MergeArgs {
            sources: rest.len(),
            weighted: false,
        }),
        None => Err(Failure::Message(errors::WRONG_NUMBER_OF_KEYS)),
        Some(at) if at as u64 == count && Some(len) == count.checked_mul(2).map(|n| n + 1) => {
            Ok(MergeArgs {
                sources: at,
                weighted: true,
            })
        }
        Some(_) => Err(Failure::Message(errors::WRONG_NUMBER_OF_KEYS_WEIGHTS)),
    }
}

/// The weight of source `i`: its WEIGHTS value, an integer as Redis parses one, or 1.
pub fn weight(args: &[&[u8]], shape: MergeArgs, i: usize) -> Result<i64, Failure> {
    if !shape.weighted {
        return Ok(1);
    }
    let text = args.get(FIRST_SOURCE + shape.sources + 1 + i);
    parse_integer(text.copied().unwrap_or_default()).ok_or(Failure::Message(errors::INVALID_WEIGHT))
}
