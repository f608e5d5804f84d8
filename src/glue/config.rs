//! The module's configs: each family's (its `Family::settings`: `bf-*`, `cf-*`, …) and the two
//! that concern the whole module (`settings.rs`), registered with the server.
//!
//! They can be given as module arguments (RedisBloom's `ERROR_RATE`/`INITIAL_SIZE`/
//! `CF_MAX_EXPANSIONS` or the new names, case-insensitive), in the config file and with
//! CONFIG SET/GET (Redis ≥ 7.0, Valkey; before 7.0 servers have no module configs: module
//! arguments only). Every setting is registered the same way, its name spelled by the
//! server's rules:
//!
//! * Redis ≥ 8 (as RedisBloom 8 does): unprefixed (`bf-error-rate`), with the prefixed name
//!   (`bf.bf-error-rate`) as an alias, so config files written for RedisBloom 8 and files
//!   written for redis-bf on Redis 7 both start;
//! * Redis 7.x and Valkey (whose module API is Redis 7.2's; Valkey 8 refuses the unprefixed
//!   flag, and the server then exits): with the module prefix, `bf.bf-error-rate`.
//!
//! Should the server refuse the unprefixed form anyway, the prefixed one is used.

use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::Ordering;

use redis_module::{raw, Context, RedisString};

use super::families::FAMILIES;
use super::ffi::{self, c_string, log};
use super::{server, settings};
use crate::commands::setting::Setting;

/// Every setting: each family's, then the module's.
fn settings() -> impl Iterator<Item = &'static Setting> {
    let families = FAMILIES
        .iter()
        .flat_map(|registered| registered.family.settings);
    families.copied().chain(settings::MODULE_SETTINGS)
}

/// `REDISMODULE_CONFIG_UNPREFIXED` (Redis ≥ 8; the crate's header predates it).
const CONFIG_UNPREFIXED: u32 = 1 << 9;
/// The first Redis whose module API has unprefixed configs and config aliases.
const FIRST_VERSION_UNPREFIXED: server::Version = (8, 0, 0);

/// How config names are spelled on this server.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Naming {
    /// `bf-error-rate|bf.bf-error-rate`, with the unprefixed flag.
    Unprefixed,
    /// `bf-error-rate`, which the server prefixes: `bf.bf-error-rate`.
    Prefixed,
}

impl Naming {
    /// The name to register `setting` under, and the flags.
    fn registration(self, setting: &Setting) -> (CString, u32) {
        let name = setting.name.to_string_lossy();
        let immutable = if setting.at_load_only {
            raw::REDISMODULE_CONFIG_IMMUTABLE
        } else {
            0
        };
        match self {
            Naming::Unprefixed => (
                c_string(&format!("{name}|bf.{name}")),
                CONFIG_UNPREFIXED | immutable,
            ),
            Naming::Prefixed => (c_string(&name), immutable),
        }
    }
}

/// Applies module arguments (pairs of name and value), as RedisBloom's OnLoad does.
pub fn apply_module_args(ctx: &Context, args: &[RedisString]) -> Result<(), String> {
    // A single empty argument is how some packagers load a module with none.
    let args = if args.len() == 1 && args[0].as_slice().is_empty() {
        &[]
    } else {
        args
    };
    if args.len() % 2 != 0 {
        return Err("Invalid number of arguments passed".into());
    }
    for pair in args.chunks_exact(2) {
        let (name, value) = (pair[0].as_slice(), pair[1].as_slice());
        let name_text = String::from_utf8_lossy(name);
        let setting = settings()
            .find(|s| {
                name.eq_ignore_ascii_case(s.name.to_bytes())
                    || s.legacy_arg
                        .is_some_and(|legacy| name.eq_ignore_ascii_case(legacy.as_bytes()))
            })
            .ok_or_else(|| format!("Unrecognized option '{name_text}'"))?;
        if !name.eq_ignore_ascii_case(setting.name.to_bytes()) {
            log(
                ctx.ctx,
                c"warning",
                &format!(
                    "The '{name_text}' configuration is deprecated. Please use '{}' instead",
                    setting.name.to_string_lossy()
                ),
            );
        }
        setting
            .set(value)
            .map_err(|e| format!("{} (module argument '{name_text}')", e.to_string_lossy()))?;
    }
    Ok(())
}

/// Registers the configs, with the values set so far as their defaults, then loads any
/// values the config file gives.
pub fn register(context: &Context) -> Result<(), String> {
    let ctx = context.ctx;
    // SAFETY: reading API pointers set by RedisModule_Init.
    let (Some(_), Some(load)) = (unsafe { raw::RedisModule_RegisterStringConfig }, unsafe {
        raw::RedisModule_LoadConfigs
    }) else {
        return Ok(()); // Servers before 7.0: module arguments only.
    };
    let mut naming = if server::api_version(ctx).is_some_and(|v| v >= FIRST_VERSION_UNPREFIXED) {
        Naming::Unprefixed
    } else {
        Naming::Prefixed
    };
    for (i, setting) in settings().enumerate() {
        if register_one(ctx, setting, naming) {
            continue;
        }
        // Nothing is registered before the first setting: it may try the other spelling.
        if i == 0 && naming == Naming::Unprefixed && register_one(ctx, setting, Naming::Prefixed) {
            log(
                ctx,
                c"notice",
                "The server refused unprefixed configs: they are named bf.bf-error-rate etc.",
            );
            naming = Naming::Prefixed;
            continue;
        }
        return Err(format!(
            "could not register config {}",
            setting.name.to_string_lossy()
        ));
    }
    // SAFETY: OnLoad context, after registering every config.
    if unsafe { load(ctx) } != raw::REDISMODULE_OK as c_int {
        return Err("could not load the bf configs".into());
    }
    Ok(())
}

/// Registers one config, named as `naming` says; false if the server refuses it.
fn register_one(ctx: *mut raw::RedisModuleCtx, setting: &'static Setting, naming: Naming) -> bool {
    // SAFETY: reading an API pointer set by RedisModule_Init.
    let Some(register) = (unsafe { raw::RedisModule_RegisterStringConfig }) else {
        return false;
    };
    let (name, flags) = naming.registration(setting);
    let default = c_string(&setting.shown_value());
    let privdata = ptr::from_ref::<Setting>(setting)
        .cast_mut()
        .cast::<c_void>();
    // SAFETY: OnLoad context; `name` and `default` are NUL-terminated and copied by the
    // server; `privdata` points to a static that lives as long as the module.
    unsafe {
        register(
            ctx,
            name.as_ptr(),
            default.as_ptr(),
            flags,
            Some(get),
            Some(set),
            None,
            privdata,
        ) == raw::REDISMODULE_OK as c_int
    }
}

/// # Safety
/// `privdata` is the `&'static Setting` given at registration.
unsafe fn setting<'a>(privdata: *mut c_void) -> &'a Setting {
    // SAFETY: guaranteed by the caller.
    unsafe { &*privdata.cast::<Setting>() }
}

unsafe extern "C" fn get(
    _name: *const c_char,
    privdata: *mut c_void,
) -> *mut raw::RedisModuleString {
    // SAFETY: the server passes back our privdata.
    let setting = unsafe { setting(privdata) };
    let text = setting.shown_value();
    // SAFETY: a context-less string is ours to free; the server copied the previous one when
    // it got it, so freeing it now is safe. Configs are only read on the main thread.
    unsafe {
        let (Some(create), Some(free)) =
            (raw::RedisModule_CreateString, raw::RedisModule_FreeString)
        else {
            return ptr::null_mut();
        };
        let fresh = create(ptr::null_mut(), text.as_ptr().cast::<c_char>(), text.len());
        let old = setting.shown.swap(fresh.cast(), Ordering::Relaxed);
        if !old.is_null() {
            free(ptr::null_mut(), old.cast());
        }
        fresh
    }
}

unsafe extern "C" fn set(
    _name: *const c_char,
    value: *mut raw::RedisModuleString,
    privdata: *mut c_void,
    err: *mut *mut raw::RedisModuleString,
) -> c_int {
    // SAFETY: the server passes back our privdata and a live string.
    let setting = unsafe { setting(privdata) };
    // SAFETY: the server's string lives, unchanged, for the call, which the bytes do not outlive.
    match setting.set(unsafe { ffi::bytes(value) }) {
        Ok(()) => raw::REDISMODULE_OK as c_int,
        Err(message) => {
            // SAFETY: `err` is the server's out-parameter; it frees the string it receives.
            unsafe {
                if let Some(create) = raw::RedisModule_CreateString {
                    let text = message.to_bytes();
                    *err = create(ptr::null_mut(), text.as_ptr().cast::<c_char>(), text.len());
                }
            }
            raw::REDISMODULE_ERR as c_int
        }
    }
}
