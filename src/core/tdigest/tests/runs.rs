//! The random command streams of `capture.py`, drawn the same way, run on this module's
//! digests as RedisBloom's primary runs them (reads and DUMP compress in place after
//! answering), and written into the same transcript.

use std::collections::BTreeMap;

use super::scenarios::{dump_payload, restore};
use crate::core::tdigest::{merge_compression, Order, Ranks, TDigest};
use crate::core::testing::{payload_fields, Rng};
use crate::core::EAGER;

const COMPRESSIONS: [i64; 10] = [1, 2, 3, 5, 10, 20, 50, 100, 200, 500];
const SPECIAL: [f64; 8] = [0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 5e-324, 2.5];
const QUANTILES: [f64; 11] = [
    0.0, 1.0, 0.5, 0.25, 0.75, 0.01, 0.99, 0.001, 0.999, 0.1, 0.9,
];
const KEYS: [&str; 4] = ["a", "b", "c", "d"];

/// The draws `capture.py` makes from the generator beyond `next` and `below`.
trait Draws {
    fn pick<T: Copy>(&mut self, items: &[T]) -> T;
    fn unit(&mut self) -> f64;
    fn value(&mut self, kind: u64) -> f64;
    fn probe(&mut self, kind: u64) -> f64;
}

impl Draws for Rng {
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    fn value(&mut self, kind: u64) -> f64 {
        let kind = if kind == 4 { self.below(4) } else { kind };
        match kind {
            0 => self.below(12) as f64 - 4.0,
            1 => self.unit() * 1000.0 - 500.0,
            2 => self.unit() * self.unit() * self.unit() * 1e6,
            _ => self.pick(&SPECIAL),
        }
    }

    fn probe(&mut self, kind: u64) -> f64 {
        if self.below(10) == 0 {
            self.pick(&[f64::INFINITY, f64::NEG_INFINITY])
        } else {
            self.value(kind)
        }
    }
}

/// Bytes as the transcripts show them: Python's `bytes.hex()`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn bits(x: f64) -> String {
    if x.is_nan() {
        "nan".to_string()
    } else {
        format!("{:016x}", x.to_bits())
    }
}

fn list<T>(items: &[T], show: impl Fn(&T) -> String) -> String {
    let shown: Vec<String> = items.iter().map(show).collect();
    format!("[{}]", shown.join(","))
}

/// Doubles as the transcripts list them: their bits, which compare equal where the doubles are
/// NaN.
pub fn bits_list(values: &[f64]) -> String {
    list(values, |&x| bits(x))
}

/// Reads twice — from the view, and after the in-place compression RedisBloom runs — and
/// checks that both agree.
fn read_both<T: PartialEq + std::fmt::Debug>(
    digest: &mut TDigest,
    compresses: bool,
    read: impl Fn(&TDigest) -> T,
) -> T {
    let before = read(digest);
    if compresses {
        digest.compress();
        assert!(!digest.has_buffer() || digest.size() <= 1);
        assert_eq!(
            read(digest),
            before,
            "the same answer after compressing in place"
        );
    }
    before
}

/// Every rank of `ranks`: the tests' reader of [`TDigest::ranks`].
pub fn all_ranks(ranks: Ranks) -> Vec<i64> {
    ranks.collect()
}

/// The fields of `digest`'s `DUMP` payload, as `capture.py` prints them; checks that loading
/// the payload gives back the compressed digest, which saves to the same payload.
fn dump(digest: &TDigest) -> Vec<u8> {
    let payload = dump_payload(digest);
    let loaded = restore(&payload);
    assert_eq!(dump_payload(&loaded), payload);
    let merged = digest.merged_view().unwrap();
    if merged.size() > 1 {
        assert_eq!(&loaded, &*merged);
    }
    payload_fields(&payload).to_vec()
}

/// The transcript of run `seed`, as `capture.py` writes it.
pub fn random_run(seed: u64) -> String {
    let mut g = Rng::new(seed);
    let mut keys: BTreeMap<&str, TDigest> = BTreeMap::new();
    let mut exists: Vec<&str> = Vec::new();
    let mut out = String::new();
    let mut line = |label: &str, key: &str, reply: String| {
        out += &format!("{label} {key}: {reply}\n");
    };
    for key in &KEYS[..3] {
        let compression = g.pick(&COMPRESSIONS);
        keys.insert(key, TDigest::new(compression, &EAGER).unwrap());
        exists.push(key);
        line("CREATE", key, "OK".into());
    }
    let kind = g.below(5);
    for _ in 0..40 + g.below(120) {
        let op = g.below(100);
        let key = g.pick(&exists);
        let digest = keys.get_mut(key).unwrap();
        match op {
            0..35 => {
                let n = if g.below(10) == 0 {
                    1 + g.below(600)
                } else {
                    1 + g.below(40)
                };
                let values: Vec<f64> = (0..n).map(|_| g.value(kind)).collect();
                let added = values.iter().try_for_each(|&v| digest.add(v));
                let reply = match added {
                    Ok(()) => "OK".into(),
                    Err(_) => "!ERR T-Digest: overflow detected".into(),
                };
                line("ADD", key, reply);
            }
            35..45 => {
                let qs: Vec<f64> = (0..1 + g.below(6))
                    .map(|_| {
                        if g.below(2) == 0 {
                            g.below(1001) as f64 / 1000.0
                        } else {
                            g.pick(&QUANTILES)
                        }
                    })
                    .collect();
                let got = read_both(digest, true, |d| bits_list(&d.quantiles(&qs).unwrap()));
                line("QUANTILE", key, got);
            }
            45..52 => {
                let xs: Vec<f64> = (0..1 + g.below(5)).map(|_| g.probe(kind)).collect();
                let got = read_both(digest, true, |d| bits_list(&d.cdfs(&xs).unwrap()));
                line("CDF", key, got);
            }
            52..64 => {
                let (label, order) = if op < 58 {
                    ("RANK", Order::Ascending)
                } else {
                    ("REVRANK", Order::Descending)
                };
                let xs: Vec<f64> = (0..1 + g.below(5)).map(|_| g.probe(kind)).collect();
                let compresses = digest.ranks_compress(&xs);
                let got = read_both(digest, compresses, |d| {
                    d.ranks(&xs, order, all_ranks).unwrap()
                });
                line(label, key, list(&got, |r| r.to_string()));
            }
            64..75 => {
                let (label, order) = if op < 70 {
                    ("BYRANK", Order::Ascending)
                } else {
                    ("BYREVRANK", Order::Descending)
                };
                let ranks: Vec<i64> = (0..1 + g.below(5))
                    .map(|_| {
                        if g.below(4) == 0 {
                            0
                        } else {
                            g.below(2000) as i64
                        }
                    })
                    .collect();
                let compresses = digest.by_ranks_compress(&ranks);
                let got = read_both(digest, compresses, |d| {
                    bits_list(&d.by_ranks(&ranks, order).unwrap())
                });
                line(label, key, got);
            }
            75..80 => {
                let low = g.below(1000);
                let high = low + 1 + g.below(1000 - low);
                let (low, high) = (low as f64 / 1000.0, high as f64 / 1000.0);
                let got = read_both(digest, true, |d| bits(d.trimmed_mean(low, high).unwrap()));
                line("TRIMMED_MEAN", key, got);
            }
            80..84 => {
                line("MIN", key, bits(digest.min()));
                line("MAX", key, bits(digest.max()));
            }
            84..88 => {
                let i = digest.info();
                let fields = [
                    ("Compression", i.compression),
                    ("Capacity", i.capacity),
                    ("Merged nodes", i.merged_nodes),
                    ("Unmerged nodes", i.unmerged_nodes),
                    ("Merged weight", i.merged_weight),
                    ("Unmerged weight", i.unmerged_weight),
                    ("Observations", i.observations),
                    ("Total compressions", i.total_compressions),
                    ("Memory usage", i.memory_usage as i64),
                ];
                let shown: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                line("INFO", key, format!("{{{}}}", shown.join(",")));
            }
            88..94 => {
                let dest = g.pick(&KEYS);
                let sources: Vec<&str> = (0..1 + g.below(3)).map(|_| g.pick(&exists)).collect();
                let option = g.below(4);
                let given = (option & 1 == 1).then(|| g.pick(&COMPRESSIONS));
                let overriding = option & 2 == 2;
                let compression = merge_compression(
                    given,
                    overriding,
                    keys.get(dest),
                    sources.iter().map(|s| keys[s].compression()),
                );
                let mut merged = TDigest::new(compression, &EAGER).unwrap();
                if let Some(old) = keys.get_mut(dest).filter(|_| !overriding) {
                    let _ = merged.merge_from(old);
                }
                let result = sources
                    .iter()
                    .try_for_each(|s| merged.merge_from(keys.get_mut(s).unwrap()));
                let reply = match result {
                    Ok(()) => {
                        keys.insert(dest, merged);
                        "OK".into()
                    }
                    Err(_) => "!ERR T-Digest: overflow detected".into(),
                };
                if !exists.contains(&dest) {
                    exists.push(dest);
                }
                line("MERGE", dest, reply);
            }
            94..97 => {
                let bytes = dump(digest);
                digest.compress();
                line("DUMP", key, hex(&bytes));
            }
            _ => {
                digest.reset();
                line("RESET", key, "OK".into());
            }
        }
    }
    out
}
