//! Creating and loading: sizes checked before allocating, every RDB field checked, hostile
//! input refused without a panic, and what loads saves back unchanged.

use super::scenarios::{dump_payload, restore};
use crate::core::le::LeReader;
use crate::core::rdb::{FieldWriter, RdbWrite};
use crate::core::tdigest::rdb::{load, save, ENCODING_VERSION};
use crate::core::tdigest::{AddError, Order, TDigest, MAX_COMPRESSION};
use crate::core::testing::eager_limited;
use crate::core::testing::{fields_of, payload_fields, unhex, DumpReader, Rng};
use crate::core::{Error, Memory, EAGER};

fn saved(digest: &TDigest) -> Vec<u8> {
    fields_of(|out| save(digest, out).unwrap())
}

fn loaded(bytes: &[u8]) -> Result<TDigest, Error> {
    load(&mut LeReader(bytes), ENCODING_VERSION, &EAGER)
}

/// The digest in `bytes` and the bytes its fields took.
fn loaded_prefix(bytes: &[u8]) -> Result<(TDigest, &[u8]), Error> {
    let mut input = LeReader(bytes);
    let digest = load(&mut input, ENCODING_VERSION, &EAGER)?;
    Ok((digest, &bytes[..bytes.len() - input.0.len()]))
}

/// Digests of every shape a save can take.
fn samples() -> Vec<TDigest> {
    let mut out = Vec::new();
    for (compression, values) in [(100, 0), (100, 1), (1, 40), (5, 300), (50, 7)] {
        let mut d = TDigest::new(compression, &EAGER).unwrap();
        for i in 0..values {
            d.add(f64::from(i % 13) - 2.5).unwrap();
        }
        out.push(d);
    }
    // RedisBloom's reload leftovers: weightless nodes, merged and buffered (capture.py).
    for payload in [super::PHANTOM_MERGED, super::PHANTOM_BUFFER] {
        out.push(restore(&unhex(payload)));
    }
    out
}

/// Whatever loads answers every read, takes adds and merges, and saves as it was loaded.
fn exercise(mut d: TDigest, bytes: &[u8]) {
    assert_eq!(saved(&d), bytes);
    let probes = [f64::NEG_INFINITY, -1.0, 0.0, 0.5, 3.0, 1e300, f64::INFINITY];
    d.quantiles(&[0.0, 0.3, 0.2, 1.0]).unwrap();
    d.cdfs(&probes).unwrap();
    d.ranks(&probes, Order::Descending, super::runs::all_ranks)
        .unwrap();
    d.by_ranks(&[0, 1, 2, 1000], Order::Ascending).unwrap();
    d.trimmed_mean(0.1, 0.9).unwrap();
    let mut other = TDigest::new(3, &EAGER).unwrap();
    let _ = other.merge_from(&mut d);
    for v in probes.iter().filter(|v| v.is_finite()) {
        let _ = d.add(*v);
    }
    d.compress();
    assert!(d.means.iter().all(|m| m.is_finite()));
}

#[test]
fn creation_checks_the_compression_and_the_memory_first() {
    assert_eq!(TDigest::new(0, &EAGER), Err(Error::InvalidParameters));
    assert_eq!(TDigest::new(-5, &EAGER), Err(Error::InvalidParameters));
    // RedisBloom's capacity wraps negative here and the key refuses every add.
    assert_eq!(
        TDigest::new(MAX_COMPRESSION + 1, &EAGER),
        Err(Error::InvalidParameters)
    );
    let tight = Memory {
        limit: 1 << 20,
        available: 1 << 30,
        ..EAGER
    };
    assert_eq!(TDigest::new(MAX_COMPRESSION, &tight), Err(Error::OverLimit));
    let small = Memory {
        available: 1 << 20,
        limit: u64::MAX,
        ..EAGER
    };
    assert_eq!(TDigest::new(100_000, &small), Err(Error::OutOfMemory));
    let d = TDigest::new(100, &EAGER).unwrap();
    // RedisBloom 8: sizeof(td_histogram_t) = 80, plus 16 bytes per node of the 610.
    assert_eq!(d.memory_usage(), 9840);
    assert_eq!((d.info().capacity, d.means.capacity() >= 610), (610, true));
}

#[test]
fn every_sample_round_trips_and_every_truncation_fails_cleanly() {
    for d in samples() {
        let bytes = saved(&d);
        exercise(loaded(&bytes).unwrap(), &bytes);
        for len in 0..bytes.len() {
            assert_eq!(loaded(&bytes[..len]).unwrap_err(), Error::BadEncoding);
        }
        // The DUMP encoding too.
        let payload = dump_payload(&d);
        let fields = payload_fields(&payload);
        for len in 0..fields.len() {
            assert!(load(&mut DumpReader::of_fields(&fields[..len]), 0, &EAGER).is_err());
        }
    }
}

#[test]
fn byte_flips_load_cleanly_or_not_at_all() {
    for d in samples() {
        let bytes = saved(&d);
        for at in 0..bytes.len() {
            for flip in [0x01, 0x10, 0x80, 0xff] {
                let mut corrupt = bytes.clone();
                corrupt[at] ^= flip;
                if let Ok(d) = loaded(&corrupt) {
                    exercise(d, &corrupt);
                }
            }
        }
    }
}

/// Hostile field streams: header fields drawn near every boundary, then node fields.
#[test]
fn hostile_fields_never_panic() {
    let doubles = [
        0.0,
        -0.0,
        1.0,
        2.0,
        3.0,
        5.0,
        100.0,
        0.5,
        -1.0,
        1e17,
        9.223_372_036_854_776e18,
        f64::NAN,
        f64::INFINITY,
        f64::MAX,
        357_913_940.0,
        MAX_COMPRESSION as f64,
    ];
    let signed = [
        0,
        1,
        2,
        3,
        16,
        28,
        40,
        610,
        609,
        -1,
        i64::MIN,
        i64::MAX,
        1 << 31,
    ];
    let mut g = Rng::new(99);
    let mut accepted = 0;
    for _ in 0..200_000 {
        let mut out = FieldWriter::default();
        for _ in 0..3 {
            out.double(doubles[g.below(doubles.len() as u64) as usize]);
        }
        for _ in 0..4 {
            out.unsigned(signed[g.below(signed.len() as u64) as usize] as u64);
        }
        for _ in 0..2 + g.below(8) {
            out.double(doubles[g.below(doubles.len() as u64) as usize]);
        }
        if let Ok((d, fields)) = loaded_prefix(&out.0) {
            accepted += 1;
            exercise(d, fields);
        }
    }
    assert!(accepted > 0);
}

#[test]
fn forged_headers_are_refused() {
    let header = |compression: f64, cap: i64, merged: i64, unmerged: i64, uw: f64| {
        let mut out = FieldWriter::default();
        for x in [compression, 1.0, 1.0] {
            out.double(x);
        }
        for n in [cap, merged, unmerged, 1] {
            out.unsigned(n as u64);
        }
        out.double(2.0 * merged as f64);
        out.double(uw);
        for _ in 0..merged {
            out.double(1.0);
        }
        for _ in 0..merged {
            out.double(2.0);
        }
        out.0
    };
    assert!(loaded(&header(1.0, 16, 2, 0, 0.0)).is_ok());
    // RedisBloom 2.8.2 takes a compression of 1 (16 nodes) with a cap of 100000, then writes
    // past its arrays; RedisBloom 8 too, as long as merged_nodes ≤ the forged cap.
    for bad in [
        header(1.0, 100_000, 2, 0, 0.0),
        header(1.0, 16, 17, 0, 0.0),
        header(1.0, 16, -1, 0, 0.0),
        header(1.5, 19, 2, 0, 0.0),
        header(0.0, 10, 0, 0, 0.0),
        header(357_913_940.0, 2_147_483_650, 0, 0, 0.0),
        header(1e17, 6e17 as i64 + 10, 0, 0, 0.0),
        header(1.0, 16, 2, 1, 0.0),
        header(1.0, 16, 0, 2, 2.0),
        header(1.0, 16, 0, 0, 1.0),
        header(1.0, 16, 2, 0, -1.0),
    ] {
        assert_eq!(loaded(&bad).unwrap_err(), Error::BadEncoding);
    }
    // A huge but consistent compression is a memory question, asked before allocating.
    let tight = eager_limited(1 << 20);
    let huge = header(1e7, 60_000_010, 0, 0, 0.0);
    let refused = load(&mut LeReader(&huge), ENCODING_VERSION, &tight);
    assert_eq!(refused.unwrap_err(), Error::OverLimit);
    assert_eq!(
        load(&mut LeReader(&huge), 1, &EAGER).unwrap_err(),
        Error::BadEncoding
    );
}

/// A one-value digest saves without its node (RedisBloom's compression leaves it in the
/// buffer); loading rebuilds it, where RedisBloom's reload leaves a weightless 0.0.
#[test]
fn a_single_observation_survives_a_reload() {
    let mut d = TDigest::new(100, &EAGER).unwrap();
    d.add(5.0).unwrap();
    let mut reloaded = loaded(&saved(&d)).unwrap();
    assert_eq!(reloaded, d);
    for digest in [&mut d, &mut reloaded] {
        digest.add(7.0).unwrap();
        assert_eq!(digest.quantiles(&[0.0, 0.5, 1.0]).unwrap(), [5.0, 7.0, 7.0]);
    }
}

/// One observation among weightless nodes merged in from a source (a buffer of total weight 1,
/// which a save keeps without its nodes): the weight loads, the observation's place is lost
/// as RedisBloom loses it, and the digest saves back to the same bytes.
#[test]
fn an_observation_among_weightless_nodes_loads() {
    let mut out = FieldWriter::default();
    for x in [1.0, -3.0, 4.0] {
        out.double(x);
    }
    for n in [16, 0, 3, 0] {
        out.unsigned(n);
    }
    out.double(0.0);
    out.double(1.0);
    let d = loaded(&out.0).unwrap();
    assert_eq!(
        (d.size(), &d.means[..], &d.weights[..]),
        (1, &[0.0; 3][..], &[0; 3][..])
    );
    assert_eq!(saved(&d), out.0);
}

/// Totals whose double reaches 2⁶³ would come back from the compression as a negative
/// `long long` in RedisBloom: refused as an overflow instead.
#[test]
fn totals_stay_below_two_to_the_63() {
    let one_node = |weight: f64| {
        let mut out = FieldWriter::default();
        for x in [1.0, 1.0, 1.0] {
            out.double(x);
        }
        for n in [16, 1, 0, 1] {
            out.unsigned(n);
        }
        for x in [weight, 0.0, 1.0, weight] {
            out.double(x);
        }
        loaded(&out.0).unwrap()
    };
    // 2⁶³ − 1024 and 600 add up to 2⁶³ − 424 as integers, to 2⁶³ as doubles.
    let mut big = one_node(9_223_372_036_854_774_784.0);
    assert_eq!(
        big.merge_from(&mut one_node(600.0)),
        Err(AddError::Overflow)
    );
    assert_eq!(big.merge_from(&mut one_node(400.0)), Ok(()));
    big.compress();
    assert!(big.merged_weight > 0);
    assert_eq!(big.add(f64::NAN), Err(AddError::NotFinite));
}

/// Past 2⁵³ a weight is saved as the nearest double (RedisBloom's format), so the saved node
/// weights can add up to a little more than the saved total. Digests merged into one another
/// until then (as a stream of self-merges does) still load, and save back to the same bytes.
#[test]
fn weights_rounded_past_two_to_the_53_still_load() {
    let mut rng = Rng::new(0xbead);
    let mut digests: Vec<TDigest> = (0..3)
        .map(|_| {
            let mut d = TDigest::new(50, &EAGER).unwrap();
            for _ in 0..40 {
                d.add((rng.next() % 1000) as f64).unwrap();
            }
            d
        })
        .collect();
    let mut rounded = 0;
    for round in 0..200 {
        let (a, b) = (round % 3, (round + 1) % 3);
        let mut source = digests[b].try_clone().unwrap();
        if digests[a].merge_from(&mut source).is_err() {
            break;
        }
        let bytes = saved(&digests[a]);
        let back = loaded(&bytes).unwrap_or_else(|e| panic!("round {round}: {e:?}"));
        assert_eq!(saved(&back), bytes, "round {round}");
        let weights: i64 = back.nodes().1.iter().sum();
        if weights > back.size() {
            rounded += 1;
        }
    }
    assert!(
        rounded > 10,
        "loaded weights added up to more than the total in {rounded} rounds"
    );
}
