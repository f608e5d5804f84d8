//! The t-digest's targets: RDB/DUMP payloads of `TDIS-TYPE`, and the TDIGEST.* argument
//! parsers.

use redis_bf::commands::tdigest::{
    parse_add, parse_byrank, parse_cdf, parse_create, parse_merge, parse_quantile, parse_rank,
    parse_trimmed_mean, DEFAULT_COMPRESSION,
};
use redis_bf::core::rdb::FieldWriter;
use redis_bf::core::tdigest::{rdb, Order, TDigest, EXACT_SIZE};

use super::args::reference::{string2d, string2ll};
use crate::dump::{self, Recording};
use crate::memory::{bounded, take_granted, LIMIT};

// ---------------------------------------------------------------------------------------
// t-digest: RDB / DUMP payloads.

/// A `DUMP` payload of RedisBloom's t-digest type, through `tdigest::rdb::load`: a digest that
/// loads saves the very fields it was read from, loads back equal, answers every read the same
/// from its view and after compressing in place, and takes values after.
pub fn tdigest_rdb(data: &[u8]) {
    let Some((module, reader)) = dump::open(data) else {
        return;
    };
    if &module.name != b"TDIS-TYPE" {
        return;
    }
    let mut input = Recording::new(reader);
    take_granted();
    let loaded = rdb::load(&mut input, module.encver, &bounded());
    let granted = take_granted();
    let Ok(mut digest) = loaded else {
        return;
    };
    assert!(digest.memory_usage() <= LIMIT && granted <= LIMIT);
    assert_eq!(
        saved(&digest),
        input.fields.0,
        "a loaded digest saves other fields than it was loaded from"
    );
    assert_eq!(
        reloaded(&digest),
        digest,
        "a saved digest loads back otherwise"
    );
    let probes = probes(data, &digest);
    let before = reads(&digest, &probes);
    let mut in_place = reloaded(&digest);
    assert_eq!(reads_in_place(&mut in_place, &probes), before);
    // A compression leaves no buffer, but for a total weight of at most 1, which it only sorts.
    assert!(!in_place.compress_changes() || in_place.size() <= 1);
    for &value in probes.iter().filter(|v| v.is_finite()) {
        let size = digest.size();
        if digest.add(value).is_ok() {
            // Exact up to 2⁵³ observations; past it an add that compresses rounds the count
            // to a double, as RedisBloom's does (regressions/tdigest_rdb/size-after-add-past-2-53).
            let drift = if size < EXACT_SIZE { 0 } else { size >> 51 };
            assert!(
                digest.size().abs_diff(size + 1) <= drift.unsigned_abs(),
                "{size} observations and one more made {}",
                digest.size()
            );
            assert!(digest.min() <= value && value <= digest.max());
        }
    }
    digest.compress();
    assert!(!digest.compress_changes() || digest.size() <= 1);
    assert_eq!(
        reloaded(&digest).info(),
        digest.merged_view().unwrap().info()
    );
}

fn saved(digest: &TDigest) -> Vec<u8> {
    let mut out = FieldWriter::default();
    rdb::save(digest, &mut out).expect("a digest within the bound saves");
    out.0
}

/// The digest loaded from what it saves.
fn reloaded(digest: &TDigest) -> TDigest {
    let module = dump::ModuleType {
        name: *b"TDIS-TYPE",
        encver: rdb::ENCODING_VERSION,
    };
    let payload = dump::payload(module, |out| {
        rdb::save(digest, out).expect("a digest within the bound saves")
    });
    let (_, mut reader) = dump::open(&payload).expect("a module payload");
    rdb::load(&mut reader, rdb::ENCODING_VERSION, &bounded()).expect("its own save loads")
}

/// Values to read at and add: the digest's own bounds and means, and some from the input.
fn probes(data: &[u8], digest: &TDigest) -> Vec<f64> {
    let (min, max) = digest.extremes();
    let mut probes = vec![min, max, 0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY];
    probes.extend(digest.nodes().0.iter().take(4));
    probes.extend(
        data.chunks_exact(8)
            .rev()
            .take(4)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .filter(|x| !x.is_nan()),
    );
    probes
}

/// Every read's answers, as bits (NaN equal to NaN).
fn reads(digest: &TDigest, probes: &[f64]) -> Vec<u64> {
    let quantiles = [0.0, 0.01, 0.5, 0.3, 0.99, 1.0];
    let ranks = [0, 1, 2, digest.size() / 2, digest.size()];
    // Ranks stay within the size where the weights add up to at most it; a file's weights past
    // 2⁵³ may pass its total (`core::tdigest::rdb`), and ranks then follow the weights.
    let weights = digest
        .nodes()
        .1
        .iter()
        .fold(0i64, |sum, &w| sum.saturating_add(w));
    let ranks_bounded = weights <= digest.size();
    let mut bits: Vec<u64> = Vec::new();
    bits.extend(
        digest
            .quantiles(&quantiles)
            .unwrap()
            .iter()
            .map(|x| x.to_bits()),
    );
    bits.extend(digest.cdfs(probes).unwrap().iter().map(|x| x.to_bits()));
    for order in [Order::Ascending, Order::Descending] {
        for rank in digest
            .ranks(probes, order, |ranks| ranks.collect::<Vec<_>>())
            .unwrap()
        {
            assert!(!ranks_bounded || rank == i64::MIN || (-2..=digest.size()).contains(&rank));
            bits.push(rank as u64);
        }
        let by = digest.by_ranks(&ranks, order).unwrap();
        bits.extend(by.iter().map(|x| x.to_bits()));
    }
    bits.push(digest.trimmed_mean(0.1, 0.9).unwrap().to_bits());
    bits
}

/// The same reads as a primary runs them, compressing in place where RedisBloom does.
fn reads_in_place(digest: &mut TDigest, probes: &[f64]) -> Vec<u64> {
    let quantiles = [0.0, 0.01, 0.5, 0.3, 0.99, 1.0];
    let ranks = [0, 1, 2, digest.size() / 2, digest.size()];
    let mut bits: Vec<u64> = Vec::new();
    let mut ranked = Vec::new();
    let mut by_ranked = Vec::new();
    for order in [Order::Ascending, Order::Descending] {
        ranked.push(
            digest
                .ranks_compressing(probes, order, |ranks| ranks.collect::<Vec<_>>())
                .unwrap(),
        );
        by_ranked.push(digest.by_ranks_compressing(&ranks, order).unwrap());
    }
    digest.compress();
    bits.extend(
        digest
            .quantiles(&quantiles)
            .unwrap()
            .iter()
            .map(|x| x.to_bits()),
    );
    bits.extend(digest.cdfs(probes).unwrap().iter().map(|x| x.to_bits()));
    for (ranks, by) in ranked.into_iter().zip(by_ranked) {
        bits.extend(ranks.iter().map(|&r| r as u64));
        bits.extend(by.iter().map(|x| x.to_bits()));
    }
    bits.push(digest.trimmed_mean(0.1, 0.9).unwrap().to_bits());
    bits
}

// ---------------------------------------------------------------------------------------
// t-digest: TDIGEST.* arguments.

/// A command line, one argument per line, through every TDIGEST.* parser, each result checked
/// against Redis's own number parsers.
pub fn tdigest_args(data: &[u8]) {
    let args: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    let rest = args.get(2..).unwrap_or_default();
    let keyword = |a: &[u8], word: &str| a.eq_ignore_ascii_case(word.as_bytes());
    if let Ok(compression) = parse_create(&args) {
        assert!(compression > 0);
        match args.len() {
            2 => assert_eq!(compression, DEFAULT_COMPRESSION),
            _ => {
                assert_eq!(args.len(), 4);
                assert!(keyword(args[2], "COMPRESSION") || keyword(args[3], "COMPRESSION"));
                assert_eq!(Some(compression), string2ll(args[3]));
            }
        }
    }
    if let Ok(merge) = parse_merge(&args) {
        assert!(merge.sources >= 1 && 3 + merge.sources <= args.len());
        assert_eq!(Some(merge.sources as i64), string2ll(args[2]));
        let options = &args[3 + merge.sources..];
        let at = options.iter().position(|a| keyword(a, "COMPRESSION"));
        assert_eq!(
            merge.compression,
            at.and_then(|at| string2ll(options[at + 1]))
        );
        assert!(merge.compression.is_none_or(|c| c > 0));
        assert_eq!(
            merge.overriding,
            options.iter().any(|a| keyword(a, "OVERRIDE"))
        );
    }
    let doubles: Vec<Option<f64>> = rest.iter().map(|a| string2d(a)).collect();
    let integers: Vec<Option<i64>> = rest.iter().map(|a| string2ll(a)).collect();
    let same = |got: &[f64]| {
        got.iter()
            .zip(&doubles)
            .all(|(x, d)| Some(x.to_bits()) == d.map(f64::to_bits))
    };
    if let Ok(values) = parse_add(rest) {
        assert!(same(&values) && values.iter().all(|v| v.is_finite()));
    } else {
        assert!(doubles.iter().any(|d| d.is_none_or(|d| !d.is_finite())));
    }
    if let Ok(quantiles) = parse_quantile(rest) {
        assert!(same(&quantiles) && quantiles.iter().all(|q| (0.0..=1.0).contains(q)));
    }
    for parsed in [parse_cdf(rest), parse_rank(rest)] {
        assert_eq!(parsed.is_ok(), doubles.iter().all(Option::is_some));
        if let Ok(values) = parsed {
            assert!(same(&values));
        }
    }
    match parse_byrank(rest) {
        Ok(ranks) => assert!(ranks
            .iter()
            .zip(&integers)
            .all(|(r, i)| *r >= 0 && Some(*r) == *i)),
        Err(_) => assert!(integers.iter().any(|i| i.is_none_or(|i| i < 0))),
    }
    if let [low, high] = rest {
        if let Ok((l, h)) = parse_trimmed_mean(low, high) {
            assert!(0.0 <= l && l < h && h <= 1.0);
        }
    }
}
