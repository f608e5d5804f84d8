//! The module's sections of `INFO` (all of them with `INFO bf` or `INFO everything`, one with
//! its full name): the server prefixes each section's name and each field's with `bf_`. The
//! unnamed section (`# bf`) is the module's own state; each family adds its own section of
//! totals (its `Family::info`: valkey-bloom's names where it has them, so exporters and
//! dashboards made for it read ours). Reading them allocates nothing, so the allocation count
//! read here is not disturbed by the reading.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::{raw, Context};

use super::families::FAMILIES;
use super::guard::guarded;
use super::{alloc, defrag, huge_pages, vector, version};
use crate::commands::family::{InfoField, Stat};
use crate::commands::metrics::Totals;

/// A field's value.
enum Value {
    Count(u64),
    Text(&'static CStr),
}

/// A field of the module's own section: its name (without the server's `bf_` prefix) and what
/// reads its value.
struct Field {
    name: &'static CStr,
    read: fn() -> Value,
}

/// The module's own state.
static MODULE_FIELDS: &[Field] = &[
    // redis-bf's own version (`MODULE LIST` shows RedisBloom's, which redis-bf answers as).
    Field {
        name: c"redis_bf_version",
        read: || Value::Text(version::REDIS_BF),
    },
    // Allocations the module has made since it loaded: the single-item commands make none.
    Field {
        name: c"heap_allocations",
        read: || Value::Count(alloc::allocations()),
    },
    // `yes`, `no` (the `bf-huge-pages` config), or `unavailable (why)`.
    Field {
        name: c"huge_pages",
        read: huge_pages,
    },
    // Bytes of bit arrays advised huge pages since the module loaded.
    Field {
        name: c"huge_pages_advised_bytes",
        read: || Value::Count(huge_pages::huge_pages_advised()),
    },
    // `avx512`, `avx2` or `no`: the unit the sketches' row hashes run on (`bf-vector-hashing`).
    Field {
        name: c"vector_hashing",
        read: || Value::Text(vector::info(super::settings::vector_hashing())),
    },
    // Blocks active defragmentation moved, and blocks it offered the allocator and left
    // under valkey-bloom's names, so its dashboards read them (here for every family).
    Field {
        name: c"bloom_defrag_hits",
        read: || Value::Count(defrag::hits()),
    },
    Field {
        name: c"bloom_defrag_misses",
        read: || Value::Count(defrag::misses()),
    },
];

/// The value of one field of a family's section.
fn total(totals: &Totals, stat: Stat) -> u64 {
    let sums = totals.sums();
    match stat {
        Stat::Objects => sums.objects,
        Stat::Bytes => sums.sum.bytes,
        Stat::Count(i) => sums.sum.counts.get(i).copied().unwrap_or(0),
    }
}

fn huge_pages() -> Value {
    Value::Text(if !super::settings::huge_pages() {
        c"no"
    } else {
        huge_pages::huge_pages_unavailable().map_or(c"yes", |reason| reason.info)
    })
}

/// Registers the section where the server has module INFO sections (Redis ≥ 6.0, Valkey).
pub fn register(ctx: &Context) {
    // SAFETY: OnLoad context; `section` is a function of the signature the server expects.
    unsafe {
        if let Some(register) = raw::RedisModule_RegisterInfoFunc {
            register(ctx.ctx, Some(section));
        }
    }
}

unsafe extern "C" fn section(ctx: *mut raw::RedisModuleInfoCtx, _for_crash_report: c_int) {
    guarded((), || write(ctx));
}

fn write(ctx: *mut raw::RedisModuleInfoCtx) {
    // The server names a section `bf_<name>` (`bf` for an empty name), and refuses it when
    // INFO asked for other sections.
    if add_section(ctx, c"") {
        for Field { name, read } in MODULE_FIELDS {
            add_field(ctx, name, read());
        }
    }
    for registered in FAMILIES {
        let family = registered.family;
        if add_section(ctx, family.info.name) {
            for InfoField { name, shows } in family.info.fields {
                add_field(ctx, name, Value::Count(total(family.totals, *shows)));
            }
        }
    }
}

/// Begins a section; false when the server refuses it.
fn add_section(ctx: *mut raw::RedisModuleInfoCtx, name: &CStr) -> bool {
    // SAFETY: `ctx` is the INFO context the server passed to `section`; the API pointer was
    // set by RedisModule_Init or is None; the name is NUL-terminated.
    unsafe {
        raw::RedisModule_InfoAddSection
            .is_some_and(|add| add(ctx, name.as_ptr()) == raw::REDISMODULE_OK as c_int)
    }
}

fn add_field(ctx: *mut raw::RedisModuleInfoCtx, name: &CStr, value: Value) {
    // SAFETY: as in `add_section`, in a section the server accepted; the strings are static.
    unsafe {
        match value {
            Value::Count(n) => {
                if let Some(add) = raw::RedisModule_InfoAddFieldULongLong {
                    add(ctx, name.as_ptr(), n);
                }
            }
            Value::Text(text) => {
                if let Some(add) = raw::RedisModule_InfoAddFieldCString {
                    add(ctx, name.as_ptr(), text.as_ptr());
                }
            }
        }
    }
}
