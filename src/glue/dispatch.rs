//! The boundary between the server and the commands: every command of every family in one
//! table ([`ALL`]), one `extern "C"` entry point per command, each checking the arity, building
//! the command's [`Call`] and running it under the panic guard. A panic becomes an error reply
//! and a line in the server log. A call that only asks for the command's keys is answered by
//! `key_positions.rs`.

use std::mem::MaybeUninit;
use std::os::raw::c_int;

use redis_module::raw;

use super::context::CommandContext;
use super::families::{count_across_families, gather_across_families};
use super::ffi;
use super::guard::guarded;
use super::{key_positions, reply};
use crate::commands::call::Call;
use crate::commands::errors::{self, Failure};
use crate::commands::spec::{CommandSpec, KeyAccess, Keys};

/// A command entry point as `RedisModule_CreateCommand` takes it.
pub type Handler = unsafe extern "C" fn(
    *mut raw::RedisModuleCtx,
    *mut *mut raw::RedisModuleString,
    c_int,
) -> c_int;

/// Every command of every family, in registration order.
pub static ALL: [&CommandSpec; COMMAND_COUNT] =
    gather_across_families!(family.commands, COMMAND_COUNT, &PLACEHOLDER);

/// How many commands the families have.
const COMMAND_COUNT: usize = count_across_families!(family.commands);

/// What fills [`ALL`] before the families' commands are copied in.
static PLACEHOLDER: CommandSpec = CommandSpec {
    name: "",
    flags: "",
    arity: 0,
    keys: Keys::One(KeyAccess::Read),
    acl_categories: "",
    summary: "",
    complexity: "",
    since: "",
    tips: None,
    args: &[],
    run: |_| Err(Failure::Message(errors::INTERNAL_ERROR)),
};

/// Sixteen entry points, for the places `16 × row` to `16 × row + 15` of [`ALL`].
macro_rules! entry_point_row {
    ($row:literal) => {
        [
            dispatch::<{ 16 * $row }>,
            dispatch::<{ 16 * $row + 1 }>,
            dispatch::<{ 16 * $row + 2 }>,
            dispatch::<{ 16 * $row + 3 }>,
            dispatch::<{ 16 * $row + 4 }>,
            dispatch::<{ 16 * $row + 5 }>,
            dispatch::<{ 16 * $row + 6 }>,
            dispatch::<{ 16 * $row + 7 }>,
            dispatch::<{ 16 * $row + 8 }>,
            dispatch::<{ 16 * $row + 9 }>,
            dispatch::<{ 16 * $row + 10 }>,
            dispatch::<{ 16 * $row + 11 }>,
            dispatch::<{ 16 * $row + 12 }>,
            dispatch::<{ 16 * $row + 13 }>,
            dispatch::<{ 16 * $row + 14 }>,
            dispatch::<{ 16 * $row + 15 }>,
        ]
    };
}

/// Entry points for up to 256 commands. Redis passes no user data to a command, so each command
/// needs its own function, and Rust makes one per place only from a literal: these are the
/// candidates, of which [`ENTRY_POINTS`] keeps as many as the families have commands (only those
/// are compiled in).
const CANDIDATES: [[Handler; 16]; 16] = [
    entry_point_row!(0),
    entry_point_row!(1),
    entry_point_row!(2),
    entry_point_row!(3),
    entry_point_row!(4),
    entry_point_row!(5),
    entry_point_row!(6),
    entry_point_row!(7),
    entry_point_row!(8),
    entry_point_row!(9),
    entry_point_row!(10),
    entry_point_row!(11),
    entry_point_row!(12),
    entry_point_row!(13),
    entry_point_row!(14),
    entry_point_row!(15),
];
const _: () = assert!(COMMAND_COUNT <= 16 * 16, "add rows of entry points");

/// The entry point of `ALL[i]` is `ENTRY_POINTS[i]`: one per command of the families.
pub static ENTRY_POINTS: [Handler; COMMAND_COUNT] = {
    let mut points: [Handler; COMMAND_COUNT] = [CANDIDATES[0][0]; COMMAND_COUNT];
    let mut i = 0;
    while i < COMMAND_COUNT {
        points[i] = CANDIDATES[i / 16][i % 16];
        i += 1;
    }
    points
};

/// Arguments of commands with at most this many are borrowed into an array on the stack
/// (left uninitialised beyond them); only longer ones need a heap allocation to list them.
const STACK_ARGS: usize = 256;

unsafe extern "C" fn dispatch<const I: usize>(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    if let Some(spec) = ALL.get(I) {
        run(spec, ctx, argv, argc);
    }
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
    let string_ptr_len = ffi::string_ptr_len();
    let arg = |i: usize, string: *mut raw::RedisModuleString| match (i, string_ptr_len) {
        (0, _) => spec.name.as_bytes(),
        (_, None) => &[],
        // SAFETY: `string` is one of the running command's arguments, alive and unchanged
        // until it returns, which `args` does not outlive.
        (_, Some(ptr_len)) => unsafe { ffi::bytes_by(ptr_len, string) },
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
    if spec.keys.asks_command() && key_positions::asked(ctx) {
        guarded((), || key_positions::tell(ctx, spec.keys, args));
        return;
    }
    let server = CommandContext::new(ctx, strings);
    let writer = reply::Writer::new(ctx);
    let call = Call::new(args, &server, &writer);
    let result = if spec.arity_allows(args.len()) {
        guarded(Err(Failure::Message(errors::INTERNAL_ERROR)), || {
            (spec.run)(&call)
        })
    } else {
        Err(Failure::WrongArity)
    };
    writer.finish(result);
}
