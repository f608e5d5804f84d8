//! Fixed command sequences (`SCENARIOS` in `capture.py`), replayed as RedisBloom's primary runs
//! them, into the transcript `capture.py` prints: DUMP as the whole payload, CRC included.

use std::collections::BTreeMap;

use super::runs::{bits, bits_list, hex};
use crate::core::tdigest::rdb::{load, save, ENCODING_VERSION};
use crate::core::tdigest::{merge_compression, Order, TDigest};
use crate::core::testing::{self, load_payload, unhex, Rng};
use crate::core::EAGER;

/// The digest in a `DUMP` payload, its CRC checked.
pub fn restore(payload: &[u8]) -> TDigest {
    load_payload(payload, TDIGEST_TYPE_ID, |fields| {
        load(fields, ENCODING_VERSION, &EAGER)
    })
}

/// `TDIS-TYPE`, encoding version 0, as a payload names it.
pub const TDIGEST_TYPE_ID: u64 = 0x4c32_12f9_360f_1000;

/// `digest`'s `DUMP` payload, as Redis 7.0 frames it.
pub fn dump_payload(digest: &TDigest) -> Vec<u8> {
    testing::dump_payload(TDIGEST_TYPE_ID, |out| save(digest, out).unwrap())
}

fn numbers(args: &[&str]) -> Vec<f64> {
    args.iter().map(|a| a.parse().unwrap()).collect()
}

/// Runs `commands` (`TDIGEST.` left out, arguments split on spaces) and returns the transcript.
pub fn replay(commands: &[String]) -> String {
    let mut keys: BTreeMap<String, TDigest> = BTreeMap::new();
    let mut out = String::new();
    for command in commands {
        let words: Vec<&str> = command.split(' ').collect();
        let (name, key, args) = (words[0], words[1], &words[2..]);
        let reply = match name {
            "CREATE" => {
                let compression = args.get(1).map_or(100, |c| c.parse().unwrap());
                keys.insert(key.into(), TDigest::new(compression, &EAGER).unwrap());
                "OK".into()
            }
            "RESTORE" => {
                keys.insert(key.into(), restore(&unhex(args[1])));
                "OK".into()
            }
            "MERGE" => {
                let sources = &args[1..];
                let compression = merge_compression(
                    None,
                    false,
                    keys.get(key),
                    sources.iter().map(|s| keys[*s].compression()),
                );
                let mut merged = TDigest::new(compression, &EAGER).unwrap();
                if let Some(old) = keys.get_mut(key) {
                    let _ = merged.merge_from(old);
                }
                for s in sources {
                    merged.merge_from(keys.get_mut(*s).unwrap()).unwrap();
                }
                keys.insert(key.into(), merged);
                "OK".into()
            }
            _ => {
                let digest = keys.get_mut(key).unwrap();
                let (reply, compresses) = read(digest, name, args);
                if compresses {
                    digest.compress();
                }
                reply
            }
        };
        out += &format!("{name} {key}: {reply}\n");
    }
    out
}

/// A command on one digest: its reply, and whether RedisBloom compressed the digest for it.
fn read(digest: &mut TDigest, name: &str, args: &[&str]) -> (String, bool) {
    match name {
        "ADD" => {
            for v in numbers(args) {
                digest.add(v).unwrap();
            }
            ("OK".into(), false)
        }
        "RESET" => {
            digest.reset();
            ("OK".into(), false)
        }
        "DUMP" => (hex(&dump_payload(digest)), true),
        "MIN" => (bits(digest.min()), false),
        "MAX" => (bits(digest.max()), false),
        "QUANTILE" => (bits_list(&digest.quantiles(&numbers(args)).unwrap()), true),
        "CDF" => (bits_list(&digest.cdfs(&numbers(args)).unwrap()), true),
        "TRIMMED_MEAN" => {
            let cuts = numbers(args);
            (bits(digest.trimmed_mean(cuts[0], cuts[1]).unwrap()), true)
        }
        "RANK" | "REVRANK" => {
            let order = if name == "RANK" {
                Order::Ascending
            } else {
                Order::Descending
            };
            let values = numbers(args);
            let ranks: Vec<String> = digest
                .ranks(&values, order, |ranks| {
                    ranks.map(|r| r.to_string()).collect()
                })
                .unwrap();
            (
                format!("[{}]", ranks.join(",")),
                digest.ranks_compress(&values),
            )
        }
        "BYRANK" | "BYREVRANK" => {
            let order = if name == "BYRANK" {
                Order::Ascending
            } else {
                Order::Descending
            };
            let ranks: Vec<i64> = args.iter().map(|a| a.parse().unwrap()).collect();
            let values = digest.by_ranks(&ranks, order).unwrap();
            (bits_list(&values), digest.by_ranks_compress(&ranks))
        }
        "INFO" => {
            let i = digest.info();
            let text = format!(
                "{{Compression={},Capacity={},Merged nodes={},Unmerged nodes={},Merged weight={},\
                 Unmerged weight={},Observations={},Total compressions={},Memory usage={}}}",
                i.compression,
                i.capacity,
                i.merged_nodes,
                i.unmerged_nodes,
                i.merged_weight,
                i.unmerged_weight,
                i.observations,
                i.total_compressions,
                i.memory_usage
            );
            (text, false)
        }
        _ => unreachable!("{name}"),
    }
}

/// `capture.py`'s `equal_values`: `n` values 0 or −0, one in 500 a 1.
pub fn equal_values(seed: u64, n: usize) -> Vec<&'static str> {
    let mut g = Rng::new(seed);
    (0..n)
        .map(|_| {
            if g.below(500) != 0 {
                ["0", "-0", "0", "-0"][g.below(4) as usize]
            } else {
                "1"
            }
        })
        .collect()
}
