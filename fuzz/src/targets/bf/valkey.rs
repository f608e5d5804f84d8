//! `bf_valkey`: the decoders of valkey-bloom's filters (`core::bf::valkey`), and (from
//! `bf_args`) valkey-bloom's `BF.RESERVE` and `BF.INSERT` parsers. An input that
//! opens as a `DUMP` payload of `bloomfltr` goes through the RDB loader; any other input is a
//! `BF.LOAD` payload.
//!
//! Besides "no panic" (valkey-bloom itself aborts on a malformed blob): a loaded filter saves
//! the very fields it was read from and encodes back to a payload that decodes to it; a copy
//! equals it; it is within the bound it was checked against; and it finds an item right after
//! adding it.

use crate::dump::{self, Recording};
use crate::memory::{bounded, LIMIT};
use redis_bf::commands::bf::{parse_valkey_insert, parse_valkey_reserve};
use redis_bf::core::bf::valkey::{payload, rdb, Params, ValkeyBloom, FIXED_SEED};
use redis_bf::core::rdb::FieldWriter;

/// A `DUMP` payload of `bloomfltr`, or a `BF.LOAD` payload.
pub fn bf_valkey(data: &[u8]) {
    match dump::open(data) {
        Some((module, reader)) if &module.name == b"bloomfltr" => {
            let mut input = Recording::new(reader);
            if let Ok(object) = rdb::load(&mut input, module.encver, &bounded()) {
                let mut saved = FieldWriter::default();
                rdb::save(&object, &mut saved);
                assert_eq!(saved.0, input.fields.0, "saves other fields than it read");
                check(object);
            }
        }
        Some(_) => {}
        None => {
            if let Ok(object) = payload::decode(data, &bounded()) {
                check(object);
            }
        }
    }
}

fn check(mut object: ValkeyBloom) {
    assert!(object.memory_usage() <= LIMIT.saturating_mul(2));
    let encoded = payload::encode(&object).expect("a payload");
    let decoded = payload::decode(&encoded, &bounded()).expect("its own payload decodes");
    assert_eq!(decoded, object);
    assert_eq!(object.try_clone().as_ref(), Ok(&object));
    for item in [&b""[..], b"probe", b"\x00\xff"] {
        let before = object.items();
        match object.add(item, LIMIT, &bounded()) {
            Ok(added) => {
                assert!(object.contains(item), "an added item is not found");
                assert_eq!(object.items(), before.saturating_add(i64::from(added)));
            }
            Err(_) => assert_eq!(object.items(), before),
        }
    }
}

/// The configs' parameters the parsers start from: valkey-bloom's defaults with its fixed seed,
/// and a non-scaling set with another seed.
const VALKEY_DEFAULTS: [Params; 2] = [
    Params {
        capacity: 100,
        fp_rate: 0.01,
        tightening: 0.5,
        expansion: 2,
        seed: FIXED_SEED,
        seed_random: false,
    },
    Params {
        capacity: 1,
        fp_rate: 0.5,
        tightening: 0.9,
        expansion: 0,
        seed: [7; 32],
        seed_random: true,
    },
];

/// valkey-bloom's parsers on `args` (the command name first): what they accept is in range,
/// keeps the defaults' seed unless `SEED` gives one, and makes a filter or a clean error.
pub fn check_valkey_args(args: &[&[u8]]) {
    for defaults in VALKEY_DEFAULTS {
        if let Ok(params) = parse_valkey_reserve(args, defaults) {
            assert!((4..=6).contains(&args.len()));
            assert_eq!(params.seed, defaults.seed);
            assert_eq!(params.tightening, defaults.tightening);
            check_params(params);
        }
        // BF.INSERT's arity: a key at least.
        let insert = (args.len() >= 2).then(|| parse_valkey_insert(args, defaults));
        if let Some(Ok(insert)) = insert {
            assert!((2..=args.len()).contains(&insert.first_item));
            let options = &args[2..insert.first_item];
            if !options.iter().any(|a| a.eq_ignore_ascii_case(b"SEED")) {
                assert_eq!(insert.params.seed, defaults.seed);
            }
            if insert.validate_scale_to.is_some() {
                assert_ne!(insert.params.expansion, 0);
            }
            check_params(insert.params);
        }
    }
}

fn check_params(params: Params) {
    assert!(params.fp_rate > 0.0 && params.fp_rate < 1.0);
    assert!(params.tightening > 0.0 && params.tightening < 1.0);
    assert!(params.capacity >= 1);
    assert_eq!(params.seed_random, params.seed != FIXED_SEED);
    if let Ok(mut object) = ValkeyBloom::new(params, LIMIT, &bounded()) {
        if object.add(b"probe", LIMIT, &bounded()).is_ok() {
            assert!(object.contains(b"probe"));
        }
    }
}
