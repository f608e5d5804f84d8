//! The `bf-error-rate`, `bf-initial-size`, `bf-expansion-factor` and (ours) `bf-layout`
//! configs, and the `cf-bucket-size`, `cf-initial-size`, `cf-max-iterations`,
//! `cf-expansion-factor` and `cf-max-expansions` configs: defaults for filters created without
//! explicit parameters, which changing them affects only for new filters — except
//! `cf-max-expansions`, a limit every CF insert checks, and the CF ranges they couple (see
//! `commands::cf`); (ours) `bf-memory-usage-limit`, the most memory one filter may hold; and
//! (ours) `bf-huge-pages`, whether big bit arrays ask for transparent huge pages (for arrays
//! made or loaded afterwards).
//!
//! They can be given as module arguments (RedisBloom's `ERROR_RATE`/`INITIAL_SIZE`/
//! `CF_MAX_EXPANSIONS` or the new names, case-insensitive), in the config file and with
//! CONFIG SET/GET (Redis ≥ 7.0, Valkey; before 7.0 servers have no module configs: module
//! arguments only). Every row of [`SETTINGS`] is registered the same way, its name spelled by
//! the server's rules:
//!
//! * Redis ≥ 8 (as RedisBloom 8 does): unprefixed (`bf-error-rate`), with the prefixed name
//!   (`bf.bf-error-rate`) as an alias, so config files written for RedisBloom 8 and files
//!   written for redis-bf on Redis 7 both start;
//! * Redis 7.x and Valkey (whose module API is Redis 7.2's; Valkey 8 refuses the unprefixed
//!   flag, and the server then exits): with the module prefix, `bf.bf-error-rate`.
//!
//! Should the server refuse the unprefixed form anyway, the prefixed one is used.

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use redis_module::{raw, Context, RedisString};

use super::ffi::{c_string, log};
use super::server;
use crate::commands::args::{integer_in, parse_memory, Bad};
use crate::commands::bf;
use crate::commands::cf::rules::{self as cf, Defaults as CuckooDefaults};
use crate::commands::errors;
use crate::core::bloom::chain::{LayoutKind, Params};

/// One config: its value and how it is parsed. Values are stored as u64 (an f64's bits for
/// the error rate) so that reads need no lock.
pub struct Setting {
    name: &'static CStr,
    /// The RedisBloom module-argument name, accepted with a deprecation warning.
    legacy_arg: Option<&'static str>,
    parse: fn(&[u8]) -> Result<u64, &'static CStr>,
    show: fn(u64) -> String,
    value: AtomicU64,
    /// The string last returned to CONFIG GET: the server copies it but does not free it.
    shown: AtomicPtr<raw::RedisModuleString>,
}

static ERROR_RATE: Setting = Setting {
    name: c"bf-error-rate",
    legacy_arg: Some("ERROR_RATE"),
    parse: parse_error_rate,
    show: |bits| f64::from_bits(bits).to_string(),
    value: AtomicU64::new(0.01f64.to_bits()),
    shown: AtomicPtr::new(ptr::null_mut()),
};

static INITIAL_SIZE: Setting = Setting {
    name: c"bf-initial-size",
    legacy_arg: Some("INITIAL_SIZE"),
    parse: |text| {
        setting_integer(text, &bf::CAPACITY).map_err(|_| errors::CONFIG_INITIAL_SIZE_RANGE)
    },
    show: |n| n.to_string(),
    value: AtomicU64::new(100),
    shown: AtomicPtr::new(ptr::null_mut()),
};

static EXPANSION: Setting = Setting {
    name: c"bf-expansion-factor",
    legacy_arg: None,
    parse: |text| setting_integer(text, &bf::EXPANSION).map_err(|_| errors::CONFIG_EXPANSION_RANGE),
    show: |n| n.to_string(),
    value: AtomicU64::new(2),
    shown: AtomicPtr::new(ptr::null_mut()),
};

/// Ours: the layout of filters created without `LAYOUT` (RedisBloom's by default).
static LAYOUT: Setting = Setting {
    name: c"bf-layout",
    legacy_arg: None,
    parse: |text| {
        let layout = bf::layout_named(text).ok_or(errors::CONFIG_BAD_LAYOUT)?;
        Ok(u64::from(layout == LayoutKind::Fast))
    },
    show: |value| bf::layout_name(stored_layout(value)).into(),
    value: AtomicU64::new(0),
    shown: AtomicPtr::new(ptr::null_mut()),
};

/// Ours: whether bit arrays of 2 MiB or more ask for transparent huge pages (`glue::alloc`).
static HUGE_PAGES: Setting = Setting {
    name: c"bf-huge-pages",
    legacy_arg: None,
    parse: |text| match () {
        () if text.eq_ignore_ascii_case(b"yes") => Ok(1),
        () if text.eq_ignore_ascii_case(b"no") => Ok(0),
        () => Err(errors::CONFIG_BAD_HUGE_PAGES),
    },
    show: |value| if value == 1 { "yes" } else { "no" }.into(),
    value: AtomicU64::new(1),
    shown: AtomicPtr::new(ptr::null_mut()),
};

/// `bf-huge-pages`: whether big bit arrays are advised transparent huge pages.
pub fn huge_pages() -> bool {
    HUGE_PAGES.value.load(Ordering::Relaxed) == 1
}

static CF_BUCKET_SIZE: Setting = Setting {
    name: c"cf-bucket-size",
    legacy_arg: None,
    parse: |text| {
        let range = cf::bucket_sizes(CF_INITIAL_SIZE.value.load(Ordering::Relaxed));
        let max = u8::try_from(*range.end()).unwrap_or(u8::MAX);
        setting_integer(text, &range).map_err(|bad| match bad {
            Bad::NotANumber => errors::CONFIG_CF_BAD_BUCKET_SIZE,
            Bad::OutOfRange => errors::config_cf_bucket_size_range(max),
        })
    },
    show: |n| n.to_string(),
    value: AtomicU64::new(CuckooDefaults::REDISBLOOM.bucket_size as u64),
    shown: AtomicPtr::new(ptr::null_mut()),
};
/// Ours: the most bytes one filter (of either family) may hold, as `MEMORY USAGE` counts them;
/// 0 (the default) for no limit but the machine's memory. Checked before anything is
/// allocated, when a filter is created and before it grows.
static MEMORY_LIMIT: Setting = Setting {
    name: c"bf-memory-usage-limit",
    legacy_arg: None,
    parse: |text| parse_memory(text).ok_or(errors::CONFIG_MEMORY_LIMIT),
    show: |bytes| bytes.to_string(),
    value: AtomicU64::new(0),
    shown: AtomicPtr::new(ptr::null_mut()),
};

static CF_INITIAL_SIZE: Setting = Setting {
    name: c"cf-initial-size",
    legacy_arg: None,
    parse: |text| {
        let bucket_size = CF_BUCKET_SIZE.value.load(Ordering::Relaxed);
        let bucket_size = u8::try_from(bucket_size).unwrap_or(u8::MAX);
        setting_integer(text, &cf::capacities(bucket_size.into())).map_err(|bad| match bad {
            Bad::NotANumber => errors::CONFIG_CF_BAD_INITIAL_SIZE,
            Bad::OutOfRange => errors::config_cf_initial_size_range(bucket_size),
        })
    },
    show: |n| n.to_string(),
    value: AtomicU64::new(CuckooDefaults::REDISBLOOM.initial_size),
    shown: AtomicPtr::new(ptr::null_mut()),
};

static CF_MAX_ITERATIONS: Setting = Setting {
    name: c"cf-max-iterations",
    legacy_arg: None,
    parse: |text| {
        setting_integer(text, &cf::MAX_ITERATIONS).map_err(|bad| match bad {
            Bad::NotANumber => errors::CONFIG_CF_BAD_MAX_ITERATIONS,
            Bad::OutOfRange => errors::CONFIG_CF_MAX_ITERATIONS_RANGE,
        })
    },
    show: |n| n.to_string(),
    value: AtomicU64::new(CuckooDefaults::REDISBLOOM.max_iterations as u64),
    shown: AtomicPtr::new(ptr::null_mut()),
};

static CF_EXPANSION: Setting = Setting {
    name: c"cf-expansion-factor",
    legacy_arg: None,
    parse: |text| {
        setting_integer(text, &cf::EXPANSION).map_err(|bad| match bad {
            Bad::NotANumber => errors::CONFIG_CF_BAD_EXPANSION,
            Bad::OutOfRange => errors::CONFIG_CF_EXPANSION_RANGE,
        })
    },
    show: |n| n.to_string(),
    value: AtomicU64::new(CuckooDefaults::REDISBLOOM.expansion as u64),
    shown: AtomicPtr::new(ptr::null_mut()),
};

static CF_MAX_EXPANSIONS: Setting = Setting {
    name: c"cf-max-expansions",
    legacy_arg: Some("CF_MAX_EXPANSIONS"),
    parse: |text| {
        setting_integer(text, &cf::MAX_EXPANSIONS).map_err(|bad| match bad {
            Bad::NotANumber => errors::CONFIG_CF_BAD_MAX_EXPANSIONS,
            Bad::OutOfRange => errors::CONFIG_CF_MAX_EXPANSIONS_RANGE,
        })
    },
    show: |n| n.to_string(),
    value: AtomicU64::new(CuckooDefaults::REDISBLOOM.max_expansions as u64),
    shown: AtomicPtr::new(ptr::null_mut()),
};

static SETTINGS: [&Setting; 11] = [
    &ERROR_RATE,
    &INITIAL_SIZE,
    &EXPANSION,
    &LAYOUT,
    &MEMORY_LIMIT,
    &HUGE_PAGES,
    &CF_BUCKET_SIZE,
    &CF_INITIAL_SIZE,
    &CF_MAX_ITERATIONS,
    &CF_EXPANSION,
    &CF_MAX_EXPANSIONS,
];

/// An integer setting within `range` (every range of these is non-negative).
fn setting_integer(text: &[u8], range: &std::ops::RangeInclusive<i64>) -> Result<u64, Bad> {
    integer_in(text, range).map(|n| n as u64)
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
        match self {
            Naming::Unprefixed => (c_string(&format!("{name}|bf.{name}")), CONFIG_UNPREFIXED),
            Naming::Prefixed => (c_string(&name), 0),
        }
    }
}

/// The most bytes one filter may hold in the command running in `ctx`: `bf-memory-usage-limit`
/// (0 there: no limit) for clients' commands. What the master replicates and what the AOF
/// replays were accepted once and must apply as they did, whatever this server's limit — as
/// a replica ignores `maxmemory` for its master's writes — so they get no limit; nor does
/// loading a value (RDB, RESTORE), which does not come through commands.
pub fn memory_limit(ctx: *mut raw::RedisModuleCtx) -> u64 {
    let limit = MEMORY_LIMIT.value.load(Ordering::Relaxed);
    if limit == 0 {
        return u64::MAX; // The default: no call to the server on the hot path.
    }
    const OBEYED: u32 = raw::REDISMODULE_CTX_FLAGS_REPLICATED | raw::REDISMODULE_CTX_FLAGS_LOADING;
    // SAFETY: `ctx` is the live context of the running command; reading an API pointer set by
    // RedisModule_Init.
    let flags = unsafe { raw::RedisModule_GetContextFlags.map_or(0, |flags| flags(ctx)) };
    if flags as u32 & OBEYED != 0 {
        u64::MAX
    } else {
        limit
    }
}

/// The `bf-*` configs now: the parameters of a filter made without explicit ones.
pub fn bloom_params() -> Params {
    let expansion = u32::try_from(EXPANSION.value.load(Ordering::Relaxed)).unwrap_or(2);
    Params {
        capacity: INITIAL_SIZE.value.load(Ordering::Relaxed),
        error_rate: f64::from_bits(ERROR_RATE.value.load(Ordering::Relaxed)),
        expansion,
        nonscaling: expansion == 0,
        layout: stored_layout(LAYOUT.value.load(Ordering::Relaxed)),
    }
}

/// The `cf-*` configs now (each stored within its range, so the narrowing is exact).
pub fn cuckoo_defaults() -> CuckooDefaults {
    let load = |setting: &Setting| setting.value.load(Ordering::Relaxed);
    let narrow = |setting: &Setting| u16::try_from(load(setting)).unwrap_or(u16::MAX);
    CuckooDefaults {
        initial_size: load(&CF_INITIAL_SIZE),
        bucket_size: narrow(&CF_BUCKET_SIZE),
        max_iterations: narrow(&CF_MAX_ITERATIONS),
        expansion: narrow(&CF_EXPANSION),
        max_expansions: u32::try_from(load(&CF_MAX_EXPANSIONS)).unwrap_or(u32::MAX),
    }
}

/// `bf-layout` is stored as 1 for fast, 0 for classic.
fn stored_layout(value: u64) -> LayoutKind {
    if value == 1 {
        LayoutKind::Fast
    } else {
        LayoutKind::Classic
    }
}

fn parse_error_rate(text: &[u8]) -> Result<u64, &'static CStr> {
    match bf::error_rate(text) {
        Ok(rate) => Ok(rate.min(bf::ERROR_RATE_CAP).to_bits()),
        Err(Bad::NotANumber) => Err(errors::CONFIG_BAD_ERROR_RATE),
        Err(Bad::OutOfRange) => Err(errors::CONFIG_ERROR_RATE_RANGE),
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
        let setting = SETTINGS
            .iter()
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
        let parsed = (setting.parse)(value)
            .map_err(|e| format!("{} (module argument '{name_text}')", e.to_string_lossy()))?;
        setting.value.store(parsed, Ordering::Relaxed);
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
    for (i, setting) in SETTINGS.iter().enumerate() {
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
    let default = c_string(&(setting.show)(setting.value.load(Ordering::Relaxed)));
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
    let text = (setting.show)(setting.value.load(Ordering::Relaxed));
    // SAFETY: a context-less string is ours to free; the server copied the previous one when
    // it got it, so freeing it now is safe. Configs are only read on the main thread.
    unsafe {
        let (Some(create), Some(free)) =
            (raw::RedisModule_CreateString, raw::RedisModule_FreeString)
        else {
            return ptr::null_mut();
        };
        let fresh = create(ptr::null_mut(), text.as_ptr().cast::<c_char>(), text.len());
        let old = setting.shown.swap(fresh, Ordering::Relaxed);
        if !old.is_null() {
            free(ptr::null_mut(), old);
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
    match (setting.parse)(RedisString::string_as_slice(value)) {
        Ok(parsed) => {
            setting.value.store(parsed, Ordering::Relaxed);
            raw::REDISMODULE_OK as c_int
        }
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
