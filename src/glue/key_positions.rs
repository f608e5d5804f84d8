//! What a command tells the server of its keys when the server asks (`getkeys-api`): cluster
//! routing (`getNodeByQuery`), scripts and client tracking find a module command's keys through
//! `getKeysFromCommand` in the servers' `db.c`, which reads only the legacy key range unless the
//! command answers itself. Commands whose sources a count names answer here
//! ([`Keys::asks_command`]), so keys of two slots get `CROSSSLOT` and a source in a slot that
//! is moving gets `ASK` or `TRYAGAIN`, as the server's own multi-key commands do.
//!
//! Valkey from 8.0 and Redis from 8.2 would also ask on their I/O threads, inside a module
//! context that is not thread-safe, so with `io-threads` above 1 there no command declares it
//! answers (`server::asked_for_keys_on_main_thread_only`).

use std::os::raw::c_int;

use redis_module::raw;

use crate::commands::spec::{KeyAccess, Keys};

/// The key spec flags of a key used so (Redis ≥ 7.0): read sources, an updated destination.
pub fn key_flags(access: KeyAccess) -> u32 {
    match access {
        KeyAccess::Read => raw::REDISMODULE_CMD_KEY_RO | raw::REDISMODULE_CMD_KEY_ACCESS,
        KeyAccess::Write => raw::REDISMODULE_CMD_KEY_RW | raw::REDISMODULE_CMD_KEY_UPDATE,
    }
}

/// Whether the server called the command only to learn its keys.
pub fn asked(ctx: *mut raw::RedisModuleCtx) -> bool {
    // SAFETY: `ctx` is the context the server called the command with; reading an API pointer
    // set by RedisModule_Init.
    unsafe { raw::RedisModule_IsKeysPositionRequest.is_some_and(|is_request| is_request(ctx) != 0) }
}

/// Tells the server which of `args` are keys (`keys` says which), with their flags where the
/// server takes them (`KeyAtPosWithFlags`, Redis ≥ 7.0), else by position alone.
pub fn tell(ctx: *mut raw::RedisModuleCtx, keys: Keys, args: &[&[u8]]) {
    for (position, access) in keys.positions(args) {
        let Ok(position) = c_int::try_from(position) else {
            return;
        };
        // SAFETY: `ctx` is a keys-position request ([`asked`]) and `position` an argument of
        // it (`Keys::positions` names only arguments there are); reading API pointers set by
        // RedisModule_Init.
        unsafe {
            if let Some(at) = raw::RedisModule_KeyAtPosWithFlags {
                at(ctx, position, key_flags(access) as c_int);
            } else if let Some(at) = raw::RedisModule_KeyAtPos {
                at(ctx, position);
            }
        }
    }
}
