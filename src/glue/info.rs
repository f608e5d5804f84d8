//! The module's section of `INFO` (`INFO bf`, and `INFO everything`): one line per field,
//! each prefixed `bf_` by the server. A field is a name and a function reading its value now;
//! adding one is adding a line to [`FIELDS`]. Reading them allocates nothing, so the
//! allocation count read here is not disturbed by the reading.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::{raw, Context};

use super::alloc;
use super::guard::guarded;

/// A field's value.
enum Value {
    Count(u64),
    Text(&'static CStr),
}

/// A field: its name (without the server's `bf_` prefix) and what reads its value.
struct Field {
    name: &'static CStr,
    read: fn() -> Value,
}

/// Every field of the section, in order.
static FIELDS: &[Field] = &[
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
        read: || Value::Count(alloc::huge_pages_advised()),
    },
];

fn huge_pages() -> Value {
    Value::Text(if !super::config::huge_pages() {
        c"no"
    } else {
        alloc::huge_pages_unavailable().map_or(c"yes", |reason| reason.info)
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
    // SAFETY: (every call below) `ctx` is the INFO context the server passed to `section`,
    // each API pointer was set by RedisModule_Init or is None, and the strings are static.
    unsafe {
        let Some(add_section) = raw::RedisModule_InfoAddSection else {
            return;
        };
        // An empty name: the section is called after the module, `bf`.
        if add_section(ctx, c"".as_ptr()) != raw::REDISMODULE_OK as c_int {
            return;
        }
        for Field { name, read } in FIELDS {
            match read() {
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
}
