//! The windowed sketch against an exact model of its window: never below the window's count,
//! never above the count of the window and one slot more (a sketch wide enough that items do
//! not collide), reads that change nothing, and its saved form.

use std::collections::VecDeque;

use super::*;
use crate::core::cms::{MergeError, MergeSource, Weighted};
use crate::core::le::LeReader;
use crate::core::testing::eager_limited;
use crate::core::testing::{fields_of, truncations_fail_and_flips_load_or_fail, Rng};
use crate::core::window::Forgets;
use crate::core::EAGER;

/// Far more columns than items: the estimate is then the item's own count over what its cells
/// hold, so the window's bounds can be checked exactly.
const WIDE: u64 = 1 << 12;

fn sketch(window: Window, slots: u64, now: u64) -> WindowSketch {
    let shape = Shape::new(WIDE, 3, window, slots).unwrap();
    WindowSketch::new(shape, now, &EAGER).unwrap()
}

/// The updates of a stream, kept for as long as any bound asks.
#[derive(Default)]
struct Model(VecDeque<(u64, u32, u64)>);

impl Model {
    /// Forgets the updates before `t`, which no bound asks for any more.
    fn keep_since(&mut self, t: u64) {
        while self.0.front().is_some_and(|&(at, _, _)| at < t) {
            self.0.pop_front();
        }
    }

    /// The item's increments at times (or update numbers) in `from ..= to`.
    fn count(&self, item: u32, from: u64, to: u64) -> u64 {
        self.0
            .iter()
            .filter(|&&(t, i, _)| i == item && (from..=to).contains(&t))
            .map(|&(_, _, amount)| amount)
            .sum()
    }
}

/// The sum of the totals that the metrics read around every write is theirs.
fn check_kept(sketch: &WindowSketch) {
    let sum: u128 = sketch.totals.iter().map(|&total| u128::from(total)).sum();
    assert_eq!(sketch.kept, sum);
}

/// The window's count at `now` is the totals of the ticks a reader then still sees, taken one
/// by one.
fn check_window_count(sketch: &WindowSketch, now: u64) {
    let len = sketch.totals.len() as u64;
    let from = sketch
        .clock
        .read_period(now)
        .saturating_sub(sketch.shape().ticks_per_window())
        .max(sketch.oldest_total_tick());
    let seen = (from..=sketch.tick())
        .take(len as usize)
        .map(|tick| sketch.totals[(tick % len) as usize])
        .fold(0, u64::saturating_add);
    assert_eq!(sketch.window_count(now), seen, "at {now}");
}

/// `true ≤ estimate ≤ true over the window and one slot (and one tick, for rounding)`.
fn check_bounds(sketch: &WindowSketch, model: &Model, now: u64, items: u32) {
    check_kept(sketch);
    check_window_count(sketch, now);
    let shape = sketch.shape();
    let length = shape.window.length();
    let slack = length / shape.slots + length / (shape.slots * shape.ticks_per_slot) + 2;
    for item in 0..items {
        let estimate = sketch.query(&item.to_le_bytes(), now);
        let window = model.count(item, (now + 1).saturating_sub(length), now);
        let span = model.count(item, (now + 1).saturating_sub(length + slack), now);
        assert!(
            window <= estimate,
            "item {item} at {now}: {estimate} < {window}"
        );
        assert!(
            estimate <= span,
            "item {item} at {now}: {estimate} > {span}"
        );
    }
}

#[test]
fn a_count_window_holds_its_last_updates_and_forgets_within_a_slot() {
    for slots in [1, 2, 4, 8] {
        for length in [1, 7, 100, 1000] {
            let mut rng = Rng::new(slots * 7919 + length);
            let mut sketch = sketch(Window::Count(length), slots, 0);
            let mut model = Model::default();
            for update in 0..3 * length + 50 {
                let item = rng.below(5) as u32;
                let amount = rng.below(4);
                sketch.increment(&item.to_le_bytes(), amount, None).unwrap();
                model.0.push_back((update, item, amount));
                model.keep_since(update.saturating_sub(2 * length + 2));
                assert_eq!(sketch.clock.updates(), update + 1);
                if update % 7 == 0 {
                    // Reads see the update the next one would be: the window's last `length`.
                    check_bounds(&sketch, &model, update, 5);
                }
            }
        }
    }
}

#[test]
fn a_time_window_holds_its_last_milliseconds_whatever_the_clock_does() {
    for (slots, length) in [(1, 1), (4, 1000), (8, 60_000), (2, 3)] {
        let mut rng = Rng::new(slots ^ length);
        let start = 1_700_000_000_000 + rng.below(1 << 20);
        let mut sketch = sketch(Window::Time(length), slots, start);
        let mut model = Model::default();
        let mut now = start;
        let mut newest = start;
        for _ in 0..2000 {
            now = match rng.below(20) {
                // A clock stepped back: the write lands at the newest time held.
                0 => now.saturating_sub(rng.below(length + 1)),
                // An idle gap of up to three windows.
                1 => now + rng.below(3 * length + 1),
                _ => now + rng.below(length / 50 + 2),
            };
            newest = newest.max(now);
            let item = rng.below(6) as u32;
            let amount = 1 + rng.below(3);
            sketch
                .increment(&item.to_le_bytes(), amount, Some(now))
                .unwrap();
            model.0.push_back((newest, item, amount));
            while model
                .0
                .front()
                .is_some_and(|&(t, _, _)| t + 4 * length < newest)
            {
                model.0.pop_front();
            }
            check_bounds(&sketch, &model, newest, 6);
            // Read later, by a reader's clock: what expired is gone, nothing changed.
            let later = newest + rng.below(2 * length + 1);
            let before = sketch.try_clone().unwrap();
            check_bounds(&sketch, &model, later, 6);
            assert_eq!(sketch, before);
        }
    }
}

#[test]
fn idle_past_the_window_reads_zero_and_one_write_leaves_a_fresh_sketch() {
    let start = 1_000_000;
    let mut old = sketch(Window::Time(1000), 4, start);
    for i in 0..500u32 {
        old.increment(&i.to_le_bytes(), 3, Some(start + u64::from(i)))
            .unwrap();
    }
    let later = start + 3 * 1000;
    for i in 0..500u32 {
        assert_eq!(old.query(&i.to_le_bytes(), later), 0);
    }
    assert_eq!(old.window_count(later), 0);
    assert!(old.window_count(start + 499) >= 1500);
    old.increment(b"x", 2, Some(later)).unwrap();
    let mut fresh = sketch(Window::Time(1000), 4, later);
    fresh.increment(b"x", 2, Some(later)).unwrap();
    assert_eq!(old, fresh);
}

#[test]
fn a_replayed_write_lands_at_the_newest_tick_and_advance_never_goes_back() {
    let mut primary = sketch(Window::Time(100), 4, 0);
    let mut replica = sketch(Window::Time(100), 4, 0);
    for (at, item) in [
        (10u64, b"a"),
        (11, b"b"),
        (250, b"a"),
        (240, b"c"),
        (900, b"d"),
    ] {
        let opens = primary.opens_period(at);
        primary.increment(item, 1, Some(at)).unwrap();
        if opens {
            replica.advance_to(at);
        }
        replica.increment(item, 1, None).unwrap();
        assert_eq!(primary, replica);
    }
    let tick = primary.tick();
    primary.advance_to(0);
    assert_eq!(primary.tick(), tick);
}

#[test]
fn a_counter_stops_below_u32_max_and_a_refused_increment_changes_no_counter() {
    let mut sketch = sketch(Window::Count(1000), 4, 0);
    sketch
        .increment(b"a", u64::from(u32::MAX) - 1, None)
        .unwrap();
    let before = sketch.counters().to_vec();
    assert_eq!(
        sketch.increment(b"a", 2, None),
        Err(IncrementError::Overflow)
    );
    assert_eq!(sketch.counters(), before);
    assert_eq!(sketch.increment(b"a", 1, None), Ok(u64::from(u32::MAX)));
    // Estimates sum a cell's counters, past u32::MAX: a slot (250 updates) apart, two full
    // counters of one cell.
    sketch.increment(b"b", u64::from(u32::MAX), None).unwrap();
    for _ in 0..300 {
        sketch.increment(b"c", 0, None).unwrap();
    }
    sketch.increment(b"b", u64::from(u32::MAX), None).unwrap();
    assert_eq!(sketch.query(b"b", 0), 2 * u64::from(u32::MAX));
}

#[test]
fn extreme_shapes_work() {
    let tiny = Shape::new(1, 1, Window::Time(1), 1).unwrap();
    // Sixteen ticks a millisecond, far from the epoch.
    let far = 1 << 56;
    let mut sketch = WindowSketch::new(tiny, far, &EAGER).unwrap();
    sketch.increment(b"a", 1, Some(far)).unwrap();
    assert_eq!(sketch.query(b"a", far), 1);
    assert_eq!(sketch.query(b"a", far + 2), 0);
    sketch.increment(b"a", 1, Some(far + 2)).unwrap();
    assert_eq!(sketch.query(b"a", far + 2), 1);
    // Past 2^60 ms the ticks saturate: the window stops sliding, nothing breaks.
    sketch.increment(b"a", 1, Some(u64::MAX)).unwrap();
    assert!(sketch.query(b"a", u64::MAX) >= 1);
    let long = Shape::new(3, 2, Window::Time(MAX_WINDOW), 8).unwrap();
    let mut sketch = WindowSketch::new(long, 0, &EAGER).unwrap();
    sketch.increment(b"a", 5, Some(0)).unwrap();
    assert_eq!(sketch.query(b"a", MAX_WINDOW - 1), 5);
    assert_eq!(sketch.query(b"a", 2 * MAX_WINDOW), 0);
    for refused in [
        Shape::new(0, 1, Window::Count(1), 4),
        Shape::new(1, 0, Window::Count(1), 4),
        Shape::new(1, 1, Window::Count(0), 4),
        Shape::new(1, 1, Window::Time(MAX_WINDOW + 1), 4),
        Shape::new(1, 1, Window::Time(1), 0),
        Shape::new(1, 1, Window::Time(1), 9),
        Shape::new(u64::MAX, 2, Window::Time(1), 4),
    ] {
        assert_eq!(refused, None);
    }
}

#[test]
fn the_memory_bound_is_checked_before_allocating() {
    let shape = Shape::new(2000, 7, Window::Time(60_000), 4).unwrap();
    // The figure the design gives: 4·w·d·(S+1) + 8·(S·G+1), plus the struct.
    assert_eq!(shape.memory_usage(), Some(280_000 + 8 * 65 + 96));
    let limited = eager_limited(1000);
    assert_eq!(
        WindowSketch::new(shape, 0, &limited).err(),
        Some(Error::OverLimit)
    );
    let huge = Shape::new(1 << 40, 1 << 10, Window::Count(1), 8).unwrap();
    assert!(WindowSketch::new(huge, 0, &EAGER).is_err());
}

fn merge_sources<'a>(
    sketches: &'a [WindowSketch],
    weights: &[i64],
) -> Vec<Weighted<'a, WindowSketch>> {
    sketches
        .iter()
        .zip(weights)
        .map(|(sketch, &weight)| Weighted {
            source: MergeSource::Other(sketch),
            weight,
        })
        .collect()
}

#[test]
fn time_windows_of_one_shape_merge_after_alignment() {
    let mut a = sketch(Window::Time(1000), 4, 0);
    let mut b = sketch(Window::Time(1000), 4, 0);
    a.increment(b"x", 2, Some(0)).unwrap();
    a.increment(b"y", 1, Some(900)).unwrap();
    b.increment(b"x", 5, Some(1100)).unwrap();
    let sources = [a, b];
    let mut destination = sketch(Window::Time(1000), 4, 0);
    destination
        .merge(&merge_sources(&sources, &[1, 2]), 1200)
        .unwrap();
    // `x` at 0 has expired by 1200 + a slot's rounding: only b's 5, twice.
    assert_eq!(destination.query(b"x", 1300), 10);
    assert_eq!(destination.query(b"y", 1300), 1);
    assert_eq!(destination.query(b"y", 3000), 0);
    assert_eq!(destination.window_count(1300), 11);
    check_kept(&destination);
    // Refused whole: nothing changes.
    let before = destination.try_clone().unwrap();
    let negative = merge_sources(&sources, &[-1, 0]);
    assert_eq!(
        destination.merge(&negative, 1200),
        Err(MergeError::Overflow)
    );
    let other_window = [sketch(Window::Time(999), 4, 0)];
    let other = merge_sources(&other_window, &[1]);
    assert_eq!(
        destination.merge(&other, 1200),
        Err(MergeError::WindowsDiffer)
    );
    let narrower =
        [WindowSketch::new(Shape::new(7, 3, Window::Time(1000), 4).unwrap(), 0, &EAGER).unwrap()];
    let narrower = merge_sources(&narrower, &[1]);
    assert_eq!(
        destination.merge(&narrower, 1200),
        Err(MergeError::DimensionsDiffer)
    );
    assert_eq!(destination, before);
    let mut counted = sketch(Window::Count(10), 4, 0);
    let itself = [Weighted {
        source: MergeSource::Destination,
        weight: 1,
    }];
    assert_eq!(counted.merge(&itself, 0), Err(MergeError::CountWindow));
}

#[test]
fn merging_a_sketch_into_itself_keeps_what_is_alive() {
    let mut sketch = sketch(Window::Time(100), 2, 0);
    sketch.increment(b"a", 3, Some(5)).unwrap();
    sketch.increment(b"b", 4, Some(60)).unwrap();
    let itself = [Weighted {
        source: MergeSource::Destination,
        weight: 2,
    }];
    sketch.merge(&itself, 160).unwrap();
    check_kept(&sketch);
    assert_eq!(sketch.query(b"a", 160), 0);
    assert_eq!(sketch.query(b"b", 160), 8);
}

fn saved(sketch: &WindowSketch) -> Vec<u8> {
    fields_of(|out| rdb::save(sketch, out))
}

#[test]
fn it_loads_what_it_saves_and_refuses_what_it_does_not() {
    let mut rng = Rng::new(3);
    for window in [Window::Count(50), Window::Time(500)] {
        let shape = Shape::new(13, 4, window, 3).unwrap();
        let mut sketch = WindowSketch::new(shape, 10_000, &EAGER).unwrap();
        for t in 0..300 {
            let item = rng.below(30).to_le_bytes();
            sketch
                .increment(&item, rng.below(9), Some(10_000 + t * 3))
                .unwrap();
        }
        let fields = saved(&sketch);
        let load = |bytes: &[u8]| rdb::load(&mut LeReader(bytes), rdb::ENCODING_VERSION, &EAGER);
        assert_eq!(load(&fields).unwrap(), sketch);
        // A corrupt sketch that loads still takes writes and reads, and saves what it holds.
        truncations_fail_and_flips_load_or_fail(&fields, load, |mut corrupt, _| {
            let now = 10_000 + rng.below(5000);
            let _ = corrupt.increment(b"a", 1, Some(now));
            corrupt.query(b"a", now + 100);
            corrupt.window_count(now);
            check_kept(&corrupt);
            assert_eq!(load(&saved(&corrupt)).unwrap(), corrupt);
        });
        assert_eq!(
            rdb::load(&mut LeReader(&fields), 1, &EAGER).err(),
            Some(Error::BadEncoding)
        );
    }
}

#[test]
fn hostile_fields_are_refused_before_allocating() {
    let sketch = sketch(Window::Time(500), 4, 0);
    let fields = saved(&sketch);
    // Fields by position: kind, window, slots, ticks per slot, width, depth, hash, tick,
    // updates.
    let field = |fields: &[u8], at: usize, value: u64| {
        let mut bytes = fields.to_vec();
        bytes[8 * at..8 * at + 8].copy_from_slice(&value.to_le_bytes());
        bytes
    };
    let load = |bytes: &[u8]| rdb::load(&mut LeReader(bytes), rdb::ENCODING_VERSION, &EAGER);
    for (at, value) in [
        (0, 2),
        (1, 0),
        (1, MAX_WINDOW + 1),
        (2, 0),
        (2, 9),
        (3, 0),
        (3, 65),
        (5, 0),
        (6, 1),
        (8, 1),
    ] {
        assert_eq!(
            load(&field(&fields, at, value)).err(),
            Some(Error::BadEncoding),
            "{at}"
        );
    }
    let limited = eager_limited(1 << 20);
    let wide = field(&fields, 4, 1 << 40);
    assert_eq!(
        rdb::load(&mut LeReader(&wide), 0, &limited).err(),
        Some(Error::OverLimit)
    );
    // A tick far ahead loads; the next write clears everything once.
    let ahead = field(&fields, 7, u64::MAX);
    let mut loaded = load(&ahead).unwrap();
    loaded.increment(b"a", 1, Some(0)).unwrap();
    assert_eq!(loaded.query(b"a", 0), 1);
}
