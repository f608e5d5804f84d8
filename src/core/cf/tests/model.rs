//! A naive model, written straight from the algorithm's description (buckets as vectors),
//! run side by side with the filter over random operation sequences; and a multiset model
//! for what no Cuckoo filter may lose.

use std::collections::HashMap;

use super::{bounded, params, scandump_walk, BOUND};
use crate::core::cf::encoding::{self, decode_header};
use crate::core::cf::{CuckooFilter, ItemHash, Params};
use crate::core::testing::Rng;
use crate::core::{Error, Memory, EAGER};

struct Model {
    base: u64,
    bucket_size: usize,
    max_iterations: u16,
    expansion: u64,
    items: u64,
    deletes: u64,
    /// Sub-filter → bucket → slots.
    subs: Vec<Vec<Vec<u8>>>,
}

fn alt(fp: u8, index: u64) -> u64 {
    index ^ (u64::from(fp) * 0x5bd1_e995)
}

impl Model {
    fn new(p: Params) -> Model {
        let base = (p.capacity / u64::from(p.bucket_size))
            .max(1)
            .next_power_of_two();
        let expansion = if p.expansion == 0 {
            0
        } else {
            u64::from(p.expansion).next_power_of_two()
        };
        let bucket_size = usize::from(p.bucket_size);
        Model {
            base,
            bucket_size,
            max_iterations: p.max_iterations,
            expansion,
            items: 0,
            deletes: 0,
            subs: vec![vec![vec![0; bucket_size]; base as usize]],
        }
    }

    fn hash(item: &[u8]) -> (u64, u8) {
        let h = crate::core::hash::murmur64a(item, 0);
        (h, (h % 255 + 1) as u8)
    }

    /// Both candidate buckets of a hash in a sub-filter of `n` buckets.
    fn buckets(h: u64, fp: u8, n: usize) -> [usize; 2] {
        let n = n as u64;
        [(h % n) as usize, (alt(fp, h) % n) as usize]
    }

    fn contains(&self, item: &[u8]) -> bool {
        let (h, fp) = Model::hash(item);
        self.subs.iter().any(|sub| {
            Model::buckets(h, fp, sub.len())
                .iter()
                .any(|&b| sub[b].contains(&fp))
        })
    }

    fn count(&self, item: &[u8]) -> u64 {
        let (h, fp) = Model::hash(item);
        let mut n = 0;
        for sub in &self.subs {
            for b in Model::buckets(h, fp, sub.len()) {
                n += sub[b].iter().filter(|&&s| s == fp).count() as u64;
            }
        }
        n
    }

    fn insert(&mut self, item: &[u8]) -> Result<(), Error> {
        let (h, fp) = Model::hash(item);
        loop {
            // 1. The first empty slot, newest sub-filter first, bucket h1 then h2.
            for sub in self.subs.iter_mut().rev() {
                for b in Model::buckets(h, fp, sub.len()) {
                    if let Some(slot) = sub[b].iter_mut().find(|s| **s == 0) {
                        *slot = fp;
                        self.items += 1;
                        return Ok(());
                    }
                }
            }
            // 2. Kick in the newest sub-filter.
            let bs = self.bucket_size;
            let sub = self.subs.last_mut().unwrap();
            let n = sub.len() as u64;
            let mut fp_in_hand = fp;
            let mut victim = 0;
            let mut b = h % n;
            for _ in 0..self.max_iterations {
                std::mem::swap(&mut sub[b as usize][victim], &mut fp_in_hand);
                b = alt(fp_in_hand, b) % n;
                if let Some(slot) = sub[b as usize].iter_mut().find(|s| **s == 0) {
                    *slot = fp_in_hand;
                    self.items += 1;
                    return Ok(());
                }
                victim = (victim + 1) % bs;
            }
            // 3. Roll back.
            for _ in 0..self.max_iterations {
                victim = (victim + bs - 1) % bs;
                b = alt(fp_in_hand, b) % n;
                std::mem::swap(&mut sub[b as usize][victim], &mut fp_in_hand);
            }
            assert_eq!(fp_in_hand, fp);
            // 4./5. Full, or grow and retry.
            if self.expansion == 0 {
                return Err(Error::Full);
            }
            let n = self.base * self.expansion.pow(self.subs.len() as u32);
            if n as usize * bs > BOUND {
                return Err(Error::CannotGrow);
            }
            self.subs.push(vec![vec![0; bs]; n as usize]);
        }
    }

    fn delete(&mut self, item: &[u8]) -> bool {
        let (h, fp) = Model::hash(item);
        for i in (0..self.subs.len()).rev() {
            for b in Model::buckets(h, fp, self.subs[i].len()) {
                if let Some(slot) = self.subs[i][b].iter_mut().find(|s| **s == fp) {
                    *slot = 0;
                    self.items -= 1;
                    self.deletes += 1;
                    if self.subs.len() > 1 && self.deletes as f64 > self.items as f64 * 0.10 {
                        self.compact(false);
                    }
                    return true;
                }
            }
        }
        false
    }

    fn compact(&mut self, keep_going: bool) {
        for i in (1..self.subs.len()).rev() {
            let mut emptied = true;
            for b in 0..self.subs[i].len() {
                for s in 0..self.bucket_size {
                    let fp = self.subs[i][b][s];
                    if fp == 0 {
                        continue;
                    }
                    let mut placed = false;
                    'older: for j in 0..i {
                        let n = self.subs[j].len() as u64;
                        for c in [b as u64 % n, alt(fp, b as u64) % n] {
                            if let Some(slot) =
                                self.subs[j][c as usize].iter_mut().find(|s| **s == 0)
                            {
                                *slot = fp;
                                placed = true;
                                break 'older;
                            }
                        }
                    }
                    if placed {
                        self.subs[i][b][s] = 0;
                    } else {
                        emptied = false;
                    }
                }
            }
            if emptied && i == self.subs.len() - 1 {
                self.subs.pop();
            }
            if !emptied && !keep_going {
                break;
            }
        }
        self.deletes = 0;
    }

    /// Asserts that `f` holds exactly this state.
    fn assert_same(&self, f: &CuckooFilter, context: &str) {
        assert_eq!(
            (f.items(), f.deletes(), usize::from(f.num_filters())),
            (self.items, self.deletes, self.subs.len()),
            "{context}"
        );
        for (i, ((n, data), sub)) in f.sub_filters().zip(&self.subs).enumerate() {
            assert_eq!(n, sub.len() as u64, "{context}: sub-filter {i} buckets");
            let same = data
                .chunks_exact(self.bucket_size)
                .eq(sub.iter().map(Vec::as_slice));
            assert!(same, "{context}: sub-filter {i} bytes");
        }
        let slots: usize = self
            .subs
            .iter()
            .map(|sub| sub.len() * self.bucket_size)
            .sum();
        assert_eq!(f.slots(), slots as u64, "{context}: slots kept");
    }
}

/// Small random parameters: tiny filters, every bucket size, short kick chains and every
/// kind of expansion, so that filters fill, kick and grow within a few hundred operations.
fn random_params(g: &mut Rng) -> Params {
    params(
        g.below(64),
        1 + g.below(8) as u16,
        1 + g.below(50) as u16,
        g.below(5) as u16,
    )
}

#[test]
fn the_filter_matches_the_naive_model_byte_for_byte() {
    let mut operations = 0;
    for seed in 0..3000 {
        let mut g = Rng::new(1_000_000 + seed);
        let p = random_params(&mut g);
        let pool = 1 + g.below(120);
        let ops = 50 + g.below(250);
        let mut f = CuckooFilter::new(p, &EAGER).unwrap();
        let mut m = Model::new(p);
        for step in 0..ops {
            let item = format!("i{}", g.below(pool));
            let item = item.as_bytes();
            let h = ItemHash::of(item);
            let context = format!("seed {seed} step {step} {p:?}");
            match g.below(100) {
                0..40 => assert_eq!(
                    f.insert(
                        &h,
                        &Memory {
                            zeroed: bounded,
                            ..EAGER
                        }
                    ),
                    m.insert(item),
                    "{context}"
                ),
                40..50 => {
                    let expected = if m.contains(item) {
                        Ok(false)
                    } else {
                        m.insert(item).map(|()| true)
                    };
                    assert_eq!(
                        f.insert_if_absent(
                            &h,
                            &Memory {
                                zeroed: bounded,
                                ..EAGER
                            }
                        ),
                        expected,
                        "{context}"
                    );
                }
                50..75 => assert_eq!(f.delete(&h), m.delete(item), "{context}"),
                75..85 => assert_eq!(f.count(&h), m.count(item), "{context}"),
                85..92 => assert_eq!(f.contains(&h), m.contains(item), "{context}"),
                92..95 => {
                    // The whole pool in one CF.MEXISTS: batches, and their last one short.
                    let pool: Vec<Vec<u8>> =
                        (0..pool).map(|i| format!("i{i}").into_bytes()).collect();
                    let mut answers = Vec::new();
                    f.contains_each(pool.iter().map(Vec::as_slice), |found| answers.push(found));
                    let expected: Vec<bool> = pool.iter().map(|item| m.contains(item)).collect();
                    assert_eq!(answers, expected, "{context}");
                }
                95..98 => {
                    f.compact();
                    m.compact(true);
                }
                _ => {
                    // Round trips through SCANDUMP and RDB give the same filter.
                    if f.items() > 0 {
                        assert_eq!(scandump_round_trip(&f), f, "{context}");
                    }
                    assert_eq!(rdb_round_trip(&f), f, "{context}");
                    assert_eq!(f.try_clone(&EAGER).unwrap(), f, "{context}");
                }
            }
            m.assert_same(&f, &context);
            operations += 1;
        }
    }
    assert!(operations > 400_000);
}

fn scandump_round_trip(f: &CuckooFilter) -> CuckooFilter {
    let walk = scandump_walk(f);
    let (first, chunks) = walk.split_first().unwrap();
    assert_eq!(first.0, 1);
    let mut copy = decode_header(&first.1, 255, &EAGER).unwrap();
    for (cursor, data) in chunks {
        encoding::load_chunk(&mut copy, *cursor, data).unwrap();
    }
    copy
}

fn rdb_round_trip(f: &CuckooFilter) -> CuckooFilter {
    let subs = f.sub_filters().map(|(n, d)| (n, d.to_vec())).collect();
    CuckooFilter::from_saved(f.saved_header(), subs).unwrap()
}

#[test]
fn no_false_negatives_and_counts_cover_multiplicity() {
    for seed in 0..400 {
        let mut g = Rng::new(7_000_000 + seed);
        let p = random_params(&mut g);
        let pool = 1 + g.below(200);
        let mut f = CuckooFilter::new(p, &EAGER).unwrap();
        let mut present: HashMap<String, u64> = HashMap::new();
        for step in 0..400 {
            let item = format!("m{}", g.below(pool));
            let h = ItemHash::of(item.as_bytes());
            let context = format!("seed {seed} step {step} {p:?}");
            match g.below(10) {
                0..6 => match f.insert(
                    &h,
                    &Memory {
                        zeroed: bounded,
                        ..EAGER
                    },
                ) {
                    Ok(()) => *present.entry(item).or_default() += 1,
                    Err(Error::Full) => assert_eq!(p.expansion, 0, "{context}"),
                    Err(e) => assert_eq!(e, Error::CannotGrow, "{context}"),
                },
                6..9 => {
                    // Only items known to be present: deleting others may take their
                    // fingerprint-twins' slots, as in every Cuckoo filter.
                    if let Some(n) = present.get_mut(&item).filter(|n| **n > 0) {
                        assert!(f.delete(&h), "{context}");
                        *n -= 1;
                    }
                }
                _ => f.compact(),
            }
            for (item, &n) in &present {
                let h = ItemHash::of(item.as_bytes());
                assert!(n == 0 || f.contains(&h), "{context}: {item} lost");
                assert!(f.count(&h) >= n, "{context}: {item} under-counted");
            }
            assert_eq!(f.items(), present.values().sum::<u64>(), "{context}");
        }
    }
}
