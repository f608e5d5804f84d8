//! valkey-bloom's bytes (tests/data/valkey-bloom, whose README says how they were made): a
//! filter that scaled once, its `DUMP` and the `BF.LOAD` payload valkey-bloom's AOF rewrite
//! wrote. The same commands here make the same object, byte for byte.

use super::object::OBJECT_LIMIT;
use super::*;
use crate::core::bf::chain::MergeError;
use crate::core::dump::payload as dump_payload;
use crate::core::testing::{fields_of, load_payload, unhex, DumpReader};
use crate::core::{Error, EAGER};

/// `bloomfltr` encoding 1 as a module type id (the name in 6-bit characters, then the version).
const TYPE_ID: u64 = 0x6e5a_2899_f96d_ac01;
/// Valkey 9's RDB version, which its DUMP payloads carry.
const VALKEY_9_RDB: u16 = 80;

const DUMP: &str = include_str!("../../../../tests/data/valkey-bloom/g.dump.hex").trim_ascii_end();

const PAYLOAD: &str =
    include_str!("../../../../tests/data/valkey-bloom/g.payload.hex").trim_ascii_end();

fn fixed(capacity: i64) -> Params {
    Params {
        capacity,
        fp_rate: 0.01,
        tightening: 0.5,
        expansion: 2,
        seed: FIXED_SEED,
        seed_random: false,
    }
}

fn made() -> (ValkeyBloom, Vec<bool>) {
    let mut object = ValkeyBloom::new(fixed(10), OBJECT_LIMIT, &EAGER).unwrap();
    let added = (0..30)
        .map(|i| {
            object
                .add(format!("item{i}").as_bytes(), OBJECT_LIMIT, &EAGER)
                .unwrap()
        })
        .collect();
    (object, added)
}

#[test]
fn the_same_adds_make_valkey_bloom_s_bytes() {
    let (object, added) = made();
    // item17 was a false positive there too.
    let expected: Vec<bool> = (0..30).map(|i| i != 17).collect();
    assert_eq!(added, expected);
    assert_eq!(
        (object.capacity(), object.items(), object.filters().len()),
        (30, 29, 2)
    );
    assert_eq!(object.memory_usage(), 536);
    assert_eq!(object.max_scaled_capacity(OBJECT_LIMIT), 20_971_510);
    let dump = dump_payload(TYPE_ID, VALKEY_9_RDB, |out| rdb::save(&object, out)).unwrap();
    assert_eq!(dump, unhex(DUMP));
    assert_eq!(payload::encode(&object).unwrap(), unhex(PAYLOAD));
    // Of item30 … item59 only item36 is a false positive, as there.
    let found: Vec<usize> = (30..60)
        .filter(|i| object.contains(format!("item{i}").as_bytes()))
        .collect();
    assert_eq!(found, [36]);
}

#[test]
fn valkey_bloom_s_bytes_load_as_the_same_object() {
    let (object, _) = made();
    let dump = unhex(DUMP);
    let loaded = load_payload(&dump, TYPE_ID, |fields| {
        rdb::load(fields, rdb::ENCODING_VERSION, &EAGER)
    });
    assert_eq!(loaded, object);
    let from_payload = payload::decode(&unhex(PAYLOAD), &EAGER).unwrap();
    assert_eq!(from_payload, object);
}

#[test]
fn the_default_object_is_384_bytes_and_scales_to_26214300() {
    let mut params = fixed(100);
    params.seed = [7; 32];
    params.seed_random = true;
    let object = ValkeyBloom::new(params, OBJECT_LIMIT, &EAGER).unwrap();
    assert_eq!(object.memory_usage(), 384);
    assert_eq!(object.max_scaled_capacity(OBJECT_LIMIT), 26_214_300);
}

#[test]
fn a_non_scaling_object_fills_and_refuses() {
    let mut params = fixed(3);
    params.expansion = 0;
    let mut object = ValkeyBloom::new(params, OBJECT_LIMIT, &EAGER).unwrap();
    let mut added = 0;
    for i in 0..100 {
        match object.add(format!("x{i}").as_bytes(), OBJECT_LIMIT, &EAGER) {
            Ok(true) => added += 1,
            Ok(false) => {}
            Err(e) => {
                assert_eq!(e, AddError::Full);
                break;
            }
        }
    }
    assert_eq!((added, object.items()), (3, 3));
}

#[test]
fn over_the_limit_is_refused_before_allocating() {
    assert_eq!(
        ValkeyBloom::new(fixed(1 << 40), OBJECT_LIMIT, &EAGER),
        Err(Error::OverLimit)
    );
    let mut object = ValkeyBloom::new(fixed(10), 1000, &EAGER).unwrap();
    let refused =
        (0..1000).find_map(|i| object.add(format!("y{i}").as_bytes(), 1000, &EAGER).err());
    assert_eq!(refused, Some(AddError::Memory(Error::OverLimit)));
}

#[test]
fn hostile_payloads_are_refused_without_a_panic() {
    let good = unhex(PAYLOAD);
    assert_eq!(
        payload::decode(&[], &EAGER).unwrap_err(),
        payload::DecodeError::Malformed
    );
    assert_eq!(
        payload::decode(&[2], &EAGER).unwrap_err(),
        payload::DecodeError::Version
    );
    for len in 1..good.len() {
        assert!(payload::decode(&good[..len], &EAGER).is_err(), "{len}");
    }
    for at in 1..good.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[at] ^= flip;
            if let Ok(mut object) = payload::decode(&bad, &EAGER) {
                object.contains(b"probe");
                let _ = object.add(b"probe", OBJECT_LIMIT, &EAGER);
            }
        }
    }
    let dump = unhex(DUMP);
    for at in 10..dump.len() - 10 {
        for flip in [0x01, 0x80, 0xff] {
            let mut bad = dump.clone();
            bad[at] ^= flip;
            let mut fields = DumpReader::new(&bad, TYPE_ID);
            if let Ok(mut object) = rdb::load(&mut fields, 1, &EAGER) {
                object.contains(b"probe");
                let _ = object.add(b"probe", OBJECT_LIMIT, &EAGER);
            }
        }
    }
}

/// What the commands can make, the loaders take back: the smallest error rate a double holds
/// takes 1,076 probes, within the cap a forged header is held to.
#[test]
fn the_most_probes_a_command_can_ask_for_load_back() {
    let mut params = fixed(1);
    params.fp_rate = 5e-324;
    let mut object = ValkeyBloom::new(params, OBJECT_LIMIT, &EAGER).unwrap();
    assert!(object.add(b"a", OBJECT_LIMIT, &EAGER).unwrap());
    assert_eq!(object.filters()[0].probes(), 1076);
    let bytes = payload::encode(&object).unwrap();
    assert_eq!(payload::decode(&bytes, &EAGER).unwrap(), object);
    let fields = fields_of(|out| rdb::save(&object, out));
    let mut input = crate::core::le::LeReader(&fields);
    assert_eq!(rdb::load(&mut input, 1, &EAGER).unwrap(), object);
}

/// A payload the RDB format could not hold is refused, so that what `BF.LOAD` takes saves and
/// loads back the same: a fixed-seed flag with another seed, an earlier sub-filter not full.
#[test]
fn payloads_the_rdb_format_cannot_hold_are_refused() {
    let good = unhex(PAYLOAD);
    // The seed flag (byte 21 after version, expansion and two rates) set to random loads.
    let mut random = good.clone();
    random[21] = 1;
    assert!(payload::decode(&random, &EAGER).is_ok());
    // The first sub-filter's seed (after count, length and the blob's version, length, k).
    let mut other_seed = good.clone();
    other_seed[30 + 8 + 13] ^= 1;
    other_seed[30 + 8 + 57 + 16 + 8 + 13] ^= 1;
    assert_eq!(
        payload::decode(&other_seed, &EAGER).unwrap_err(),
        payload::DecodeError::Malformed
    );
    // The first sub-filter's items (after its 57-byte blob): 9 of its capacity 10.
    let mut not_full = good.clone();
    not_full[30 + 8 + 57] = 9;
    assert_eq!(
        payload::decode(&not_full, &EAGER).unwrap_err(),
        payload::DecodeError::Malformed
    );
}

/// The union of objects of one shape: every item found, counted from the bits, the format's
/// rule kept (every sub-filter but the newest full), so it saves and loads back the same.
#[test]
fn a_union_finds_every_item_and_loads_back() {
    let add = |object: &mut ValkeyBloom, prefix: &str, range: std::ops::Range<u32>| {
        for i in range {
            let item = format!("{prefix}{i}");
            object.add(item.as_bytes(), OBJECT_LIMIT, &EAGER).unwrap();
        }
    };
    let mut scaled = ValkeyBloom::new(fixed(100), OBJECT_LIMIT, &EAGER).unwrap();
    add(&mut scaled, "a", 0..250);
    let mut early = ValkeyBloom::new(fixed(100), OBJECT_LIMIT, &EAGER).unwrap();
    add(&mut early, "a", 0..60);
    let union = ValkeyBloom::union(&[&early, &scaled], OBJECT_LIMIT, &EAGER).unwrap();
    assert_eq!(union.filters().len(), scaled.filters().len());
    assert!((0..250).all(|i| union.contains(format!("a{i}").as_bytes())));
    assert_eq!(union.items(), scaled.items());
    let loaded = payload::decode(&payload::encode(&union).unwrap(), &EAGER).unwrap();
    assert_eq!(loaded, union);
    // Distinct items past the first sub-filter's capacity; another seed; another shape.
    let mut other = ValkeyBloom::new(fixed(100), OBJECT_LIMIT, &EAGER).unwrap();
    add(&mut other, "b", 0..60);
    assert_eq!(
        ValkeyBloom::union(&[&scaled, &other], OBJECT_LIMIT, &EAGER),
        Err(MergeError::PastCapacity(0))
    );
    let mut seed = FIXED_SEED;
    seed[0] ^= 1;
    let reseeded = ValkeyBloom::new(Params { seed, ..fixed(100) }, OBJECT_LIMIT, &EAGER).unwrap();
    assert_eq!(
        ValkeyBloom::union(&[&other, &reseeded], OBJECT_LIMIT, &EAGER),
        Err(MergeError::HashingDiffers)
    );
    let bigger = ValkeyBloom::new(fixed(200), OBJECT_LIMIT, &EAGER).unwrap();
    assert_eq!(
        ValkeyBloom::union(&[&other, &bigger], OBJECT_LIMIT, &EAGER),
        Err(MergeError::CapacitiesDiffer)
    );
    assert_eq!(
        ValkeyBloom::union(&[&other, &other], other.memory_usage() - 1, &EAGER),
        Err(MergeError::Memory(Error::OverLimit))
    );
}
