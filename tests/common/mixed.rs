//! A random stream of writes of every family — Bloom filters that scale, filters that forget (by
//! count, and by time where the stream may read the clock), Cuckoo filters that expand and
//! delete, Count-Min sketches that merge, Top-Ks that decay, both also forgetting (likewise),
//! t-digests that merge and compress on reads — for the tests that check a stream leaves the same bytes everywhere: replicas, AOF
//! replays, restarts after a crash. [`Stream::send`] pipelines it and checks every reply.

use std::collections::BTreeMap;

use super::*;

/// Keys per family: few enough that each key takes thousands of writes.
const KEYS: u64 = 8;

/// The errors a random stream meets by design: a write to a key of the family that does not
/// exist yet, a creation where the key exists, a Cuckoo filter out of expansions, and merges
/// that merge their own results until a count would overflow.
const EXPECTED_ERRORS: &[&str] = &[
    "Filter is full",
    "Not found",
    "Cuckoo filter was not found",
    "ERR item exists",
    "CMS: key does not exist",
    "CMS: key already exists",
    "TopK: key does not exist",
    "TopK: key already exists",
    "ERR T-Digest: key does not exist",
    "ERR T-Digest: key already exists",
    "ERR T-Digest: overflow detected",
    "CMS: MERGE overflow",
    "CMS: sketches of different windows cannot be merged",
    "CMS: sketches that forget by count cannot be merged",
];

/// Every key name a stream may write.
pub fn all_keys() -> Vec<String> {
    ["bf", "win", "tw", "cf", "cms", "topk", "td"]
        .iter()
        .flat_map(|family| (0..KEYS).map(move |n| format!("{family}{n}")))
        .collect()
}

/// Key `n` of `family`, with its pair's hash tag in a tagged stream ([`Stream::tagged`]).
fn key_name(tagged: bool, family: &str, n: u64) -> String {
    if tagged {
        format!("{{g{}}}{family}{n}", n / 2)
    } else {
        format!("{family}{n}")
    }
}

/// What a stream may draw on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Time windows and TTLs: for streams whose every copy is made from the commands one
    /// server accepted (replicas, its AOF), which carry its clock.
    Read,
    /// Nothing that depends on when a command runs: for streams run again from scratch on
    /// another server, whose clock differs.
    Ignored,
}

/// A creation's window options: in `sparing + 1` creations, one a count window, one a count
/// window or (where the stream may read the clock) a time window of 400 ms, the others none.
fn window_options(rng: &mut Rng, clock: Clock, sparing: u64) -> Vec<String> {
    let options: &[&str] = match rng.below(sparing + 1) {
        0 => &["WINDOW", "300", "SLOTS", "3"],
        1 if clock == Clock::Read => &["TIMESPAN", "400", "SLOTS", "2"],
        1 => &["WINDOW", "50"],
        _ => &[],
    };
    options.iter().map(|w| w.to_string()).collect()
}

/// A seeded stream of writes.
pub struct Stream {
    rng: Rng,
    clock: Clock,
    /// Whether its keys carry hash tags, for a cluster ([`Stream::tagged`]).
    tagged: bool,
}

impl Stream {
    pub fn new(seed: u64, clock: Clock) -> Stream {
        Stream {
            rng: Rng(seed),
            clock,
            tagged: false,
        }
    }

    /// The same stream over keys spread across a cluster's slots: key `n` of a family is
    /// `{g<n/2>}<family><n>`, and a merge draws its sources from its destination's pair, so
    /// every command's keys share a slot.
    pub fn tagged(seed: u64, clock: Clock) -> Stream {
        Stream {
            tagged: true,
            ..Stream::new(seed, clock)
        }
    }

    /// The next write.
    pub fn next_write(&mut self) -> Vec<String> {
        let tagged = self.tagged;
        let name = move |family: &str, n: u64| key_name(tagged, family, n);
        let rng = &mut self.rng;
        let key = |rng: &mut Rng, family: &str| name(family, rng.below(KEYS));
        // A merge's destination and sources: in a tagged stream, the sources of the
        // destination's pair.
        let merge_keys = |rng: &mut Rng, family: &str| {
            let sources = [rng.below(KEYS), rng.below(KEYS)];
            let destination = rng.below(KEYS);
            let paired = |n: u64| {
                if tagged {
                    destination / 2 * 2 + n % 2
                } else {
                    n
                }
            };
            let [a, b] = sources.map(|n| name(family, paired(n)));
            [name(family, destination), a, b]
        };
        let item = |rng: &mut Rng, pool: u64| format!("i{}", rng.below(pool));
        let words = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let mut cmd = match rng.below(100) {
            0..=11 => words(&["BF.ADD", &key(rng, "bf"), &item(rng, 1 << 40)]),
            12..=14 => words(&["BF.INSERT", &key(rng, "bf"), "CAPACITY", "50", "ITEMS"]),
            15..=16 => words(&["BF.RESERVE", &key(rng, "win"), "0.01", "200", "WINDOW"]),
            17..=22 => words(&["BF.ADD", &key(rng, "win"), &item(rng, 5000)]),
            23..=24 if self.clock == Clock::Read => {
                words(&["BF.INSERT", &key(rng, "tw"), "TIMESPAN", "400", "ITEMS"])
            }
            23..=24 => words(&["BF.EXISTS", &key(rng, "win"), &item(rng, 5000)]),
            25..=36 => words(&["CF.ADD", &key(rng, "cf"), &item(rng, 3000)]),
            37..=38 => words(&["CF.RESERVE", &key(rng, "cf"), "200", "EXPANSION", "2"]),
            39..=45 => words(&["CF.DEL", &key(rng, "cf"), &item(rng, 3000)]),
            46 => words(&["CF.COMPACT", &key(rng, "cf")]),
            47..=48 => {
                let mut c = words(&["CMS.INITBYDIM", &key(rng, "cms"), "200", "5"]);
                c.extend(window_options(rng, self.clock, 3));
                c
            }
            49..=58 => {
                let mut c = words(&["CMS.INCRBY", &key(rng, "cms")]);
                for _ in 0..1 + rng.below(3) {
                    c.push(item(rng, 2000));
                    c.push((1 + rng.below(5)).to_string());
                }
                c
            }
            59 => {
                let [destination, a, b] = merge_keys(rng, "cms");
                words(&["CMS.MERGE", &destination, "2", &a, &b])
            }
            60..=61 => {
                let mut c = words(&["TOPK.RESERVE", &key(rng, "topk"), "10", "50", "4", "0.9"]);
                c.extend(window_options(rng, self.clock, 2));
                c
            }
            62..=73 => {
                let mut c = words(&["TOPK.ADD", &key(rng, "topk")]);
                c.extend((0..1 + rng.below(4)).map(|_| item(rng, 500)));
                c
            }
            74..=75 => {
                let topk = key(rng, "topk");
                words(&["TOPK.INCRBY", &topk, &item(rng, 500), "3"])
            }
            76..=77 => words(&["TDIGEST.CREATE", &key(rng, "td"), "COMPRESSION", "50"]),
            78..=89 => {
                let mut c = words(&["TDIGEST.ADD", &key(rng, "td")]);
                c.extend((0..1 + rng.below(8)).map(|_| rng.below(100_000).to_string()));
                c
            }
            // A read that compresses a buffered digest in place, which is replicated.
            90..=91 => words(&["TDIGEST.QUANTILE", &key(rng, "td"), "0.5", "0.99"]),
            92 => {
                let [destination, a, b] = merge_keys(rng, "td");
                words(&["TDIGEST.MERGE", &destination, "2", &a, &b])
            }
            93 => {
                let families = ["bf", "win", "cf", "cms", "topk", "td"];
                let family = families[rng.below(families.len() as u64) as usize];
                words(&["DEL", &key(rng, family)])
            }
            _ if self.clock == Clock::Read => {
                let families = ["bf", "tw", "cf", "cms", "topk", "td"];
                let family = families[rng.below(families.len() as u64) as usize];
                // Most TTLs outlive the test (replicas and AOFs keep the absolute time); some
                // fire during it (the primary propagates the expiry).
                let ms = if rng.below(4) == 0 {
                    200 + rng.below(1300)
                } else {
                    3_600_000
                };
                words(&["PEXPIRE", &key(rng, family), &ms.to_string()])
            }
            _ => words(&["TOPK.QUERY", &key(rng, "topk"), &item(rng, 500)]),
        };
        if cmd.last().is_some_and(|arg| arg == "ITEMS") {
            cmd.extend((0..1 + rng.below(4)).map(|_| item(rng, 1 << 40)));
        }
        cmd
    }

    /// Sends `writes` writes to `c`, pipelined, and checks each reply: an error only where the
    /// stream expects one. Returns how many were refused.
    pub fn send(&mut self, c: &mut Conn, writes: usize) -> usize {
        let mut refused = 0;
        let mut left = writes;
        while left > 0 {
            let batch: Vec<Vec<String>> = (0..left.min(500)).map(|_| self.next_write()).collect();
            for cmd in &batch {
                c.send(&cmd.iter().map(|a| a.as_bytes()).collect::<Vec<_>>());
            }
            for cmd in &batch {
                refused += usize::from(expected_reply(cmd, c.read()));
            }
            left -= batch.len();
        }
        refused
    }
}

/// Whether `reply` to `cmd` is an error the stream expects (true), or no error (false); any
/// other error fails the test.
pub fn expected_reply(cmd: &[String], reply: Value) -> bool {
    match reply {
        Value::Error(e) if EXPECTED_ERRORS.contains(&e.as_str()) => true,
        Value::Error(e) => panic!("{cmd:?}: {e}"),
        _ => false,
    }
}

/// Every key with its DUMP payload, its absolute expire time and its DEBUG DIGEST-VALUE,
/// after the whole database's digest.
pub fn snapshot(c: &mut Conn) -> Snapshot {
    let mut keys: Vec<String> = c.cmd("KEYS *").array().iter().map(Value::text).collect();
    keys.sort();
    let each = keys
        .into_iter()
        .map(|key| {
            let dump = c.call(&["DUMP", &key]).bulk();
            let expires = c.call(&["PTTL", &key]);
            let expires = if expires == int(-1) {
                expires
            } else {
                c.call(&["PEXPIRETIME", &key])
            };
            let digest = c.call(&["DEBUG", "DIGEST-VALUE", &key]);
            (key, (dump, expires, digest))
        })
        .collect();
    (c.cmd("DEBUG DIGEST"), each)
}

/// What a database holds: its digest, and each key's DUMP payload, expire time and digest.
pub type Snapshot = (Value, BTreeMap<String, (Vec<u8>, Value, Value)>);

/// Fails with the keys that differ between `found` and `expected`, if any.
pub fn assert_same(what: &str, found: &Snapshot, expected: &Snapshot) {
    if found == expected {
        return;
    }
    let mut differ: Vec<String> = Vec::new();
    for (key, value) in &expected.1 {
        match found.1.get(key) {
            None => differ.push(format!("{key}: missing")),
            Some(other) if other != value => differ.push(format!(
                "{key}: expire {:?}, digest {:?}, expected {:?}, {:?}, DUMP {}",
                other.1,
                other.2,
                value.1,
                value.2,
                if other.0 == value.0 {
                    "equal"
                } else {
                    "differs"
                }
            )),
            Some(_) => {}
        }
    }
    differ.extend(
        found
            .1
            .keys()
            .filter(|k| !expected.1.contains_key(*k))
            .map(|k| format!("{k}: extra")),
    );
    panic!(
        "{what}: {} keys differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// A snapshot without its digests: what the values save (DUMP) and their expire times. A
/// replica's own snapshot holds a t-digest's merged centroids rather than its buffer
/// (docs/tdigest.md): the same DUMP and answers, another `DEBUG DIGEST-VALUE`.
pub fn saved(snapshot: &Snapshot) -> Snapshot {
    let keys = snapshot
        .1
        .iter()
        .map(|(key, (dump, expires, _))| {
            (key.clone(), (dump.clone(), expires.clone(), Value::Null))
        })
        .collect();
    (Value::Null, keys)
}
