//! A value of a family whose values may forget (Count-Min, Top-K): RedisBloom's classic
//! structure, or the one that forgets. Each such wing names the pair for itself
//! (`cms::Sketch`, `topk::Topk`) and finds it at a key here, one way for both.

use std::any::Any;
use std::ffi::CStr;

use super::errors::Failure;
use super::keys::{ReadKey, WriteKey};
use super::metrics::Measured;
use super::tracked::Tracked;

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
                value
                    .downcast_mut()
                    .map(|classic| Self::Classic(Tracked::new(classic)))
            } else {
                value
                    .downcast_mut()
                    .map(|window| Self::Window(Tracked::new(window)))
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
