//! Helpers for the t-digest suites: doubles as the server prints them, digests of every shape,
//! and what a digest answers.

use super::{ok, Conn, Value};

/// A double as the server prints one (`%.17g` on Redis 7.0, the shortest round trip later;
/// `inf`, `-inf`, `nan`, `-nan`), from a RESP2 bulk string or a RESP3 double.
pub fn double(v: &Value) -> f64 {
    let text = match v {
        Value::Bulk(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        Value::Double(text) => text.clone(),
        other => panic!("expected a double, got {other:?}"),
    };
    match text.as_str() {
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        "nan" | "-nan" => f64::NAN,
        _ => text
            .parse()
            .unwrap_or_else(|_| panic!("not a double: {text}")),
    }
}

/// The doubles of an array reply.
pub fn doubles(v: &Value) -> Vec<f64> {
    v.array().iter().map(double).collect()
}

/// Runs `command` with `values` after it (`TDIGEST.ADD k` and numbers).
pub fn with_values(c: &mut Conn, command: &str, values: impl IntoIterator<Item = f64>) -> Value {
    let mut args: Vec<String> = command.split(' ').map(String::from).collect();
    args.extend(values.into_iter().map(|v| format!("{v:e}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    c.call(&args)
}

/// Digests of every shape, made by the same commands on any server: a buffer of unmerged
/// values, centroids only, empty, one observation, signed zero, a merge of others (a buffer of
/// weighted centroids), one compressed by reads between its writes.
pub fn populate(c: &mut Conn) -> Vec<&'static str> {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 100_000) as f64 / 100.0
    };
    assert_eq!(c.cmd("TDIGEST.CREATE buffered COMPRESSION 50"), ok());
    assert_eq!(
        with_values(c, "TDIGEST.ADD buffered", (0..250).map(|_| next())),
        ok()
    );
    assert_eq!(c.cmd("TDIGEST.CREATE merged COMPRESSION 20"), ok());
    assert_eq!(
        with_values(c, "TDIGEST.ADD merged", (0..1000).map(|_| next())),
        ok()
    );
    c.cmd("TDIGEST.QUANTILE merged 0.5");
    c.cmd("TDIGEST.CREATE empty");
    c.cmd("TDIGEST.CREATE single COMPRESSION 7");
    c.cmd("TDIGEST.ADD single 42.5");
    c.cmd("TDIGEST.CREATE zeros COMPRESSION 3");
    c.cmd("TDIGEST.ADD zeros -0 0 -0 0 1 -1");
    c.cmd("TDIGEST.MERGE union 3 buffered merged single COMPRESSION 30");
    c.cmd("TDIGEST.CREATE read COMPRESSION 5");
    for round in 0..20 {
        with_values(c, "TDIGEST.ADD read", (0..7).map(|_| next()));
        if round % 3 == 0 {
            c.cmd("TDIGEST.CDF read 300");
        }
    }
    vec![
        "buffered", "merged", "empty", "single", "zeros", "union", "read",
    ]
}

/// What a digest answers to every read that does not compress it, then to those that do (so
/// calling this may compress the digest, as RedisBloom's reads do).
pub fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    let mut seen = vec![c.call(&["TDIGEST.MIN", key]), c.call(&["TDIGEST.MAX", key])];
    for command in [
        "TDIGEST.QUANTILE {} 0 0.01 0.1 0.25 0.5 0.75 0.9 0.99 1 0.3 0.2",
        "TDIGEST.CDF {} -1 0 1 10 100 250.5 500 999.99 inf -inf",
        "TDIGEST.RANK {} -1 0 1 10 100 250.5 500 999.99",
        "TDIGEST.REVRANK {} -1 0 1 10 100 250.5 500 999.99",
        "TDIGEST.BYRANK {} 0 1 2 5 10 100 500 1000 2000",
        "TDIGEST.BYREVRANK {} 0 1 2 5 10 100 500 1000 2000",
        "TDIGEST.TRIMMED_MEAN {} 0.1 0.9",
        "TDIGEST.TRIMMED_MEAN {} 0 1",
    ] {
        let line = command.replace("{}", key);
        let args: Vec<&str> = line.split(' ').collect();
        seen.push(c.call(&args));
    }
    seen
}

/// TDIGEST.INFO as (name, value) pairs, whichever protocol.
pub fn info(c: &mut Conn, key: &str) -> Vec<(String, i64)> {
    match c.call(&["TDIGEST.INFO", key]) {
        Value::Map(pairs) => pairs.iter().map(|(k, v)| (k.text(), v.int())).collect(),
        Value::Array(items) => items
            .chunks(2)
            .map(|pair| (pair[0].text(), pair[1].int()))
            .collect(),
        other => panic!("TDIGEST.INFO {key}: {other:?}"),
    }
}

/// One field of TDIGEST.INFO.
pub fn info_of(c: &mut Conn, key: &str, field: &str) -> i64 {
    info(c, key)
        .into_iter()
        .find(|(name, _)| name == field)
        .unwrap_or_else(|| panic!("no {field} in TDIGEST.INFO {key}"))
        .1
}
