//! The Top-K that forgets against exact counts of its window: counts never above the item's
//! updates of the window and a slot, items that stop arriving leave within a window and a
//! slot, a good recall of the window's heaviest, reads that change nothing, the same bytes
//! on a replica, and its saved form.

use std::collections::HashMap;

use super::*;
use crate::core::le::LeReader;
use crate::core::testing::eager_limited;
use crate::core::testing::{
    fields_of, fnv, truncations_fail_and_flips_load_or_fail, Rng, FNV_OFFSET,
};
use crate::core::topk::params::Params;
use crate::core::window::Forgets;
use crate::core::EAGER;

fn topk(k: i64, width: i64, window: Window, slots: u64, now: u64) -> WindowTopK {
    let params = Params::new(k, width, 5, 0.9).unwrap();
    WindowTopK::new(Shape::new(params, window, slots).unwrap(), now, &EAGER).unwrap()
}

fn saved(topk: &WindowTopK) -> Vec<u8> {
    fields_of(|out| rdb::save(topk, out))
}

/// A Zipf-like item of rank 1..=n (s = 1), drawn by inverting the harmonic sums.
fn zipf(rng: &mut Rng, harmonic: &[f64]) -> u64 {
    let total = harmonic.last().copied().unwrap_or(1.0);
    let x = (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * total;
    harmonic.partition_point(|&h| h < x) as u64 + 1
}

#[test]
fn counts_stay_within_the_window_and_a_slot_and_the_heaviest_are_listed() {
    let window = 20_000u64;
    for slots in [1, 4, 8] {
        let mut rng = Rng::new(slots);
        let mut sketch = topk(20, 2000, Window::Count(window), slots, 0);
        let harmonic: Vec<f64> = (1..=5000)
            .scan(0.0, |h, i| {
                *h += 1.0 / f64::from(i);
                Some(*h)
            })
            .collect();
        let mut stream = Vec::new();
        for update in 0..4 * window {
            // Churn: each quarter window the heavy ranks move to other items.
            let epoch = update / (window / 4);
            let item = format!("i{}-{}", zipf(&mut rng, &harmonic), epoch % 3);
            sketch.add(item.as_bytes(), 1, None).unwrap();
            stream.push(item);
        }
        let now = sketch.clock.updates();
        let span = window + window / slots + 1;
        let count_in = |last: u64, item: &str| {
            let from = stream.len().saturating_sub(last as usize);
            stream[from..].iter().filter(|i| *i == item).count() as u32
        };
        let listed = sketch.list(now).unwrap();
        for entry in &listed {
            let item = std::str::from_utf8(entry.item).unwrap();
            assert!(
                entry.count <= count_in(span, item),
                "{item}: {}",
                entry.count
            );
            assert!(entry.count > 0);
        }
        // Recall of the window's true top 20.
        let mut exact: HashMap<&str, u32> = HashMap::new();
        for item in &stream[stream.len() - window as usize..] {
            *exact.entry(item).or_default() += 1;
        }
        let mut heaviest: Vec<(&str, u32)> = exact.into_iter().collect();
        heaviest.sort_by_key(|&(item, n)| (std::cmp::Reverse(n), item));
        let found = heaviest[..20]
            .iter()
            .filter(|(item, _)| listed.iter().any(|l| l.item == item.as_bytes()))
            .count();
        assert!(found >= 15, "slots {slots}: recall {found}/20");
    }
}

#[test]
fn an_item_that_stops_arriving_leaves_within_a_window_and_a_slot() {
    let start = 1_700_000_000_000u64;
    let mut sketch = topk(5, 100, Window::Time(1000), 4, start);
    sketch.add(b"burst", 100_000, Some(start)).unwrap();
    for t in (start..start + 3000).step_by(10) {
        sketch.add(b"steady", 1, Some(t)).unwrap();
        let listed = sketch.list(t).unwrap();
        let burst = listed.iter().any(|l| l.item == b"burst");
        if t < start + 1000 {
            assert!(burst, "{t}");
            assert!(sketch.query(b"burst", t));
        }
        if t >= start + 1250 {
            assert!(!burst, "{t}");
            assert!(!sketch.query(b"burst", t));
            assert_eq!(sketch.count(b"burst", t), 0);
        }
    }
    // Idle for three windows: nothing is left, and the reads changed nothing.
    let later = start + 6000;
    let before = saved(&sketch);
    assert!(sketch.list(later).unwrap().is_empty());
    assert_eq!(sketch.count(b"steady", later), 0);
    assert_eq!(sketch.window_total(later), 0);
    assert_eq!(saved(&sketch), before);
}

#[test]
fn a_replica_applying_writes_at_the_newest_slot_holds_the_same_bytes() {
    let mut rng = Rng::new(9);
    let mut primary = topk(10, 50, Window::Time(400), 4, 0);
    let mut replica = topk(10, 50, Window::Time(400), 4, 0);
    let mut now = 0;
    for _ in 0..3000 {
        now += rng.below(5);
        if rng.below(50) == 0 {
            now = now.saturating_sub(200); // a clock stepped back
        }
        let item = format!("i{}", rng.below(40) * rng.below(40) / 40);
        let increment = 1 + rng.below(3) as u32;
        let opens = primary.opens_period(now);
        let expelled = primary.add(item.as_bytes(), increment, Some(now)).unwrap();
        if opens {
            replica.advance_to(now);
        }
        assert_eq!(
            replica.add(item.as_bytes(), increment, None).unwrap(),
            expelled
        );
    }
    assert_eq!(saved(&primary), saved(&replica));
    let slot = primary.slot();
    primary.advance_to(0);
    assert_eq!(primary.slot(), slot);
}

#[test]
fn decay_one_is_the_unit_loop_in_closed_form() {
    // Decay 1 decrements with every unit: a holder of 5 yields to an increment of 7 and the
    // newcomer keeps 3 (the unit that emptied it included), as the classic Top-K counts.
    let params = Params::new(1, 1, 1, 1.0).unwrap();
    let shape = Shape::new(params, Window::Count(100), 4).unwrap();
    let mut sketch = WindowTopK::new(shape, 0, &EAGER).unwrap();
    sketch.add(b"a", 5, None).unwrap();
    // The newcomer's 3 is below the heap's 5: not admitted, as RedisBloom's rule goes.
    assert_eq!(sketch.add(b"b", 7, None).unwrap(), None);
    assert_eq!(sketch.count(b"b", 0), 3);
    assert_eq!(sketch.count(b"a", 0), 0);
    // `a` lost its bucket: listed no more, though its heap slot stays until expelled.
    assert!(sketch.list(0).unwrap().is_empty());
    assert!(!sketch.query(b"a", 0));
    sketch.add(b"a", 2, None).unwrap();
    assert_eq!(sketch.count(b"b", 0), 1);
    // The heap keeps `a`'s 5 until the next slot (25 updates) counts it again: then `b` is
    // admitted, expelling `a`.
    let expelled: Vec<Vec<u8>> = (0..25)
        .filter_map(|_| sketch.add(b"b", 1, None).unwrap())
        .map(|e| e.item().to_vec())
        .collect();
    assert_eq!(expelled, [b"a".to_vec()]);
    assert_eq!(sketch.list(0).unwrap()[0].item, b"b");
}

#[test]
fn it_loads_what_it_saves_and_refuses_what_it_does_not() {
    let mut rng = Rng::new(5);
    for window in [Window::Count(60), Window::Time(500)] {
        let params = Params::new(4, 7, 3, 0.8).unwrap();
        let mut sketch =
            WindowTopK::new(Shape::new(params, window, 2).unwrap(), 0, &EAGER).unwrap();
        for t in 0..200 {
            let item = format!("item{}", rng.below(9));
            sketch
                .add(item.as_bytes(), 1 + rng.below(4) as u32, Some(t * 7))
                .unwrap();
        }
        sketch.add(b"", 50, Some(1500)).unwrap();
        sketch.add(b"n\0ul", 60, Some(1500)).unwrap();
        let fields = saved(&sketch);
        let load = |bytes: &[u8]| rdb::load(&mut LeReader(bytes), rdb::ENCODING_VERSION, &EAGER);
        assert_eq!(load(&fields).unwrap(), sketch);
        truncations_fail_and_flips_load_or_fail(&fields, load, |mut corrupt, _| {
            let now = rng.below(5000);
            let _ = corrupt.add(b"a", 3, Some(now));
            corrupt.list(now + 100).unwrap();
            corrupt.count(b"a", now);
            assert_eq!(load(&saved(&corrupt)).unwrap(), corrupt);
        });
        assert!(rdb::load(&mut LeReader(&fields), 1, &EAGER).is_err());
    }
}

#[test]
fn sizes_are_checked_before_allocating() {
    let params = Params::new(100, 2000, 7, 0.9).unwrap();
    let shape = Shape::new(params, Window::Time(60_000), 4).unwrap();
    // (12 + 4 · 5) bytes a bucket, 24 a heap slot, 8 a slot's total, and the struct.
    assert_eq!(shape.memory_usage(), Some(32 * 14_000 + 2400 + 40 + 2120));
    let limited = eager_limited(10_000);
    assert_eq!(
        WindowTopK::new(shape, 0, &limited).err(),
        Some(Error::OverLimit)
    );
    assert!(Shape::new(params, Window::Time(0), 4).is_none());
    assert!(Shape::new(params, Window::Count(1), 9).is_none());
}

/// What a stream of writes leaves — every reply and the saved bytes — is pinned: a replica or
/// an AOF replayed by another version of the module must draw the same decays and hold the
/// same bytes. The stream meets occupied buckets, decays, takeovers, slots opened and a clock
/// stepped back.
#[test]
fn a_stream_leaves_the_bytes_every_version_leaves() {
    let mut rng = Rng::new(21);
    let mut sketch = topk(10, 40, Window::Time(400), 4, 0);
    let mut transcript = Vec::new();
    let mut now = 0;
    for _ in 0..5000 {
        now += rng.below(4);
        if rng.below(80) == 0 {
            now = now.saturating_sub(150);
        }
        let item = format!("i{}", rng.below(60) * rng.below(60) / 30);
        // Now and then a large increment: a takeover with units left counts at once.
        let most = if rng.below(10) == 0 { 40 } else { 4 };
        let increment = 1 + rng.below(most) as u32;
        let expelled = sketch.add(item.as_bytes(), increment, Some(now)).unwrap();
        transcript.extend_from_slice(expelled.as_ref().map_or(&b"-"[..], |e| e.item()));
        transcript.push(b';');
    }
    let replies = fnv(FNV_OFFSET, &transcript);
    let bytes = fnv(FNV_OFFSET, &saved(&sketch));
    let pinned = (0x1e34_6fc3_f28f_315e, 0x4be4_1a5c_373e_c8eb);
    assert_eq!((replies, bytes), pinned, "{replies:#x} {bytes:#x}");
}
