//! What the module asks of the server's state, a leaf every other glue file may read: which
//! server it runs in, for the few decisions that need more than checking an API pointer (the
//! oldest server supported, whether module configs may be unprefixed, whether the server prints
//! doubles with `printf`), and whether a command replays a write ([`replayed`]).
//!
//! `RedisModule_GetServerVersion` gives each server's own version: Redis's, but Valkey's
//! (8.x, 9.x) on Valkey, whose module API is Redis 7.2's (`INFO server` there says
//! `redis_version:7.2.4`). So what a version number says about the API is read from INFO.

use redis_module::raw;

/// A version as major, minor, patch.
pub type Version = (u32, u32, u32);

/// The server's own version, from `RedisModule_GetServerVersion` (Redis ≥ 6.0.9, Valkey).
pub fn own_version() -> Option<Version> {
    // SAFETY: reading an API pointer set by RedisModule_Init, and calling it: it takes no
    // arguments and only returns a number.
    let encoded = unsafe { raw::RedisModule_GetServerVersion.map(|get| get()) }?;
    let encoded = u32::try_from(encoded).ok()?;
    Some((encoded >> 16, (encoded >> 8) & 0xff, encoded & 0xff))
}

/// Whether the server sends a RESP2 client a double as the bulk string of `printf("%.17g")`
/// and tells a module which protocol its client speaks: Redis 7.0. (Redis 7.2, its release
/// candidates 7.1.24x, and Valkey convert doubles their own way; Redis 6.x sets no RESP3
/// context flag, so a module cannot tell a RESP3 client there.)
pub fn prints_doubles_with_printf() -> bool {
    own_version().is_some_and(|version| ((7, 0, 0)..(7, 1, 0)).contains(&version))
}

/// Refuses servers older than Redis 6.0 — or without `RedisModule_GetServerVersion`, i.e.
/// before 6.0.9 — with the reason, for the log.
pub fn check_supported() -> Result<(), String> {
    const OLDEST: Version = (6, 0, 0);
    match own_version() {
        None => Err("this server is older than Redis 6.0.9 (it has no \
                     RedisModule_GetServerVersion); redis-bf needs Redis 6.0.9 or later, \
                     or Valkey"
            .into()),
        Some(version) if version < OLDEST => Err(format!(
            "this server is version {}.{}.{}; redis-bf needs Redis 6.0.9 or later, or Valkey",
            version.0, version.1, version.2
        )),
        Some(_) => Ok(()),
    }
}

/// The Redis version whose module API the server offers: its own below 8.0 (where Redis and
/// Valkey agree), else `redis_version` from `INFO server` — 8.x on Redis 8, 7.2.4 on Valkey
/// 8 and 9. `None` if the server does not say.
pub fn api_version(ctx: *mut raw::RedisModuleCtx) -> Option<Version> {
    let own = own_version()?;
    if own < (8, 0, 0) {
        return Some(own);
    }
    let info = info_server(ctx)?;
    let text = String::from_utf8_lossy(&info);
    let value = text
        .lines()
        .find_map(|line| line.strip_prefix("redis_version:"))?;
    parse_version(value.trim())
}

/// The module options (`SetModuleOptions`) this server takes from redis-bf: I/O errors handled
/// (truncated or corrupt RDB and RESTORE payloads fail the load instead of killing the server,
/// and replicas may load an RDB while serving), and on Valkey 9.0 or later, atomic slot
/// migration (`CLUSTER MIGRATESLOTS`, refused while any loaded module has not declared it).
///
/// Valkey writes the moving slots with its AOF rewrite (`cluster_migrateslots.c`), so a key
/// arrives as the commands its data type's `aof_rewrite` emits, which rebuild its saved form,
/// and the target replicates them. The module keeps no state that a slot's keys arriving or
/// leaving could leave stale: the `INFO bf` totals follow each value through its load and
/// free callbacks, whichever way it comes or goes (a cancelled import frees what arrived), so
/// it subscribes to none of the migration's events. The bit (`1 << 5`) is Valkey's own
/// (`valkeymodule.h`, `VALKEYMODULE_OPTIONS_HANDLE_ATOMIC_SLOT_MIGRATION`); Redis defines
/// options up to `1 << 3` and may give the next bits other meanings, so it is set only where
/// `INFO server` says `server_name:valkey` and the version is 9.0 or later.
pub fn module_options(ctx: *mut raw::RedisModuleCtx) -> u32 {
    const ATOMIC_SLOT_MIGRATION: u32 = 1 << 5;
    let migrates_slots =
        own_version().is_some_and(|version| version >= (9, 0, 0)) && is_valkey(ctx);
    let atomic_slot_migration = if migrates_slots {
        ATOMIC_SLOT_MIGRATION
    } else {
        0
    };
    raw::REDISMODULE_OPTIONS_HANDLE_IO_ERRORS | atomic_slot_migration
}

/// Whether `INFO server` says the server is Valkey (`server_name:valkey`, Valkey 8.0 on).
fn is_valkey(ctx: *mut raw::RedisModuleCtx) -> bool {
    info_server(ctx).is_some_and(|info| {
        String::from_utf8_lossy(&info)
            .lines()
            .any(|line| line.trim_end() == "server_name:valkey")
    })
}

/// Whether the server asks a command for its keys (`getkeys-api`) on its main thread only.
/// Valkey from 8.0 and Redis from 8.2 also ask on their I/O threads, to work out a command's
/// slot before it runs (Valkey's `ioThreadReadQueryFromClient` in `networking.c`, Redis's
/// `getSlotFromCommand`), and wrap the question in a module context whose bookkeeping
/// (`enterExecutionUnit`, `execution_nesting`) is the main thread's and not thread-safe: a
/// command must not ask to be asked there while I/O threads run (`io-threads` above 1, which
/// those servers fix at start).
pub fn asked_for_keys_on_main_thread_only(ctx: *mut raw::RedisModuleCtx) -> bool {
    let Some(version) = own_version() else {
        return true;
    };
    let threads_ask = if version >= (8, 0, 0) && is_valkey(ctx) {
        true
    } else {
        version >= (8, 2, 0)
    };
    !threads_ask || config_number(ctx, c"io-threads").is_none_or(|threads| threads <= 1)
}

/// A numeric config's value, through `RedisModule_Call` of `CONFIG GET` (its reply: the name,
/// then the value).
fn config_number(ctx: *mut raw::RedisModuleCtx, name: &std::ffi::CStr) -> Option<u64> {
    // SAFETY: reading API pointers set by RedisModule_Init.
    let (call, element, string_ptr, free) = unsafe {
        (
            raw::RedisModule_Call?,
            raw::RedisModule_CallReplyArrayElement?,
            raw::RedisModule_CallReplyStringPtr?,
            raw::RedisModule_FreeCallReply?,
        )
    };
    // SAFETY: `ctx` is the live OnLoad context; the command, format ("cc": two C strings) and
    // arguments are NUL-terminated. The reply and its element are read while alive (the
    // element belongs to the reply), copied, then the reply is freed once.
    unsafe {
        let reply = call(
            ctx,
            c"CONFIG".as_ptr(),
            c"cc".as_ptr(),
            c"GET".as_ptr(),
            name.as_ptr(),
        );
        if reply.is_null() {
            return None;
        }
        let value = element(reply, 1);
        let mut len = 0usize;
        let text = if value.is_null() {
            std::ptr::null()
        } else {
            string_ptr(value, &mut len)
        };
        let copy =
            (!text.is_null()).then(|| std::slice::from_raw_parts(text.cast::<u8>(), len).to_vec());
        free(reply);
        std::str::from_utf8(&copy?).ok()?.trim().parse().ok()
    }
}

/// `major.minor.patch`, ignoring anything after the patch number's digits.
fn parse_version(text: &str) -> Option<Version> {
    let mut parts = text.splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch_digits: String = parts
        .next()?
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((major, minor, patch_digits.parse().ok()?))
}

/// The text of `INFO server`, through `RedisModule_Call` (read by [`api_version`] by hand, not
/// with the crate's `get_redis_version_rm_call` and its regex).
fn info_server(ctx: *mut raw::RedisModuleCtx) -> Option<Vec<u8>> {
    // SAFETY: reading API pointers set by RedisModule_Init.
    let (call, string_ptr, free) = unsafe {
        (
            raw::RedisModule_Call?,
            raw::RedisModule_CallReplyStringPtr?,
            raw::RedisModule_FreeCallReply?,
        )
    };
    // SAFETY: `ctx` is the live OnLoad context; the command name, the format ("c": one C
    // string argument) and the argument are NUL-terminated statics. The reply is read while
    // alive (the pointer and length `string_ptr` gives point into it), copied, then freed once.
    unsafe {
        let reply = call(ctx, c"INFO".as_ptr(), c"c".as_ptr(), c"server".as_ptr());
        if reply.is_null() {
            return None;
        }
        let mut len = 0usize;
        let text = string_ptr(reply, &mut len);
        let copy =
            (!text.is_null()).then(|| std::slice::from_raw_parts(text.cast::<u8>(), len).to_vec());
        free(reply);
        copy
    }
}

/// Whether the command running in `ctx` replays a write accepted once already: sent by the
/// primary over the replication link, or read from an AOF being loaded.
pub fn replayed(ctx: *mut raw::RedisModuleCtx) -> bool {
    is_replay(context_flags(ctx))
}

/// Whether context flags `flags` are those of a replayed command (see [`replayed`]).
pub fn is_replay(flags: u32) -> bool {
    flags & (raw::REDISMODULE_CTX_FLAGS_REPLICATED | raw::REDISMODULE_CTX_FLAGS_LOADING) != 0
}

/// `RedisModule_GetContextFlags(ctx)`.
pub fn context_flags(ctx: *mut raw::RedisModuleCtx) -> u32 {
    // SAFETY: `ctx` is the live context of the running command; reading an API pointer set by
    // RedisModule_Init.
    let flags = unsafe { raw::RedisModule_GetContextFlags.map_or(0, |flags| flags(ctx)) };
    flags as u32
}
