//! `bf_valkey`: the decoders of valkey-bloom's filters (`core::bf::valkey`). An input that
//! opens as a `DUMP` payload of `bloomfltr` goes through the RDB loader; any other input is a
//! `BF.LOAD` payload.
//!
//! Besides "no panic" (valkey-bloom itself aborts on a malformed blob): a loaded filter saves
//! the very fields it was read from and encodes back to a payload that decodes to it; a copy
//! equals it; it is within the bound it was checked against; and it finds an item right after
//! adding it.

use crate::dump::{self, Recording};
use crate::memory::{bounded, LIMIT};
use redis_bf::core::bf::valkey::{payload, rdb, ValkeyBloom};
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
