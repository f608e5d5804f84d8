//! A windowed sketch's shape, fixed at creation and saved, and where its sweeping pointer
//! stands at a tick (the module docs of `super` say how the pointer moves).

use crate::core::window::{Window, MAX_SLOTS};

/// The pointer moves in this many ticks per slot: at least twice the usual depth, so rows
/// are passed at different ticks and the minimum over rows picks the freshest.
pub const TICKS_PER_SLOT: u64 = 16;
/// The most ticks per slot a saved sketch may have (what a later version might choose).
const MAX_TICKS_PER_SLOT: u64 = 64;
/// What `MEMORY USAGE` counts besides the arrays: the value's struct.
const STRUCT_BYTES: u64 = 96;
/// Bytes per counter.
const COUNTER_BYTES: u64 = 4;

/// A windowed sketch's shape, fixed at creation and saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Counters per row.
    pub width: u64,
    /// Rows.
    pub depth: u64,
    /// What it forgets by, and after how long.
    pub window: Window,
    /// Slots per window, 1 to [`MAX_SLOTS`].
    pub slots: u64,
    /// Ticks per slot ([`TICKS_PER_SLOT`] in what this version creates).
    pub ticks_per_slot: u64,
}

impl Shape {
    /// The shape `CMS.INITBYDIM key width depth WINDOW|TIMESPAN n SLOTS slots` asks for, or
    /// `None` outside the ranges (both dimensions at least 1, window 1 to 2^40, slots 1 to 8).
    pub fn new(width: u64, depth: u64, window: Window, slots: u64) -> Option<Shape> {
        let shape = Shape {
            width,
            depth,
            window,
            slots,
            ticks_per_slot: TICKS_PER_SLOT,
        };
        shape.is_valid().then_some(shape)
    }

    pub(super) fn is_valid(&self) -> bool {
        self.width >= 1
            && self.depth >= 1
            && self.window.is_valid()
            && (1..=MAX_SLOTS).contains(&self.slots)
            && (1..=MAX_TICKS_PER_SLOT).contains(&self.ticks_per_slot)
            && self.counter_bytes().is_some()
    }

    /// Counters per cell: one per slot and the one straddling the window's start.
    pub fn counters_per_cell(&self) -> u64 {
        self.slots + 1
    }

    /// Cells: `width × depth`.
    pub(super) fn cells(&self) -> Option<u64> {
        self.width.checked_mul(self.depth)
    }

    /// Ticks per window.
    pub(super) fn ticks_per_window(&self) -> u64 {
        self.slots * self.ticks_per_slot
    }

    /// Per-tick increment totals kept: a window's ticks and the current one.
    pub(super) fn totals_len(&self) -> u64 {
        self.ticks_per_window() + 1
    }

    pub(super) fn counter_bytes(&self) -> Option<u64> {
        self.cells()?
            .checked_mul(self.counters_per_cell())?
            .checked_mul(COUNTER_BYTES)
    }

    /// What a sketch of this shape takes in all (`MEMORY USAGE`): its struct, counters and
    /// per-tick totals.
    pub fn memory_usage(&self) -> Option<u64> {
        self.counter_bytes()?
            .checked_add(8 * self.totals_len())?
            .checked_add(STRUCT_BYTES)
    }

    /// Where the pointer stands at `tick`.
    pub(super) fn sweep(&self, tick: u64) -> Sweep {
        let cells = u128::from(self.cells().unwrap_or(1).max(1));
        let passed = u128::from(tick) * cells / u128::from(self.ticks_per_slot);
        Sweep {
            passed,
            // At most `tick`, as `cells / ticks_per_slot` ≤ cells.
            sweeps: u64::try_from(passed / cells).unwrap_or(u64::MAX),
            into: (passed % cells) as u64,
        }
    }
}

/// The pointer's position: `passed` cells in all, `sweeps` whole sweeps and `into` cells into
/// the current one.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sweep {
    pub(super) passed: u128,
    pub(super) sweeps: u64,
    pub(super) into: u64,
}

impl Sweep {
    /// How many times cell `x` has been passed: its generation.
    pub(super) fn generation(&self, x: u64) -> u64 {
        self.sweeps.saturating_add(u64::from(x < self.into))
    }
}

/// The counter of each cell that is current at a pointer: `sweeps mod f` for the cells not yet
/// passed in this sweep, the next for those passed.
#[derive(Clone, Copy)]
pub(super) struct Current {
    into: u64,
    behind: usize,
    passed: usize,
}

impl Current {
    pub(super) fn of(shape: &Shape, sweep: &Sweep) -> Current {
        let f = shape.counters_per_cell();
        let behind = (sweep.sweeps % f) as usize;
        Current {
            into: sweep.into,
            behind,
            passed: (behind + 1) % f as usize,
        }
    }

    pub(super) fn index(&self, cell: u64) -> usize {
        if cell < self.into {
            self.passed
        } else {
            self.behind
        }
    }
}
