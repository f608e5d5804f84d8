//! A value of a family whose values may forget (Count-Min, Top-K): RedisBloom's classic
//! structure, or the one that forgets. Each such wing names the pair for itself
//! (`cms::Sketch`, `topk::Topk`) and finds it at a key here, one way for both; and the family's
//! `ADVANCE`, which moves the clock of the one that forgets on replicas (`forgetting.rs`).

use std::any::Any;
use std::ffi::CStr;

use super::args::parse_integer;
use super::call::Call;
use super::errors::{self, CommandResult, Failure};
use super::keys::{ReadKey, WriteKey};
use super::metrics::Measured;
use super::reply::Reply;
use super::spec::{ArgKind, ArgSpec, CommandSpec, KeyAccess, Keys, KEY_ARG};
use super::tracked::Tracked;
use crate::core::window::Forgets;

/// The classic value `C`, or the value `W` that forgets.
#[derive(Clone, Copy)]
pub enum ClassicOrWindow<C, W> {
    Classic(C),
    Window(W),
}

impl<'k, C: Measured + Any, W: Measured + Any> ClassicOrWindow<Tracked<'k, C>, Tracked<'k, W>> {
    /// The value at a key opened for writing, or the family's `missing` text for an empty key
    /// and `WRONGTYPE` for a value of another type.
    // Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
    #[inline(always)]
    pub fn to_write(key: &'k mut WriteKey, missing: &'static CStr) -> Result<Self, Failure> {
        key.lookup_as(|value| {
            if value.is::<C>() {
                value.downcast_mut().map(Tracked::new).map(Self::Classic)
            } else {
                value.downcast_mut().map(Tracked::new).map(Self::Window)
            }
        })
        .or_missing(missing)
    }
}

impl<'k, C: Any, W: Any> ClassicOrWindow<&'k C, &'k W> {
    /// The value at a key opened for reading, as [`ClassicOrWindow::to_write`] finds it.
    pub fn to_read(key: &'k ReadKey, missing: &'static CStr) -> Result<Self, Failure> {
        key.lookup_as(|value| {
            if let Some(classic) = value.downcast_ref() {
                Some(Self::Classic(classic))
            } else {
                value.downcast_ref().map(Self::Window)
            }
        })
        .or_missing(missing)
    }
}

/// A family's `ADVANCE key <ms>` (`advance_command`) on a pair: the value that forgets
/// moves its clock; a classic value is refused with `not_a_window`, an empty key with
/// `missing`.
pub fn advance<C: Measured + Any, W: Measured + Any + Forgets>(
    call: &Call,
    [missing, not_a_window]: [&'static CStr; 2],
    event: &'static CStr,
) -> CommandResult {
    let advance =
        |key: &mut WriteKey, now| match ClassicOrWindow::<Tracked<C>, Tracked<W>>::to_write(
            key, missing,
        )? {
            ClassicOrWindow::Window(mut value) => {
                value.advance_to(now);
                Ok(())
            }
            ClassicOrWindow::Classic(_) => Err(Failure::Message(not_a_window)),
        };
    advance_command(call, advance, event)
}

/// The spec of a family's `ADVANCE key <ms>` (`name`), which only a primary's replication
/// stream and the AOF send.
pub const fn advance_spec(
    name: &'static str,
    summary: &'static str,
    complexity: &'static str,
    run: fn(&Call) -> CommandResult,
) -> CommandSpec {
    const ARGS: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("milliseconds", ArgKind::Integer)];
    CommandSpec {
        name,
        flags: "write fast",
        arity: 3,
        keys: Keys::One(KeyAccess::Write),
        acl_categories: "write fast",
        summary,
        complexity,
        since: "1.1.0",
        tips: None,
        args: ARGS,
        run,
    }
}

/// A family's `ADVANCE key <ms>`, what a primary's write that opened a period sends ahead of
/// itself: refused from a client; else `advance` moves the clock of the key's value to `ms`.
fn advance_command(
    call: &Call,
    advance: impl FnOnce(&mut WriteKey, u64) -> Result<(), Failure>,
    event: &'static CStr,
) -> CommandResult {
    if !call.replayed() {
        return Err(Failure::Message(errors::REPLICATION_ONLY));
    }
    let now = parse_integer(call.arg(2))
        .and_then(|ms| u64::try_from(ms).ok())
        .ok_or(Failure::Message(errors::BAD_TIME))?;
    let mut key = call.open_for_write()?;
    advance(&mut key, now)?;
    call.finish_write(event);
    Ok(Reply::OK)
}
