//! The boundary between the server and the commands: one `extern "C"` entry point per
//! command, each building the command's [`Call`] and running it under the panic guard. A
//! panic becomes an error reply and a line in the server log.

use std::mem::MaybeUninit;
use std::os::raw::c_int;
use std::ptr;

use redis_module::{raw, RedisString};

use super::context::CommandContext;
use super::guard::guarded;
use super::{info, reply};
use crate::commands::call::Call;
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
    let server = CommandContext::new(ctx, strings.get(1).copied().unwrap_or(ptr::null_mut()));
    let writer = reply::Writer::new(ctx);
    let call = Call {
        args,
        server: &server,
        metrics: &info::METRICS,
        out: &writer,
    };
    let result = guarded(Err(Failure::Message(errors::INTERNAL_ERROR)), || {
        (spec.run)(&call)
    });
    writer.finish(result);
}
