//! valkey-bloom filter helpers: filters built by the same commands on redis-bf and on
//! valkey-bloom (started with `bf.bloom-use-random-seed no`, so that filters made without a
//! `SEED` share its fixed seed), and what a filter answers.

use super::{Conn, Value};

/// valkey-bloom's fixed seed.
pub const FIXED_SEED: [u8; 32] = [
    89, 15, 245, 34, 234, 120, 17, 218, 167, 20, 216, 9, 59, 62, 123, 217, 29, 137, 138, 115, 62,
    152, 136, 135, 48, 127, 151, 205, 40, 7, 51, 131,
];

/// The golden filter's `BF.LOAD` payload (tests/data/valkey-bloom).
pub fn golden_payload() -> Vec<u8> {
    unhex(include_str!("../data/valkey-bloom/g.payload.hex"))
}

/// The golden filter's `DUMP` payload, as Valkey 9 frames it.
pub fn golden_dump() -> Vec<u8> {
    unhex(include_str!("../data/valkey-bloom/g.dump.hex"))
}

fn unhex(text: &str) -> Vec<u8> {
    let text = text.trim();
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// `BF.INSERT key <options> ITEMS <items>` through `c`.
fn insert(c: &mut Conn, key: &str, options: &[&[u8]], items: &[Vec<u8>]) {
    let mut args: Vec<&[u8]> = vec![b"BF.INSERT", key.as_bytes()];
    args.extend_from_slice(options);
    if !items.is_empty() {
        args.push(b"ITEMS");
        args.extend(items.iter().map(Vec::as_slice));
    }
    c.call_bytes(&args);
}

fn items(prefix: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("{prefix}{i}").into_bytes())
        .collect()
}

/// Filters of every shape valkey-bloom makes: scaled with its fixed seed, tightened and
/// expanded under a given seed, non-scaling, empty, with binary items; their keys.
pub fn build(c: &mut Conn) -> Vec<&'static str> {
    let seed: Vec<u8> = (0..32u8).map(|b| b.wrapping_mul(37)).collect();
    let fixed: &[u8] = &FIXED_SEED;
    insert(
        c,
        "scaled",
        &[b"CAPACITY", b"10", b"SEED", fixed],
        &items("item", 60),
    );
    let tight: &[&[u8]] = &[
        b"CAPACITY",
        b"50",
        b"ERROR",
        b"0.001",
        b"TIGHTENING",
        b"0.25",
        b"EXPANSION",
        b"4",
        b"SEED",
        &seed,
    ];
    insert(c, "tight", tight, &items("t", 400));
    let nonscaling: &[&[u8]] = &[b"NONSCALING", b"CAPACITY", b"100", b"TIGHTENING", b"0.5"];
    insert(c, "nonscaling", nonscaling, &items("n", 80));
    insert(c, "empty", &[b"CAPACITY", b"1000", b"SEED", &seed], &[]);
    let binary = vec![Vec::new(), b"\x00\xff\r\n".to_vec(), vec![0; 100]];
    insert(
        c,
        "binary",
        &[b"TIGHTENING", b"0.9", b"SEED", fixed],
        &binary,
    );
    vec!["scaled", "tight", "nonscaling", "empty", "binary"]
}

/// What a filter answers: BF.INFO, BF.CARD, and BF.MEXISTS of its items and of strangers.
pub fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    let mut exists = vec![b"BF.MEXISTS".to_vec(), key.as_bytes().to_vec()];
    for prefix in ["item", "t", "n", "stranger"] {
        exists.extend(items(prefix, 120));
    }
    exists.extend([Vec::new(), b"\x00\xff\r\n".to_vec(), vec![0; 100]]);
    let exists: Vec<&[u8]> = exists.iter().map(Vec::as_slice).collect();
    vec![
        c.call(&["BF.INFO", key]),
        c.call(&["BF.CARD", key]),
        c.call_bytes(&exists),
    ]
}
