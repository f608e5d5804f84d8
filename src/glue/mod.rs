//! Everything that touches the server directly: registration, the data type's callbacks,
//! configs, command metadata, the allocator and the panic boundary. All `unsafe` code of the
//! crate lives here, each block with its `SAFETY:` argument.

#![deny(clippy::undocumented_unsafe_blocks)]

pub mod alloc;
mod command_info;
mod config;
pub mod data_type;
mod dispatch;
mod reply;

use std::ffi::CString;

use redis_module::{Context, ModuleOptions, RedisString, Status};

/// Module initialisation, after the data type is created: configs, then commands.
pub fn init(ctx: &Context, args: &[RedisString]) -> Status {
    dispatch::install_panic_hook();
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

/// A C string of `text`, cut at a NUL rather than panicking (our texts contain none).
fn c_string(text: &str) -> CString {
    let end = text.find('\0').unwrap_or(text.len());
    CString::new(&text[..end]).unwrap_or_default()
}
