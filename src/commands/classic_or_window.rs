//! A value of a family whose values may forget (Count-Min, Top-K): RedisBloom's classic
//! structure, or the one that forgets. Each such wing names the pair for itself
//! (`cms::Sketch`, `topk::Topk`) and finds it at a key here, one way for both.

use std::any::Any;
use std::ffi::CStr;

use super::call::Call;
use super::errors::{CommandResult, Failure};
use super::forgetting;
use super::keys::{ReadKey, WriteKey};
use super::metrics::Measured;
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

/// A family's `ADVANCE key <ms>` (`forgetting::advance`) on a pair: the value that forgets
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
    forgetting::advance(call, advance, event)
}
