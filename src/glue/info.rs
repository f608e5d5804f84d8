//! The module's sections of `INFO` (all of them with `INFO bf` or `INFO everything`, one with
//! its full name): the server prefixes each section's name and each field's with `bf_`. The
//! unnamed section (`# bf`) is the module's own state; `bloom_core_metrics` has the totals of
//! the Bloom filters under valkey-bloom's names (its `src/metrics.rs`), so exporters and
//! dashboards made for it read ours; `cuckoo_core_metrics` the same for Cuckoo filters. A
//! field is a name and a function reading its value now; adding one is adding a line to
//! [`SECTIONS`]. Reading them allocates nothing, so the allocation count read here is not
//! disturbed by the reading.

use std::ffi::CStr;
use std::os::raw::c_int;

use redis_module::{raw, Context};

use super::alloc;
use super::guard::guarded;
use crate::commands::metrics::{Family, Metrics, Totals};

/// The totals of the stored filters: commands reach them through their `Call`, the data
/// types' callbacks directly.
pub static METRICS: Metrics = Metrics::new();

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

/// A section: its name (without the server's `bf_` prefix; empty for the one named `bf`) and
/// its fields, in order.
struct Section {
    name: &'static CStr,
    fields: &'static [Field],
}

/// Every section, in order.
static SECTIONS: &[Section] = &[
    Section {
        name: c"",
        fields: MODULE_FIELDS,
    },
    Section {
        name: c"bloom_core_metrics",
        fields: BLOOM_FIELDS,
    },
    Section {
        name: c"cuckoo_core_metrics",
        fields: CUCKOO_FIELDS,
    },
];

/// The module's own state.
static MODULE_FIELDS: &[Field] = &[
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

/// The totals of the Bloom filters of both layouts (valkey-bloom's fields, same meaning).
static BLOOM_FIELDS: &[Field] = &[
    // Bytes as MEMORY USAGE counts them, over every filter.
    Field {
        name: c"bloom_total_memory_bytes",
        read: || total(&METRICS.bloom, |t| t.sum.bytes),
    },
    Field {
        name: c"bloom_num_objects",
        read: || total(&METRICS.bloom, |t| t.objects),
    },
    // Sub-filters.
    Field {
        name: c"bloom_num_filters_across_objects",
        read: || total(&METRICS.bloom, |t| t.sum.filters),
    },
    // BF.CARD.
    Field {
        name: c"bloom_num_items_across_objects",
        read: || total(&METRICS.bloom, |t| t.sum.items),
    },
    // BF.INFO Capacity.
    Field {
        name: c"bloom_capacity_across_objects",
        read: || total(&METRICS.bloom, |t| t.sum.capacity),
    },
];

/// The totals of the Cuckoo filters, shaped as the Bloom ones.
static CUCKOO_FIELDS: &[Field] = &[
    Field {
        name: c"cuckoo_total_memory_bytes",
        read: || total(&METRICS.cuckoo, |t| t.sum.bytes),
    },
    Field {
        name: c"cuckoo_num_objects",
        read: || total(&METRICS.cuckoo, |t| t.objects),
    },
    Field {
        name: c"cuckoo_num_filters_across_objects",
        read: || total(&METRICS.cuckoo, |t| t.sum.filters),
    },
    // CF.INFO's "Number of items inserted" (inserted minus deleted).
    Field {
        name: c"cuckoo_num_items_across_objects",
        read: || total(&METRICS.cuckoo, |t| t.sum.items),
    },
    // Slots: buckets × bucket size.
    Field {
        name: c"cuckoo_capacity_across_objects",
        read: || total(&METRICS.cuckoo, |t| t.sum.capacity),
    },
    // CF.INFO's "Number of items deleted" (since each filter's last CF.COMPACT).
    Field {
        name: c"cuckoo_num_deletes_across_objects",
        read: || total(&METRICS.cuckoo, |t| t.sum.deletes),
    },
];

/// One total of a family.
fn total(family: &Family, pick: fn(&Totals) -> u64) -> Value {
    Value::Count(pick(&family.totals()))
}

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
        for section in SECTIONS {
            // The server names it `bf_<name>` (`bf` for an empty name), and refuses it when
            // INFO asked for other sections.
            if add_section(ctx, section.name.as_ptr()) == raw::REDISMODULE_OK as c_int {
                add_fields(ctx, section.fields);
            }
        }
    }
}

fn add_fields(ctx: *mut raw::RedisModuleInfoCtx, fields: &[Field]) {
    // SAFETY: (every call below) as in `write`, in a section the server accepted.
    unsafe {
        for Field { name, read } in fields {
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
