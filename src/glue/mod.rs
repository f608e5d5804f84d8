//! Everything that touches the server directly: the module's entry point (`load`) and what it
//! learns of the server (`server`), the families it registers (`families`), registration and
//! command metadata (`command_info`), the entry points of commands (`dispatch`) and replies
//! (`reply`), the data types' callbacks (`data_type`, shared; `types/`, one safe file per
//! family's formats), active defragmentation (`defrag`), configs, the allocator, the module's
//! `INFO` sections (`info`), the count of forks (`forks`), the panic boundary (`guard`) and
//! small FFI helpers (`ffi`). All `unsafe` code of the crate lives here, each block with its
//! `SAFETY:` argument; only `families.rs` and `types/` name a family.

#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_op_in_unsafe_fn)]

pub mod alloc;
mod command_info;
mod config;
mod context;
mod data_type;
mod defrag;
mod dispatch;
mod families;
mod ffi;
mod forks;
mod guard;
pub mod huge_pages;
mod info;
mod io;
mod load;
mod reply;
mod server;
mod types;

use std::os::raw::c_int;

use redis_module::{raw, Context, RedisString, Status};

/// Module initialisation, after the data types are created (`load`): configs, then commands.
pub fn init(ctx: &Context, args: &[RedisString]) -> Status {
    guard::install_panic_hook();
    // Truncated or corrupt RDB/RESTORE payloads then fail the load instead of killing the
    // server, and replicas may load the RDB while serving (diskless load).
    // SAFETY: OnLoad context; reading an API pointer set by RedisModule_Init.
    unsafe {
        if let Some(set_options) = raw::RedisModule_SetModuleOptions {
            set_options(ctx.ctx, raw::REDISMODULE_OPTIONS_HANDLE_IO_ERRORS as c_int);
        }
    }
    let setup = config::apply_module_args(ctx, args)
        .and_then(|()| config::register(ctx))
        .and_then(|()| command_info::register_commands(ctx.ctx));
    match setup {
        Ok(()) => {
            info::register(ctx);
            forks::subscribe(ctx.ctx);
            if config::huge_pages() {
                huge_pages::log_huge_pages_unavailable();
            }
            Status::Ok
        }
        Err(message) => {
            ffi::log(
                ctx.ctx,
                c"warning",
                &format!("redis-bf not loaded: {message}"),
            );
            Status::Err
        }
    }
}
