//! The filter stored under a key: a ring of `k + l` equal slices filled one generation at a
//! time (see the module docs of [`super`]).
//!
//! Time is an argument, never read here: every write passes the time its command read once on
//! the primary, and the filter holds the newest time it has seen, so a clock stepping back (or
//! a failover to a replica whose clock is behind) never moves it backwards. Reads take a time
//! too, and only decide which generations are still alive; they change nothing.

use super::shape::Shape;
use crate::core::bits;
use crate::core::hash::{murmur3_fmix64, HashKind, HashPair};
use crate::core::relocate::{Mover, Relocate};
use crate::core::window::Window;
use crate::core::{try_copy, try_filled, Error, Memory};

/// Mixed into every slice index, so that the positions are this format's own (a new format
/// version may change it; the encoding version says which one a value uses).
const INDEX_SEED: u64 = 0x7769_6e64_6f77_2d30;

/// A sliding-window Bloom filter: an age-partitioned Bloom filter, by count or by time.
///
/// Invariants (every constructor checks them): the shape is valid; `bits` holds every slice,
/// physical slice s at bytes `s·m/8 ..`; `fresh` (and for time windows `latest`) has an
/// entry per slice; `newest` and `opened` are within the ring.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowFilter {
    pub(super) shape: Shape,
    pub(super) bits: Vec<u8>,
    /// The physical slice at position 0, where the current generation starts.
    pub(super) newest: u32,
    /// Generations opened so far, up to the ring's size: positions from here on have never
    /// held one.
    pub(super) opened: u32,
    /// Additions to the current generation.
    pub(super) current: u64,
    /// Per physical slice: additions to its generation that were not found before (`CARD`).
    pub(super) fresh: Vec<u64>,
    /// Per physical slice, time windows only: when its generation's latest item was added.
    /// All of a generation's items fall in one time slot, so this also gives its slot.
    pub(super) latest: Vec<u64>,
    /// The newest time written (time windows; 0 for count windows, which keep no time).
    pub(super) now_ms: u64,
    /// Additions ever made.
    pub(super) additions: u64,
    /// Shifts that pushed out a generation still inside the time window (too many items for
    /// the capacity within the span).
    pub(super) early_slides: u64,
}

/// What `BF.INFO` reports about a window filter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Info {
    /// Its shape: capacity, window, k, l, slots, generation and slice size.
    pub shape: Shape,
    /// Slices in the ring.
    pub slices: u32,
    /// Bytes per slice.
    pub slice_bytes: u64,
    /// Items added within the current window and not found when added (`BF.CARD`).
    pub items: u64,
    /// Additions to the generation being filled.
    pub current_generation: u64,
    /// Additions ever made.
    pub additions: u64,
    /// The window actually held: for count windows the latest additions always found
    /// (`l·g + 1`); for time windows at least how many milliseconds back every addition is
    /// still found — the timespan, or less after more than `capacity` arrived within it.
    pub window_held: u64,
    /// Shifts that pushed out a generation still inside the time window.
    pub early_slides: u64,
    /// Bytes as `MEMORY USAGE` counts them.
    pub memory: u64,
}

/// One opened generation, as `BF.DEBUG` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generation {
    /// Its position: 0 is the newest, being filled.
    pub position: u32,
    /// The physical slice it started in (its place in the bits, RDB and SCANDUMP).
    pub slice: u32,
    /// Its additions that were not found before (what `BF.CARD` sums).
    pub fresh: u64,
    /// Time windows: when its latest item was added.
    pub latest_ms: Option<u64>,
}

impl Relocate for WindowFilter {
    fn relocate(&mut self, mover: &mut impl Mover) {
        mover.vector(&mut self.bits);
        mover.vector(&mut self.fresh);
        mover.vector(&mut self.latest);
    }
}

impl WindowFilter {
    /// A new, empty filter for `capacity` items at `error_rate` in `window`; its size is
    /// checked against `memory` before anything is allocated.
    pub fn new(
        error_rate: f64,
        capacity: u64,
        window: Window,
        memory: &Memory,
    ) -> Result<WindowFilter, Error> {
        WindowFilter::zeroed(Shape::new(error_rate, capacity, window)?, memory)
    }

    /// A filter of `shape` with every slice empty and no generation opened.
    pub(super) fn zeroed(shape: Shape, memory: &Memory) -> Result<WindowFilter, Error> {
        if !shape.is_valid() {
            return Err(Error::InvalidParameters);
        }
        memory.check(memory_usage(&shape).ok_or(Error::OutOfMemory)?)?;
        let slices = shape.slices() as usize;
        let times = if shape.slots == 0 { 0 } else { slices };
        Ok(WindowFilter {
            bits: memory.array(shape.bit_bytes().ok_or(Error::OutOfMemory)?)?,
            newest: 0,
            opened: 0,
            current: 0,
            fresh: try_filled(slices, 0)?,
            latest: try_filled(times, 0)?,
            now_ms: 0,
            additions: 0,
            early_slides: 0,
            shape,
        })
    }

    /// Hashes `item` once for any number of calls.
    pub fn hash(item: &[u8]) -> HashPair {
        HashPair::of(item, HashKind::Xxh3)
    }

    /// Adds `item` at `now_ms` (ignored by count windows); true when it was already found in
    /// the window. It is written either way, which renews it.
    pub fn insert(&mut self, item: &[u8], now_ms: u64) -> bool {
        self.insert_hashed(WindowFilter::hash(item), now_ms)
    }

    /// [`WindowFilter::insert`] of a hashed item.
    pub fn insert_hashed(&mut self, hash: HashPair, now_ms: u64) -> bool {
        let now = self.write_time(now_ms);
        let found = self.contains_at(hash, now);
        if self.needs_new_generation(now) {
            self.shift(now);
        }
        self.opened = self.opened.max(1);
        let newest = self.newest as usize;
        if let (Some(latest), Window::Time(_)) = (self.latest.get_mut(newest), self.shape.window) {
            *latest = self
                .shape
                .window
                .period_end(now, u64::from(self.shape.slots));
        }
        for position in 0..self.shape.k {
            let slice = self.physical(position);
            let bit = self.bit_of(hash, slice);
            bits::set(&mut self.bits, bit);
        }
        self.current = self.current.saturating_add(1);
        if let Some(fresh) = self.fresh.get_mut(newest).filter(|_| !found) {
            *fresh = fresh.saturating_add(1);
        }
        self.additions = self.additions.saturating_add(1);
        self.now_ms = now;
        found
    }

    /// True when `item` is found in the window at `now_ms` (no false negatives within it).
    pub fn contains(&self, item: &[u8], now_ms: u64) -> bool {
        self.contains_hashed(WindowFilter::hash(item), now_ms)
    }

    /// [`WindowFilter::contains`] of a hashed item.
    pub fn contains_hashed(&self, hash: HashPair, now_ms: u64) -> bool {
        self.contains_at(hash, self.effective_now(now_ms))
    }

    /// Items added within the window at `now_ms` that were not found when added (`BF.CARD`).
    pub fn card(&self, now_ms: u64) -> u64 {
        let live = self.live_run_starts(self.effective_now(now_ms)) as usize;
        // Positions 0.. are physical slices `newest..`, wrapping to 0: two runs of the ring,
        // summed without a division per position (the totals take this around every write).
        let (wrapped, unwrapped) = self
            .fresh
            .split_at_checked(self.newest as usize)
            .unwrap_or((&[], &self.fresh));
        let tail = unwrapped.get(..live.min(unwrapped.len())).unwrap_or(&[]);
        let head = wrapped.get(..live - tail.len()).unwrap_or(&[]);
        tail.iter()
            .chain(head)
            .fold(0u64, |sum, n| sum.saturating_add(*n))
    }

    /// The generations opened so far, newest first, down to the oldest whose slices remain.
    pub fn generations(&self) -> impl Iterator<Item = Generation> + '_ {
        (0..self.opened).map(|position| {
            let slice = self.physical(position);
            Generation {
                position,
                slice,
                fresh: self.fresh.get(slice as usize).copied().unwrap_or(0),
                latest_ms: self.latest.get(slice as usize).copied(),
            }
        })
    }

    /// Whether the ring has gone round once: every slice has held a generation, and every
    /// slice but the first generation's was cleared when a generation opened in it, so nearly
    /// all the pages of its bits are resident.
    pub fn ring_has_turned(&self) -> bool {
        self.opened == self.shape.slices()
    }

    /// Its shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Everything `BF.INFO` shows, at `now_ms`.
    pub fn info(&self, now_ms: u64) -> Info {
        let now = self.effective_now(now_ms);
        let window_held = match self.shape.window {
            Window::Count(_) => self.shape.guaranteed_additions().unwrap_or(u64::MAX),
            Window::Time(ms) => self.time_window_held(ms, now),
        };
        Info {
            shape: self.shape,
            slices: self.shape.slices(),
            slice_bytes: self.shape.slice_bytes(),
            items: self.card(now),
            current_generation: self.current,
            additions: self.additions,
            window_held,
            early_slides: self.early_slides,
            memory: self.memory_usage(),
        }
    }

    /// The newest time it holds (0 for a count window): what its totals are taken at, so
    /// that they change only with writes.
    pub fn newest_ms(&self) -> u64 {
        self.now_ms
    }

    /// Bytes this value holds, as `MEMORY USAGE` counts them.
    pub fn memory_usage(&self) -> u64 {
        memory_usage(&self.shape).unwrap_or(u64::MAX)
    }

    /// The slices' bits, physical slice 0 first (SCANDUMP chunks, RDB).
    pub fn bits(&self) -> &[u8] {
        &self.bits
    }

    /// The slices' bits, to be filled by LOADCHUNK.
    pub fn bits_mut(&mut self) -> &mut [u8] {
        &mut self.bits
    }

    /// A deep copy (for COPY), or `OutOfMemory` instead of aborting the server.
    pub fn try_clone(&self) -> Result<WindowFilter, Error> {
        Ok(WindowFilter {
            bits: try_copy(&self.bits)?,
            fresh: try_copy(&self.fresh)?,
            latest: try_copy(&self.latest)?,
            ..*self
        })
    }

    /// The time a write read at `now_ms` is made at: for a time window, the first millisecond
    /// of the time slot of `now_ms` — or of the newest time written, should the clock be
    /// behind it — so that every write within one slot leaves the same bytes, whatever its
    /// millisecond; never before the newest time written, though (a filter saved by an
    /// earlier version holds a time inside its slot, which later writes in that slot keep).
    /// Count windows keep no time (0). A primary replicates a write made at the newest time
    /// the filter holds as it came, and replicas make it at that time.
    ///
    /// The generation written to then holds its slot's last millisecond as its latest time
    /// ([`WindowFilter::insert`]): an item is kept for at least the timespan after it was
    /// added and, with no further writes, at most `ms·(1 + 1/a)`, as with exact times. A
    /// write sees the generations alive at its slot's start (never fewer than at its own
    /// millisecond), and reads, which take the clock, never look behind the slot's start.
    pub fn write_time(&self, now_ms: u64) -> u64 {
        match self.shape.window {
            Window::Count(_) => 0,
            Window::Time(_) => {
                let slot_start = self
                    .shape
                    .window
                    .period_start(now_ms, u64::from(self.shape.slots));
                slot_start.max(self.now_ms)
            }
        }
    }

    /// Reads never look behind the newest time written; count windows keep no time.
    fn effective_now(&self, now_ms: u64) -> u64 {
        match self.shape.window {
            Window::Count(_) => 0,
            Window::Time(_) => now_ms.max(self.now_ms),
        }
    }

    /// A new generation opens when the current one is full, or (time windows) on the first
    /// addition in a new time slot. A generation is never opened empty.
    fn needs_new_generation(&self, now: u64) -> bool {
        if self.current >= self.shape.generation {
            return true;
        }
        self.current > 0
            && match self.shape.window {
                Window::Count(_) => false,
                Window::Time(_) => {
                    let latest = self.latest.get(self.newest as usize).copied().unwrap_or(0);
                    let slots = u64::from(self.shape.slots);
                    !self.shape.window.same_period(latest, now, slots)
                }
            }
    }

    /// Opens a generation: the oldest slice is cleared and becomes position 0, every other
    /// slice one position older. The generation at position l loses its oldest slice, and
    /// with it its run.
    fn shift(&mut self, now: u64) {
        if let Window::Time(ms) = self.shape.window {
            if self.is_alive(self.shape.l, ms, now) {
                self.early_slides = self.early_slides.saturating_add(1);
            }
        }
        let slices = self.shape.slices();
        self.newest = (self.newest + slices - 1) % slices;
        let newest = self.newest as usize;
        let bytes = self.shape.slice_bytes() as usize;
        let start = newest.saturating_mul(bytes);
        if let Some(slice) = self.bits.get_mut(start..start.saturating_add(bytes)) {
            slice.fill(0);
        }
        if let Some(fresh) = self.fresh.get_mut(newest) {
            *fresh = 0;
        }
        if let Some(latest) = self.latest.get_mut(newest) {
            *latest = 0;
        }
        self.current = 0;
        self.opened = (self.opened + 1).min(slices);
    }

    /// Whether some k consecutive slices, starting at a live position, all hold the item's
    /// bit. Each window `[p, p + k)` is checked from its oldest slice back; a miss at j rules
    /// out every window containing j, so the next one starts at j + 1, and the slices already
    /// seen set are not probed again. Never-added items usually stop after a few probes.
    fn contains_at(&self, hash: HashPair, now: u64) -> bool {
        let k = self.shape.k;
        let live = self.live_run_starts(now);
        let mut start = 0;
        // Positions [start, known) are known to hold the bit.
        let mut known = 0;
        while start < live {
            let top = start + k - 1;
            let mut position = top;
            loop {
                if position < known.max(start) {
                    return true;
                }
                if !self.holds_bit(hash, position) {
                    start = position + 1;
                    known = top + 1;
                    break;
                }
                match position.checked_sub(1) {
                    Some(next) => position = next,
                    None => return true,
                }
            }
        }
        false
    }

    /// Whether the slice at `position` holds the item's bit.
    pub(super) fn holds_bit(&self, hash: HashPair, position: u32) -> bool {
        bits::is_set(&self.bits, self.bit_of(hash, self.physical(position)))
    }

    /// How many positions, from the newest, may start a run at `now`: the opened ones up to l,
    /// and for time windows only while their generation is alive. Ages grow with position, so
    /// the live ones are a prefix, found by bisection: a lookup checks a handful of
    /// generations' times, not all of them.
    pub(super) fn live_run_starts(&self, now: u64) -> u32 {
        let opened = self.opened.min(self.shape.l + 1);
        let Window::Time(ms) = self.shape.window else {
            return opened;
        };
        // Positions below `live` are alive, those from `dead` on are not.
        let (mut live, mut dead) = (0, opened);
        while live < dead {
            let middle = live + (dead - live) / 2;
            if self.is_alive(middle, ms, now) {
                live = middle + 1;
            } else {
                dead = middle;
            }
        }
        live
    }

    /// Whether the generation at `position` was opened and still holds an item younger than
    /// `ms` at `now`. Its items all fall in one slot of `ms/a`, so an item is kept at least
    /// `ms` and at most `ms·(1 + 1/a)` after its addition.
    fn is_alive(&self, position: u32, ms: u64, now: u64) -> bool {
        position < self.opened
            && self
                .latest
                .get(self.physical(position) as usize)
                .is_some_and(|&latest| u128::from(latest) + u128::from(ms) > u128::from(now))
    }

    /// How far back every addition is still found: the whole timespan, unless the latest
    /// generation pushed out of reach (now at position l + 1, its slice not yet reused) held
    /// an item younger than it — then back to just after that item.
    fn time_window_held(&self, ms: u64, now: u64) -> u64 {
        let dropped = self.shape.l + 1;
        if !self.is_alive(dropped, ms, now) {
            return ms;
        }
        let latest = self.latest.get(self.physical(dropped) as usize).copied();
        latest.map_or(ms, |latest| now.saturating_sub(latest).min(ms))
    }

    /// The physical slice at `position` (0 = newest). Every caller's positions are below the
    /// ring's size, and so is `newest`, so one subtraction wraps it: no division on every probe
    /// (a position past the ring would give a slice past it, whose bits `get` refuses).
    pub(super) fn physical(&self, position: u32) -> u32 {
        let slices = self.shape.slices();
        let slice = self.newest + position;
        if slice < slices {
            slice
        } else {
            slice - slices
        }
    }

    /// The bit of an item in physical slice `slice`: the item's pair, stepped to the
    /// slice and mixed through a 64-bit finaliser, then reduced multiply-high. Plain double
    /// hashing `(a + s·b) mod m` would let two items agreeing on `(a mod m, b mod m)` collide
    /// in every slice — a false-positive floor of about N/m² that small slices feel.
    pub(super) fn bit_of(&self, hash: HashPair, slice: u32) -> usize {
        let stepped = hash.a.wrapping_add(u64::from(slice).wrapping_mul(hash.b));
        let mixed = murmur3_fmix64(stepped ^ INDEX_SEED);
        let bit = ((u128::from(mixed) * u128::from(self.shape.slice_bits)) >> 64) as u64;
        (u64::from(slice) * self.shape.slice_bits + bit) as usize
    }
}

/// What `MEMORY USAGE` counts for a filter of `shape`: the value itself, its bits, and the
/// per-generation counters (and times); `None` on overflow.
pub fn memory_usage(shape: &Shape) -> Option<u64> {
    (std::mem::size_of::<WindowFilter>() as u64).checked_add(shape.stored_bytes()?)
}
