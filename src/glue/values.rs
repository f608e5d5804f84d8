//! What an open key holds, found among the module's data types (`families.rs`): the value a
//! command's key reaches, as a pointer the command's context lends out (`context.rs`).

use std::any::Any;
use std::os::raw::c_int;

use redis_module::raw;

use super::families::DATA_TYPES;
use crate::commands::server::{Held, OpenKey};

/// What an open key holds, as a pointer to the value when it is one of the module's types.
pub fn value_of(key: &OpenKey) -> Held<*mut dyn Any> {
    let handle = key.handle().cast::<raw::RedisModuleKey>();
    if handle.is_null() {
        return Held::Empty(()); // a key opened to read that does not exist
    }
    // SAFETY: `handle` is the open key of the running command. A value of one of our types is
    // the `Box`ed Rust value its `set_value` (or RDB load) stored: the type says which.
    unsafe {
        let (Some(get_type), Some(get_value)) = (
            raw::RedisModule_ModuleTypeGetType,
            raw::RedisModule_ModuleTypeGetValue,
        ) else {
            return Held::Other;
        };
        // Null for an empty key and for any value of no module type.
        let data_type = get_type(handle);
        if data_type.is_null() {
            let empty = raw::RedisModule_KeyType.is_some_and(|key_type| {
                key_type(handle) == raw::REDISMODULE_KEYTYPE_EMPTY as c_int
            });
            return if empty { Held::Empty(()) } else { Held::Other };
        }
        let value = get_value(handle);
        if value.is_null() {
            return Held::Other;
        }
        match DATA_TYPES.iter().find(|t| t.raw() == data_type) {
            Some(t) => Held::Value(t.found(value)),
            None => Held::Other,
        }
    }
}
