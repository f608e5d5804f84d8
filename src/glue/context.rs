//! The server as one running command sees it: the commands' [`Server`], with the module API
//! called directly. A command's key is opened, typed and read with the server's own calls —
//! `OpenKey`, `ModuleTypeGetType`, `ModuleTypeGetValue`, `CloseKey`, as RedisBloom does —
//! and the configuration and memory bound are read only when a command asks for them.

use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::ptr;

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::bloom_type::{BLOOM_TYPE, FAST_TYPE};
use super::cuckoo_type::CUCKOO_TYPE;
use super::{alloc, config, ffi};
use crate::commands::call::{Held, NewValue, OpenKey, Server};
use crate::commands::cf::rules::Defaults as CuckooDefaults;
use crate::core::bloom::chain::{Chain, LayoutKind, Params};
use crate::core::cuckoo::CuckooFilter;
use crate::core::Memory;

/// One running command.
pub struct CommandContext {
    ctx: *mut raw::RedisModuleCtx,
    /// The command's key (argument 1), the client's own string; null without one.
    key: *mut raw::RedisModuleString,
}

impl CommandContext {
    /// The command running in `ctx`, whose key argument is `key` (null without one). Both must
    /// stay valid while it exists: the server's context and argument of the running command.
    pub fn new(ctx: *mut raw::RedisModuleCtx, key: *mut raw::RedisModuleString) -> Self {
        CommandContext { ctx, key }
    }
}

/// The server's handle of the data type registered as `data_type` (null before registration).
fn raw_type(data_type: &RedisType) -> *mut raw::RedisModuleType {
    *data_type.raw_type.borrow()
}

impl Server for CommandContext {
    fn bloom_config(&self) -> Params {
        config::bloom_params()
    }

    fn cuckoo_config(&self) -> CuckooDefaults {
        config::cuckoo_defaults()
    }

    fn memory(&self) -> Memory {
        alloc::memory(self.ctx)
    }

    fn open(&self, write: bool) -> *mut c_void {
        let mode = if write {
            raw::REDISMODULE_READ | raw::REDISMODULE_WRITE
        } else {
            raw::REDISMODULE_READ
        };
        if self.key.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: `ctx` and `key` are the running command's (see `new`); reading an API
        // pointer set by RedisModule_Init. The handle goes back to `close`.
        unsafe {
            raw::RedisModule_OpenKey
                .map_or(ptr::null_mut(), |open| {
                    open(self.ctx, self.key, mode as c_int)
                })
                .cast()
        }
    }

    fn close(&self, key: *mut c_void) {
        if key.is_null() {
            return;
        }
        // SAFETY: `key` came from `open` and is closed once, when its `OpenKey` drops.
        unsafe {
            if let Some(close) = raw::RedisModule_CloseKey {
                close(key.cast());
            }
        }
    }

    fn held<'k>(&self, key: &'k OpenKey) -> Held<'k> {
        let handle = key.handle().cast::<raw::RedisModuleKey>();
        if handle.is_null() {
            return Held::Empty; // a key opened to read that does not exist
        }
        // SAFETY: `handle` is the open key of the running command. A value of one of our
        // types is the `Box`ed Rust value its `set_value` (or RDB load) stored: the type says
        // which, and it stays valid while the key is open, which `'k` ties the borrow to. Only
        // the main thread runs commands, and a command looks its key up once, so the
        // reference is the value's only one.
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
                return if empty { Held::Empty } else { Held::Other };
            }
            let value = get_value(handle);
            if value.is_null() {
                Held::Other
            } else if data_type == raw_type(&BLOOM_TYPE) || data_type == raw_type(&FAST_TYPE) {
                Held::Bloom(&mut *value.cast::<Chain>())
            } else if data_type == raw_type(&CUCKOO_TYPE) {
                Held::Cuckoo(&mut *value.cast::<CuckooFilter>())
            } else {
                Held::Other
            }
        }
    }

    fn set_value(&self, key: &OpenKey, value: NewValue) -> Result<(), NewValue> {
        let handle = key.handle().cast::<raw::RedisModuleKey>();
        let (data_type, boxed) = match value {
            NewValue::Bloom(chain) => {
                let data_type = match chain.layout() {
                    LayoutKind::Classic => &BLOOM_TYPE,
                    LayoutKind::Fast => &FAST_TYPE,
                };
                (data_type, Box::into_raw(Box::new(chain)).cast::<c_void>())
            }
            NewValue::Cuckoo(filter) => (
                &CUCKOO_TYPE,
                Box::into_raw(Box::new(filter)).cast::<c_void>(),
            ),
        };
        // SAFETY: `handle` is the open key of the running command (null is refused by the
        // server); on success the server owns `boxed` and gives it to the type's free
        // callback, which drops it as the type's Rust value.
        let status = unsafe {
            raw::RedisModule_ModuleTypeSetValue.map_or(raw::REDISMODULE_ERR as c_int, |set| {
                set(handle, raw_type(data_type), boxed)
            })
        };
        if status == raw::REDISMODULE_OK as c_int {
            return Ok(());
        }
        // SAFETY: the server refused the value, so `boxed` is still the box made above, of
        // the type its data type names.
        Err(unsafe {
            if ptr::eq(data_type, &CUCKOO_TYPE) {
                NewValue::Cuckoo(*Box::from_raw(boxed.cast::<CuckooFilter>()))
            } else {
                NewValue::Bloom(*Box::from_raw(boxed.cast::<Chain>()))
            }
        })
    }

    fn written(&self, event: &'static CStr) {
        // SAFETY: `ctx` is the running command's context, `event` is NUL-terminated and
        // static, `key` the command's argument; reading API pointers set by RedisModule_Init.
        unsafe {
            if let Some(replicate) = raw::RedisModule_ReplicateVerbatim {
                replicate(self.ctx);
            }
            if self.key.is_null() {
                return;
            }
            if let Some(notify) = raw::RedisModule_NotifyKeyspaceEvent {
                notify(
                    self.ctx,
                    raw::NotifyEvent::MODULE.bits(),
                    event.as_ptr(),
                    self.key,
                );
            }
        }
    }

    fn log_warning(&self, text: &str) {
        ffi::log(self.ctx, c"warning", text);
    }
}
