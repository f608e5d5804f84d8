//! The sources of a merge (`CMS.MERGE`, `TDIGEST.MERGE`), opened once each ([`Sources`]).
//!
//! A value is handed over as a mutable reference while its key is open, so no key may be open
//! twice: the destination's own name among the sources means the destination's value, and a
//! name listed again means the key opened for it the first time. Two names are one key when
//! their bytes are equal. A client can list hundreds of thousands of names, so the names are
//! told apart with a hash map, every list is grown with `try_reserve` (a memory failure is an
//! error reply, never an abort), and each source is checked as soon as it is reached, so a
//! merge refused at a source opens no key after it: linear in the names up to the first one
//! refused.

use std::collections::HashMap;

use super::args::parse_integer;
use super::call::Call;
use super::errors::{self, Failure};
use super::keys::ReadKey;

/// Where one listed source is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The destination's name: its value as it was before the merge.
    Destination,
    /// The `n`th distinct other key, in the order first listed ([`Sources::keys`]).
    Key(usize),
}

/// A merge's sources: each listed one in order, and the distinct keys behind them.
pub struct Sources<'a> {
    /// Every listed source, in the order listed.
    pub order: Vec<Source>,
    /// The distinct keys other than the destination, opened for reading, in the order first
    /// listed.
    pub keys: Vec<ReadKey<'a>>,
    /// The argument at which each of [`keys`](Sources::keys) is first listed.
    pub args: Vec<usize>,
}

/// `command destination numkeys source…` followed by options: how many sources there are and
/// the arguments after them. `ERR numkeys must be a positive integer`; `WrongArity` when fewer
/// sources follow (the merges of our own; RedisBloom's word theirs their own ways).
pub fn counted_sources<'x>(args: &'x [&'x [u8]]) -> Result<(usize, &'x [&'x [u8]]), Failure> {
    let count = parse_integer(args.get(2).copied().unwrap_or_default());
    let count = count
        .filter(|&n| n > 0)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or(Failure::Message(errors::BAD_NUMKEYS))?;
    let rest = args.get(FIRST_SOURCE..).unwrap_or_default();
    Ok((count, rest.get(count..).ok_or(Failure::WrongArity)?))
}

/// Where a merge's sources begin: `command destination numkeys source…`.
pub const FIRST_SOURCE: usize = 3;

impl<'a> Call<'a> {
    /// Opens the `count` sources listed from argument `first` on (the destination is argument
    /// 1), one at a time and in order: `check` sees each listed source as it is reached — its
    /// place in the list, where it is read, and the key opened for it if this is its first
    /// listing — and its error stops the command there, before any later source is opened, as
    /// RedisBloom stops at the first source it refuses. `out_of_memory` is the family's reply
    /// when the lists cannot grow.
    pub fn open_sources(
        &self,
        first: usize,
        count: usize,
        out_of_memory: Failure,
        mut check: impl FnMut(usize, Source, Option<&ReadKey<'a>>) -> Result<(), Failure>,
    ) -> Result<Sources<'a>, Failure> {
        let names = self.args.get(first..).unwrap_or_default();
        let names = names.get(..count).ok_or(Failure::WrongArity)?;
        let destination = self.arg(1);
        let mut sources = Sources {
            order: Vec::new(),
            keys: Vec::new(),
            args: Vec::new(),
        };
        let mut places: HashMap<&[u8], usize> = HashMap::new();
        sources
            .order
            .try_reserve_exact(count)
            .map_err(|_| out_of_memory)?;
        for (offset, &name) in names.iter().enumerate() {
            let source = if name == destination {
                Source::Destination
            } else if let Some(&n) = places.get(name) {
                Source::Key(n)
            } else {
                let n = sources.keys.len();
                places.try_reserve(1).map_err(|_| out_of_memory)?;
                sources.keys.try_reserve(1).map_err(|_| out_of_memory)?;
                sources.args.try_reserve(1).map_err(|_| out_of_memory)?;
                let key = self.open_read_at(first + offset)?;
                check(offset, Source::Key(n), Some(&key))?;
                sources.keys.push(key);
                sources.args.push(first + offset);
                places.insert(name, n);
                sources.order.push(Source::Key(n));
                continue;
            };
            check(offset, source, None)?;
            sources.order.push(source);
        }
        Ok(sources)
    }
}
