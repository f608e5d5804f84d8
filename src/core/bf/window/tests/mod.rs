//! Behaviour of whole window filters: their promises (no false negatives within the window,
//! the error bound for ever, bursts in time windows), time kept monotonic, determinism, memory
//! against the classic sizing, and the encodings against truncated and hostile input.

use super::encoding::{self, encode_header};
use super::WindowFilter;
use crate::core::bf::sizing::{options, Layout};
use crate::core::bf::{chain, false_positive_rate};
use crate::core::testing::{fields_of, Rng};
use crate::core::window::{Window, MAX_WINDOW};
use crate::core::{Error, Memory, EAGER};

mod encodings;

/// Item `n`: never one of [`false_positive_rate`]'s probes (`other:…`), as those of eight
/// bytes read as numbers from 0x6f00_0000_0000_0000 up, far above any `n` the tests add.
fn item(n: u64) -> [u8; 8] {
    n.to_be_bytes()
}

fn count_window(error: f64, capacity: u64) -> WindowFilter {
    WindowFilter::new(error, capacity, Window::Count(capacity), &EAGER).unwrap()
}

fn saved(filter: &WindowFilter) -> Vec<u8> {
    fields_of(|out| encoding::save(filter, out))
}

#[test]
fn the_last_capacity_additions_are_always_found() {
    for capacity in [1, 2, 7, 64, 100, 333, 1000] {
        let mut filter = count_window(0.01, capacity);
        for n in 0..capacity * 5 {
            filter.insert(&item(n), 0);
            let window = (n + 1).saturating_sub(capacity)..=n;
            assert!(
                window.clone().all(|m| filter.contains(&item(m), 0)),
                "capacity {capacity} after {n}"
            );
        }
    }
    let mut filter = count_window(0.001, 10_000);
    for batch in 0..50u64 {
        (batch * 1000..(batch + 1) * 1000).for_each(|n| {
            filter.insert(&item(n), 0);
        });
        let end = (batch + 1) * 1000;
        assert!((end.saturating_sub(10_000)..end).all(|m| filter.contains(&item(m), 0)));
    }
}

#[test]
fn the_guarantee_ends_after_about_capacity_times_one_plus_one_over_l() {
    let mut filter = count_window(0.01, 1000);
    let shape = *filter.shape();
    let longest = u64::from(shape.l + 1) * shape.generation;
    for n in 0..longest * 4 {
        filter.insert(&item(n), 0);
    }
    // Additions older than (l + k) generations have no slice left: only false positives.
    let end = longest * 4;
    let gone = u64::from(shape.slices()) * shape.generation;
    let old = (0..end - gone)
        .filter(|&m| filter.contains(&item(m), 0))
        .count();
    assert!((old as f64) < 0.02 * (end - gone) as f64, "{old}");
}

#[test]
fn the_error_rate_holds_after_10_and_100_times_the_capacity() {
    for (error, capacity) in [(0.01, 2000), (0.001, 2000), (0.05, 5000)] {
        let mut filter = count_window(error, capacity);
        let mut added = 0;
        for times in [10, 100] {
            for n in added..capacity * times {
                filter.insert(&item(n), 0);
            }
            added = capacity * times;
            let rate = false_positive_rate(200_000, |probe| filter.contains(probe, 0));
            assert!(rate <= error, "{error} {capacity} ×{times}: {rate}");
        }
    }
}

#[test]
fn an_item_added_again_is_renewed_and_reported_found() {
    let mut filter = count_window(0.01, 500);
    assert!(!filter.insert(b"kept", 0));
    let mut next = 0;
    for _ in 0..10 {
        for _ in 0..499 {
            filter.insert(&item(next), 0);
            next += 1;
        }
        assert!(filter.insert(b"kept", 0), "renewed within the window");
    }
    assert!(filter.contains(b"kept", 0));
    // CARD counts the additions that were new: everything but the renewals, within the window.
    assert!(filter.card(0) >= 500 && filter.card(0) <= filter.info(0).additions);
}

#[test]
fn a_burst_in_a_time_window_is_found_for_the_whole_span_then_forgotten() {
    let mut filter = WindowFilter::new(0.01, 1000, Window::Time(2000), &EAGER).unwrap();
    let start = 1_700_000_000_000;
    for n in 0..500 {
        assert!(!filter.insert(&item(n), start));
    }
    for at in [0, 1500, 1999] {
        assert!(
            (0..500).all(|n| filter.contains(&item(n), start + at)),
            "{at}"
        );
        assert_eq!(filter.card(start + at), 500);
    }
    let generations: Vec<_> = filter.generations().collect();
    assert_eq!(generations.iter().map(|g| g.fresh).sum::<u64>(), 500);
    assert_eq!(generations[0].position, 0);
    // Each generation's latest time is the end of the slot of 500 ms its items fell in.
    let slot_end = start - start % 500 + 499;
    assert!(generations.iter().all(|g| g.latest_ms == Some(slot_end)));
    // With no writes, nothing is found once ms·(1 + 1/a) has passed, and reads changed nothing.
    let before = saved(&filter);
    assert!((0..500).all(|n| !filter.contains(&item(n), start + 2500)));
    assert_eq!(filter.card(start + 4500), 0);
    assert_eq!(saved(&filter), before);
    assert_eq!(filter.info(start + 4500).window_held, 2000);
}

#[test]
fn a_time_window_keeps_everything_younger_than_its_span_at_the_promised_rate() {
    // 50 items every 100 ms is exactly the capacity per span; 333 every second is bursty.
    for (every, burst) in [(100, 50), (1000, 333), (7, 3)] {
        let mut filter = WindowFilter::new(0.01, 1000, Window::Time(2000), &EAGER).unwrap();
        let mut next = 0;
        let mut added: Vec<(u64, u64)> = Vec::new();
        for tick in 0..(20_000 / every) {
            let now = tick * every;
            for _ in 0..burst {
                filter.insert(&item(next), now);
                added.push((next, now));
                next += 1;
            }
            let young = added.iter().rev().take_while(|(_, t)| now - t < 2000);
            assert!(young.clone().all(|(n, _)| filter.contains(&item(*n), now)));
            assert_eq!(filter.info(now).window_held, 2000, "{every}");
        }
        assert_eq!(filter.info(0).early_slides, 0);
        assert!(false_positive_rate(50_000, |probe| filter.contains(probe, 0)) <= 0.01);
    }
}

#[test]
fn too_many_items_for_a_time_window_shorten_it_but_keep_the_error_bound() {
    let mut filter = WindowFilter::new(0.01, 1000, Window::Time(2000), &EAGER).unwrap();
    for tick in 0..40u64 {
        for n in 0..1000 {
            filter.insert(&item(tick * 1000 + n), tick * 500);
        }
    }
    let info = filter.info(20_000);
    assert!(info.early_slides > 0);
    assert!(info.window_held < 2000, "{info:?}");
    // The latest capacity's worth is still found, whatever the rate.
    assert!((39_000..40_000).all(|n| filter.contains(&item(n), 19_500)));
    assert!(false_positive_rate(100_000, |probe| filter.contains(probe, 19_500)) <= 0.011);
}

#[test]
fn time_never_moves_backwards() {
    let mut filter = WindowFilter::new(0.01, 100, Window::Time(1000), &EAGER).unwrap();
    filter.insert(b"late", 10_000);
    // A clock stepping back: this addition is taken as made at 10 000, not 5 000.
    filter.insert(b"stepped", 5_000);
    assert!(filter.contains(b"stepped", 0));
    assert!(filter.contains(b"stepped", 10_999));
    assert!(!filter.contains(b"stepped", 12_000));
    // Reads behind the newest time see the filter as at the newest time.
    assert_eq!(filter.card(3), filter.card(10_000));
    let mut after = filter.clone();
    after.insert(b"x", 1);
    assert_eq!(after.now_ms, 10_000);
}

#[test]
fn count_windows_ignore_time_and_keep_none() {
    let mut with_clock = count_window(0.01, 100);
    let mut without = count_window(0.01, 100);
    for n in 0..1000 {
        with_clock.insert(&item(n), n * 7919);
        without.insert(&item(n), 0);
    }
    assert_eq!(saved(&with_clock), saved(&without));
}

#[test]
fn the_same_operations_give_the_same_bytes() {
    let run = || {
        let mut filter = WindowFilter::new(0.01, 300, Window::Time(1000), &EAGER).unwrap();
        for n in 0..5000u64 {
            filter.insert(&item(n % 700), n * 3);
            filter.contains(&item(n), n * 3 + 1);
        }
        filter
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert_eq!(saved(&a), saved(&b));
    assert_eq!(encode_header(&a), encode_header(&b));
}

#[test]
fn memory_stays_within_the_targets_against_a_classic_filter() {
    let classic = |error: f64, capacity: u64| {
        let layout = Layout::new(capacity, error, options::DEFAULT | options::NO_SCALING);
        chain::memory_usage(1, layout.unwrap().bytes()).unwrap() as f64
    };
    for (error, window, capacity, target) in [
        (0.01, Window::Count(1_000_000), 1_000_000, 2.1),
        (0.01, Window::Count(100_000), 100_000, 2.1),
        (0.001, Window::Count(1_000_000), 1_000_000, 1.95),
        (0.001, Window::Count(100_000), 100_000, 1.95),
        (0.01, Window::Time(60_000), 1_000_000, 2.3),
        (0.01, Window::Time(1000), 100_000, 2.3),
    ] {
        let filter = WindowFilter::new(error, capacity, window, &EAGER).unwrap();
        let ratio = filter.memory_usage() as f64 / classic(error, capacity);
        assert!(ratio <= target, "{error} {window:?} {capacity}: {ratio}");
    }
}

/// Zeroed bytes from `calloc` (through `vec!`), which the OS hands out as untouched pages, as
/// the server glue's allocator does.
fn lazily_zeroed(len: usize) -> Option<Vec<u8>> {
    Some(vec![0; len])
}

#[test]
fn reserving_a_huge_window_is_fast_and_sizes_are_checked_first() {
    let lazy = Memory {
        zeroed: lazily_zeroed,
        ..EAGER
    };
    let started = std::time::Instant::now();
    let filter = WindowFilter::new(0.01, 100_000_000, Window::Count(100_000_000), &lazy).unwrap();
    let took = started.elapsed();
    assert!(filter.memory_usage() > 200_000_000);
    assert!(took.as_millis() < 10, "{took:?}");
    fn no_allocation(len: usize) -> Option<Vec<u8>> {
        panic!("{len} bytes allocated beyond the limit")
    }
    let limited = Memory {
        zeroed: no_allocation,
        available: 1 << 30,
        limit: 1 << 20,
        ..crate::core::EAGER
    };
    // A count window's length is its capacity.
    let windows: [fn(u64) -> Window; 2] = [Window::Count, |_| Window::Time(1000)];
    for window in windows {
        let refused = WindowFilter::new(0.01, 1_000_000, window(1_000_000), &limited);
        assert_eq!(refused.err(), Some(Error::OverLimit));
        let refused = WindowFilter::new(0.01, u64::MAX, window(u64::MAX), &limited);
        assert!(refused.is_err());
    }
    let timespans = [Window::Time(0), Window::Time(MAX_WINDOW + 1)];
    for window in timespans {
        let refused = WindowFilter::new(0.01, 100, window, &EAGER);
        assert_eq!(refused.err(), Some(Error::InvalidParameters));
    }
}

#[test]
fn the_skipping_run_scan_answers_as_checking_every_run() {
    let mut filters = encodings::busy_filters().to_vec();
    filters.push(WindowFilter::new(0.2, 50, Window::Count(50), &EAGER).unwrap());
    for n in 0..400 {
        filters[2].insert(&item(n), 0);
    }
    for filter in &filters {
        let k = filter.shape().k;
        for now in [1_000_000, 1_001_400, 1_001_600, 1_002_000] {
            let live = filter.live_run_starts(now.max(filter.now_ms));
            for n in 0..3000 {
                let hash = WindowFilter::hash(&item(n));
                let has_bit = |position: u32| filter.holds_bit(hash, position);
                let any_run = (0..live).any(|start| (start..start + k).all(has_bit));
                assert_eq!(filter.contains_hashed(hash, now), any_run);
            }
        }
    }
}

#[test]
fn the_live_generations_are_found_by_bisection_as_by_a_scan() {
    let mut filter = WindowFilter::new(0.01, 640, Window::Time(1000), &EAGER).unwrap();
    let start = 1_000_000;
    for n in 0..3000u64 {
        filter.insert(&item(n), start + n * 3);
    }
    let scanned = |filter: &WindowFilter, now: u64| {
        let opened = filter.opened.min(filter.shape.l + 1);
        let ms = filter.shape.timespan_ms();
        (0..opened)
            .find(|&p| {
                let latest = filter.latest[filter.physical(p) as usize];
                latest + ms <= now
            })
            .unwrap_or(opened)
    };
    for now in (start + 8997..start + 11_000).step_by(7) {
        let live = scanned(&filter, now);
        assert_eq!(filter.live_run_starts(now), live, "{now}");
        let summed: u64 = filter
            .generations()
            .take(live as usize)
            .map(|g| g.fresh)
            .sum();
        assert_eq!(filter.card(now), summed, "{now}");
    }
    // Count windows, the ring turned many times.
    let mut filter = count_window(0.01, 500);
    for n in 0..5_000 {
        filter.insert(&item(n), 0);
        let live = filter.opened.min(filter.shape.l + 1) as usize;
        let summed: u64 = filter.generations().take(live).map(|g| g.fresh).sum();
        assert_eq!(filter.card(0), summed);
    }
}

#[test]
fn writes_within_one_time_slot_leave_the_same_bytes_whatever_their_millisecond() {
    let start = 1_700_000_000_000; // a slot start for every timespan below
    let mut early = WindowFilter::new(0.01, 1000, Window::Time(2000), &EAGER).unwrap();
    let mut late = early.try_clone().unwrap();
    let mut g = Rng::new(3);
    for step in 0..300u64 {
        let slot = start + step / 3 * 500;
        early.insert(&item(step), slot + g.below(250));
        late.insert(&item(step), slot + 250 + g.below(250));
        // The time a replica makes a write at without one: the one the primary used.
        assert_eq!(
            late.write_time(late.newest_ms()),
            late.write_time(slot + 499)
        );
    }
    assert_eq!(saved(&early), saved(&late));
}

#[test]
fn an_item_is_kept_for_the_whole_span_whichever_millisecond_of_its_slot() {
    // Timespan 1000 ms in slots of 250: an item added at a slot's last millisecond, then a
    // write in the slot that holds its 999th millisecond after.
    let start = 1_700_000_000_000;
    let mut filter = WindowFilter::new(0.01, 100, Window::Time(1000), &EAGER).unwrap();
    filter.insert(b"first", start + 249);
    filter.insert(b"second", start + 1248);
    assert!(filter.contains(b"first", start + 1248));
    // Gone once the slot's end plus the timespan has passed: within ms·(1 + 1/a).
    assert!(!filter.contains(b"first", start + 1249));
    let mut quiet = WindowFilter::new(0.01, 100, Window::Time(1000), &EAGER).unwrap();
    quiet.insert(b"early", start);
    assert!(quiet.contains(b"early", start + 1248));
    assert!(!quiet.contains(b"early", start + 1250));
}

#[test]
fn a_time_held_inside_a_slot_is_never_moved_back() {
    // A filter saved by an earlier version holds the exact time of its newest write.
    let start = 1_700_000_000_000;
    let mut filter = WindowFilter::new(0.01, 100, Window::Time(1000), &EAGER).unwrap();
    filter.now_ms = start + 123;
    assert_eq!(filter.write_time(start + 200), start + 123);
    filter.insert(b"a", start + 200);
    assert_eq!(filter.newest_ms(), start + 123);
    // The next slot starts afresh at its first millisecond.
    assert_eq!(filter.write_time(start + 300), start + 250);
}

/// Active defragmentation moves the bits and both generation arrays, and changes nothing.
#[test]
fn relocation_moves_every_array_and_keeps_the_window() {
    use crate::core::relocate::tests::relocates_unchanged;
    let mut filter = count_window(0.01, 100);
    for n in 0..250 {
        filter.insert(&item(n), 0);
    }
    let original = filter.try_clone().unwrap();
    assert_eq!(relocates_unchanged(filter, &original), 3);
}

/// A lookup, which skips the windows a miss rules out, finds an item exactly when some live
/// run of k consecutive slices all hold its bit.
#[test]
fn lookups_agree_with_checking_every_run() {
    let mut rng = Rng::new(7);
    for capacity in [20, 100, 1000] {
        let mut filter = count_window(0.01, capacity);
        for _ in 0..capacity * 7 {
            filter.insert(&item(rng.below(capacity * 10)), 0);
        }
        let live = filter.live_run_starts(0);
        let k = filter.shape.k;
        let mut found = 0;
        for n in 0..capacity * 20 {
            let hash = WindowFilter::hash(&item(n));
            let by_runs =
                (0..live).any(|start| (start..start + k).all(|p| filter.holds_bit(hash, p)));
            assert_eq!(
                filter.contains(&item(n), 0),
                by_runs,
                "{capacity}: item {n}"
            );
            found += u64::from(by_runs);
        }
        assert!(found > capacity, "{capacity}: {found} found");
    }
}
