//! The Bloom-family values at keys — scalable filters of either layout, filters that forget and
//! valkey-bloom's filters: what each adds to the family's `INFO` totals, and the lookups that
//! find one whichever kind a key holds.

use std::any::Any;

use super::errors;
use crate::commands::call::Call;
use crate::commands::errors::Failure;
use crate::commands::keys::{ReadKey, WriteKey};
use crate::commands::lookup::Lookup;
use crate::commands::metrics::{Footprint, Measured, Totals};
use crate::commands::tracked::Tracked;
use crate::core::bf::chain::{Chain, Params};
use crate::core::bf::valkey::ValkeyBloom;
use crate::core::bf::window::WindowFilter;

/// The totals of the Bloom filters of every layout.
pub(super) static TOTALS: Totals = Totals::new();

/// The counts of a Bloom filter's footprint, by position.
pub(super) const SUB_FILTERS: usize = 0;
pub(super) const ITEMS: usize = 1;
pub(super) const CAPACITY_COUNT: usize = 2;

impl Measured for Chain {
    fn footprint(&self) -> Footprint {
        Footprint::new(
            self.memory_usage(),
            [
                (SUB_FILTERS, self.links().len() as u64),
                (ITEMS, self.items()),
                (CAPACITY_COUNT, self.capacity()),
            ],
        )
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// A window filter counts as one filter; its items are those added within its window (as
/// `BF.CARD` counts them) at the newest time it holds, so its totals change only with writes.
impl Measured for WindowFilter {
    fn footprint(&self) -> Footprint {
        Footprint::new(
            self.memory_usage(),
            [
                (SUB_FILTERS, 1),
                (ITEMS, self.card(self.newest_ms())),
                (CAPACITY_COUNT, self.shape().capacity),
            ],
        )
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// A valkey-bloom filter counts its sub-filters, items and capacity as BF.INFO shows them.
impl Measured for ValkeyBloom {
    fn footprint(&self) -> Footprint {
        Footprint::new(
            self.memory_usage(),
            [
                (SUB_FILTERS, self.filters().len() as u64),
                (ITEMS, self.items().max(0) as u64),
                (CAPACITY_COUNT, self.capacity().max(0) as u64),
            ],
        )
    }

    fn totals() -> &'static Totals {
        &TOTALS
    }
}

/// What a Bloom-family key holds: a scalable filter, a filter that forgets, or a valkey-bloom
/// filter.
pub(super) enum Bloom<C, W, V> {
    Chain(C),
    Window(W),
    Valkey(V),
}

/// A Bloom-family value opened for writing.
pub(super) type Writing<'k> =
    Bloom<Tracked<'k, Chain>, Tracked<'k, WindowFilter>, Tracked<'k, ValkeyBloom>>;

/// A Bloom-family value opened for reading.
pub(super) type Reading<'k> = Bloom<&'k Chain, &'k WindowFilter, &'k ValkeyBloom>;

/// What a key opened for writing holds.
// Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
#[inline(always)]
pub(super) fn lookup_write<'k>(key: &'k mut WriteKey) -> Lookup<Writing<'k>> {
    key.lookup_as(writing)
}

/// What a key opened for reading holds.
pub(super) fn lookup_read<'k>(key: &'k ReadKey) -> Lookup<Reading<'k>> {
    key.lookup_as(|value| {
        if let Some(chain) = value.downcast_ref() {
            Some(Bloom::Chain(chain))
        } else if let Some(window) = value.downcast_ref() {
            Some(Bloom::Window(window))
        } else {
            value.downcast_ref().map(Bloom::Valkey)
        }
    })
}

/// Whether a module value is a Bloom-family value.
pub(super) fn is_bloom(value: &dyn Any) -> bool {
    value.is::<Chain>() || value.is::<WindowFilter>() || value.is::<ValkeyBloom>()
}

/// A module value as a Bloom-family value to change, if it is one.
// Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
#[inline(always)]
fn writing(value: &mut dyn Any) -> Option<Writing<'_>> {
    if value.is::<Chain>() {
        value.downcast_mut().map(Tracked::new).map(Bloom::Chain)
    } else if value.is::<WindowFilter>() {
        value.downcast_mut().map(Tracked::new).map(Bloom::Window)
    } else {
        value.downcast_mut().map(Tracked::new).map(Bloom::Valkey)
    }
}

/// The filter at the key, or a scalable one created with `params` (asked only then) when the
/// key is empty.
// Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
#[inline(always)]
pub(super) fn existing_or_created<'k>(
    call: &Call,
    key: &'k mut WriteKey,
    params: impl FnOnce() -> Params,
) -> Result<Writing<'k>, Failure> {
    key.existing_or_created(
        || Chain::new(params(), &call.memory()).map_err(errors::fail),
        writing,
    )
}
