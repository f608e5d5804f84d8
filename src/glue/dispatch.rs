//! The boundary between the server and the commands: one `extern "C"` entry point per
//! command, each building the command's [`Call`] and running it under the panic guard. A
//! panic becomes an error reply and a line in the server log.

use std::ffi::CStr;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::os::raw::c_int;

use redis_module::{raw, Context, RedisString};

use super::bloom_type::{BLOOM_TYPE, FAST_TYPE};
use super::cuckoo_type::CUCKOO_TYPE;
use super::guard::guarded;
use super::{alloc, config, info, reply};
use crate::commands::call::{Call, Types};
use crate::commands::errors::{self, Failure};
use crate::commands::spec::CommandSpec;
use crate::commands::ALL;

/// A command entry point as `RedisModule_CreateCommand` takes it.
pub type Handler = unsafe extern "C" fn(
    *mut raw::RedisModuleCtx,
    *mut *mut raw::RedisModuleString,
    c_int,
) -> c_int;

/// The entry point of `ALL[i]` is `HANDLERS[i]`. Redis passes no user data to a command,
/// so each command needs its own function; the const parameter makes them.
pub static HANDLERS: [Handler; ALL.len()] = [
    dispatch::<0>,
    dispatch::<1>,
    dispatch::<2>,
    dispatch::<3>,
    dispatch::<4>,
    dispatch::<5>,
    dispatch::<6>,
    dispatch::<7>,
    dispatch::<8>,
    dispatch::<9>,
    dispatch::<10>,
    dispatch::<11>,
    dispatch::<12>,
    dispatch::<13>,
    dispatch::<14>,
    dispatch::<15>,
    dispatch::<16>,
    dispatch::<17>,
    dispatch::<18>,
    dispatch::<19>,
    dispatch::<20>,
    dispatch::<21>,
    dispatch::<22>,
    dispatch::<23>,
    dispatch::<24>,
];

static TYPES: Types = Types {
    bloom: &BLOOM_TYPE,
    fast: &FAST_TYPE,
    cuckoo: &CUCKOO_TYPE,
};

/// Arguments of commands with at most this many are borrowed into an array on the stack
/// (left uninitialised beyond them); only longer ones need a heap allocation to list them.
const STACK_ARGS: usize = 256;

unsafe extern "C" fn dispatch<const I: usize>(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    run(ALL[I], ctx, argv, argc);
    raw::Status::Ok as c_int
}

fn run(
    spec: &CommandSpec,
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) {
    let context = Context::new(ctx);
    let strings: &[*mut raw::RedisModuleString] = match usize::try_from(argc) {
        // SAFETY: Redis passes `argc` valid strings at `argv`, alive until the command returns.
        Ok(len) if !argv.is_null() => unsafe { std::slice::from_raw_parts(argv, len) },
        _ => &[],
    };
    // Arguments are borrowed as bytes: no copy, no reference counting. The command name is
    // never read as bytes, so it is the spec's rather than one more server call.
    let arg = |i: usize, string| match i {
        0 => spec.name.as_bytes(),
        _ => RedisString::string_as_slice(string),
    };
    let mut stack = [const { MaybeUninit::<&[u8]>::uninit() }; STACK_ARGS];
    let spilled: Vec<&[u8]>;
    let args: &[&[u8]] = if strings.len() <= STACK_ARGS {
        for (i, (slot, &string)) in stack.iter_mut().zip(strings).enumerate() {
            slot.write(arg(i, string));
        }
        // SAFETY: the first `strings.len()` slots were just initialised.
        unsafe { std::slice::from_raw_parts(stack.as_ptr().cast::<&[u8]>(), strings.len()) }
    } else {
        spilled = strings
            .iter()
            .enumerate()
            .map(|(i, &string)| arg(i, string))
            .collect();
        &spilled
    };
    // The key is the client's own argument string, borrowed for the command's duration:
    // never retained, so never released (`ManuallyDrop` keeps `RedisString` from freeing it).
    let key = strings
        .get(1)
        .map(|&s| ManuallyDrop::new(RedisString::from_redis_module_string(ctx, s)));
    let writer = reply::Writer::new(ctx);
    let call = Call {
        ctx: &context,
        args,
        key: key.as_deref(),
        types: &TYPES,
        config: config::snapshot(),
        memory: alloc::memory(ctx),
        metrics: &info::METRICS,
        notify,
        out: &writer,
    };
    let result = guarded(Err(Failure::Message(errors::INTERNAL_ERROR)), || {
        (spec.run)(&call)
    });
    writer.finish(result);
}

/// Raises a module keyspace event. The crate's `notify_keyspace_event` builds a C string of
/// the event name on every call; ours are static.
fn notify(ctx: &Context, event: &'static CStr, key: &RedisString) {
    // SAFETY: `ctx` is the live context of the running command, `event` is NUL-terminated and
    // static, `key` a string alive for the command's duration.
    unsafe {
        if let Some(notify) = raw::RedisModule_NotifyKeyspaceEvent {
            notify(
                ctx.ctx,
                raw::NotifyEvent::MODULE.bits(),
                event.as_ptr(),
                key.inner,
            );
        }
    }
}
