//! The boundary between the server and the commands: one `extern "C"` entry point per
//! command, each running the command under `catch_unwind`. A panic that crossed into the
//! server would abort it; here it becomes an error reply and a line in the server log.

use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use std::ffi::CStr;
use std::ptr::NonNull;

use redis_module::{raw, Context, RedisString};

use super::{alloc, config, data_type, reply};
use crate::commands::errors::{self, Failure};
use crate::commands::{Call, CommandSpec, ALL};

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
];

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
    // Arguments are borrowed as bytes (no reference counting per argument); only the key
    // becomes a `RedisString`, which opening it requires.
    let args: Vec<&[u8]> = strings
        .iter()
        .map(|&s| RedisString::string_as_slice(s))
        .collect();
    let key = strings
        .get(1)
        .map(|&s| RedisString::new(NonNull::new(ctx), s));
    let call = Call {
        ctx: &context,
        args: &args,
        key: key.as_ref(),
        bloom_type: &data_type::BLOOM_TYPE,
        fast_type: &data_type::FAST_TYPE,
        defaults: config::defaults(),
        zeroed: alloc::lazy_zeroed,
        notify,
    };
    match catch_unwind(AssertUnwindSafe(|| (spec.run)(&call))) {
        Ok(Ok(value)) => reply::send(ctx, &value),
        Ok(Err(Failure::Message(text))) => reply::error(ctx, text),
        Ok(Err(Failure::WrongArity)) => {
            // SAFETY: `ctx` is the live context of this command.
            unsafe {
                if let Some(wrong_arity) = raw::RedisModule_WrongArity {
                    wrong_arity(ctx);
                }
            }
        }
        Err(_) => reply::error(ctx, errors::INTERNAL_ERROR),
    }
}

/// Raises a module keyspace event. The crate's `notify_keyspace_event` builds a C string of
/// the event name on every call; ours are static.
fn notify(ctx: &Context, event: &'static CStr, key: &RedisString) {
    // SAFETY: `ctx` is the live context of the running command, `event` is NUL-terminated and
    // static, `key` a string retained for the command's duration.
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

/// Runs a data-type callback, turning a panic into `fallback` (the hook has logged it).
pub fn guarded<T>(fallback: T, callback: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(callback)).unwrap_or(fallback)
}

/// Sends panic messages to the server log: stderr is often /dev/null under a daemonized server.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        redis_module::logging::log_warning(format!("redis-bf: {info}"));
    }));
}
