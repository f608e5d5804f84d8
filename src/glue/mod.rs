//! Everything that touches the server directly: registration and command metadata
//! (`command_info`), the entry points (`dispatch`) and replies (`reply`), the data types'
//! callbacks (`data_type` shared, one file per type), configs, the allocator, the panic
//! boundary (`guard`) and small FFI helpers (`ffi`). All `unsafe` code of the crate lives here,
//! each block with its `SAFETY:` argument.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod alloc;
pub mod bloom_type;
mod command_info;
mod config;
pub mod cuckoo_type;
mod data_type;
mod dispatch;
mod ffi;
mod guard;
mod reply;

use redis_module::{Context, ModuleOptions, RedisString, Status};

/// Module initialisation, after the data type is created: configs, then commands.
pub fn init(ctx: &Context, args: &[RedisString]) -> Status {
    guard::install_panic_hook();
    // Truncated or corrupt RDB/RESTORE payloads then fail the load instead of killing the
    // server, and replicas may load the RDB while serving (diskless load).
    ctx.set_module_options(ModuleOptions::HANDLE_IO_ERRORS);
    let setup = config::apply_module_args(ctx, args)
        .and_then(|()| config::register(ctx))
        .and_then(|()| command_info::register_commands(ctx.ctx));
    match setup {
        Ok(()) => Status::Ok,
        Err(message) => {
            ctx.log_warning(&format!("redis-bf failed to load: {message}"));
            Status::Err
        }
    }
}
