//! The Bloom-filter commands (`BF.*`), one file per command family, and what they share: the
//! parameter rules (also used by the `bf-*` configs), the layout names, the argument docs,
//! and the lookup of a key that may hold a scalable filter (either of the two layouts' data
//! types), a filter that forgets (`window`) or a valkey-bloom filter (`valkey`).

mod add;
pub mod config;
mod debug;
mod dump;
pub mod errors;
mod exists;
mod info;
mod insert;
mod reserve;
pub mod rules;
mod valkey;
mod window;

use std::any::Any;

pub use add::{ADD, MADD};
pub use debug::DEBUG;
pub use dump::{LOADCHUNK, SCANDUMP};
pub use exists::{EXISTS, MEXISTS};
pub use info::{CARD, INFO};
pub use insert::INSERT;
pub use reserve::RESERVE;
pub use valkey::LOAD;
/// The argument parsers, pure functions of the arguments and the configuration (fuzzed).
pub use {
    insert::{parse as parse_insert, InsertArgs},
    reserve::{parse as parse_reserve, ReserveArgs},
    valkey::{
        parse_insert as parse_valkey_insert, parse_reserve as parse_valkey_reserve,
        InsertArgs as ValkeyInsertArgs,
    },
};

use super::call::Call;
use super::errors::Failure;
use super::family::{Family, InfoField, InfoSection, Stat};
use super::keys::{ReadKey, WriteKey};
use super::lookup::Lookup;
use super::metrics::{Footprint, Measured, Totals};
use super::spec::{ArgKind, ArgSpec};
use super::tracked::Tracked;
use crate::core::bf::chain::{Chain, Params};
use crate::core::bf::valkey::ValkeyBloom;
use crate::core::bf::window::WindowFilter;

/// The Bloom-filter family, as the glue registers it.
pub static FAMILY: Family = Family {
    acl_category: "bloom",
    commands: &[
        &RESERVE, &ADD, &MADD, &INSERT, &EXISTS, &MEXISTS, &INFO, &CARD, &SCANDUMP, &LOADCHUNK,
        &DEBUG, &LOAD,
    ],
    settings: config::SETTINGS,
    totals: &TOTALS,
    info: InfoSection {
        name: c"bloom_core_metrics",
        fields: &INFO_FIELDS,
    },
    stand_in: valkey::registered,
};

/// The totals of the Bloom filters of every layout.
static TOTALS: Totals = Totals::new();

/// The counts of a Bloom filter's footprint, by position.
const SUB_FILTERS: usize = 0;
const ITEMS: usize = 1;
const CAPACITY_COUNT: usize = 2;

/// valkey-bloom's field names (its `src/metrics.rs`), same meaning, so exporters and
/// dashboards made for it read ours.
static INFO_FIELDS: [InfoField; 5] = [
    InfoField::new(c"bloom_total_memory_bytes", Stat::Bytes),
    InfoField::new(c"bloom_num_objects", Stat::Objects),
    InfoField::new(
        c"bloom_num_filters_across_objects",
        Stat::Count(SUB_FILTERS),
    ),
    // BF.CARD.
    InfoField::new(c"bloom_num_items_across_objects", Stat::Count(ITEMS)),
    // BF.INFO Capacity.
    InfoField::new(
        c"bloom_capacity_across_objects",
        Stat::Count(CAPACITY_COUNT),
    ),
];

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

/// Options BF.RESERVE and BF.INSERT share.
const EXPANSION_ARG: ArgSpec = ArgSpec::new("expansion", ArgKind::Integer)
    .token("EXPANSION")
    .optional();
const NONSCALING_ARG: ArgSpec = ArgSpec::new("nonscaling", ArgKind::PureToken)
    .token("NONSCALING")
    .optional();
const LAYOUT_ARG: ArgSpec = ArgSpec::new("layout", ArgKind::String)
    .token("LAYOUT")
    .optional();
/// Ours: what a filter that forgets forgets by (`window.rs`).
const WINDOW_ARG: ArgSpec = ArgSpec::new(
    "window",
    ArgKind::OneOf(&[
        ArgSpec::new("count", ArgKind::PureToken).token("WINDOW"),
        ArgSpec::new("timespan", ArgKind::Integer).token("TIMESPAN"),
    ]),
)
.optional();

/// What a Bloom-family key holds: a scalable filter, a filter that forgets, or a valkey-bloom
/// filter.
enum Bloom<C, W, V> {
    Chain(C),
    Window(W),
    Valkey(V),
}

/// A Bloom-family value opened for writing.
type Writing<'k> = Bloom<Tracked<'k, Chain>, Tracked<'k, WindowFilter>, Tracked<'k, ValkeyBloom>>;

/// A Bloom-family value opened for reading.
type Reading<'k> = Bloom<&'k Chain, &'k WindowFilter, &'k ValkeyBloom>;

/// What a key opened for writing holds.
fn lookup<'k>(key: &'k mut WriteKey) -> Lookup<Writing<'k>> {
    key.lookup_as(writing)
}

/// What a key opened for reading holds.
fn lookup_read<'k>(key: &'k ReadKey) -> Lookup<Reading<'k>> {
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
fn is_bloom(value: &dyn Any) -> bool {
    value.is::<Chain>() || value.is::<WindowFilter>() || value.is::<ValkeyBloom>()
}

/// A module value as a Bloom-family value to change, if it is one.
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
fn existing_or_created<'k>(
    call: &Call,
    key: &'k mut WriteKey,
    params: impl FnOnce() -> Params,
) -> Result<Writing<'k>, Failure> {
    key.existing_or_created(
        || Chain::new(params(), &call.memory()).map_err(errors::fail),
        writing,
    )
}

/// What the argument-parser tests of BF.RESERVE and BF.INSERT share.
#[cfg(test)]
mod parse_tests {
    use crate::core::bf::chain::{LayoutKind, Params};

    /// The `bf-*` configs' defaults.
    pub const DEFAULTS: Params = Params {
        capacity: 100,
        error_rate: 0.01,
        expansion: 2,
        nonscaling: false,
        layout: LayoutKind::Classic,
    };
}
