//! Everything that touches the server directly: the module's entry point (`load`), what it reads of
//! the server's state (`server`), the families it registers (`families`), registration and command
//! metadata (`command_info`, with the keys a command names in `key_positions`), the entry points of
//! commands (`dispatch`, with the command's view of the server in `context`, what its keys hold in
//! `values`, what its writes tell the server in `propagate`) and replies (`reply`), the data types'
//! callbacks (`data_type`, shared; `io`, the server's I/O handles; `types/`, one safe file per
//! family's formats), active defragmentation (`defrag`), the configs (`config`; the module-wide
//! ones in `settings`), the allocator (`alloc`) and the memory bound of a value (`memory`), huge
//! pages (`huge_pages`), the vector unit the sketches hash on (`vector`), the prefetch the core
//! reads ahead with (`prefetch`), the module's `INFO` sections (`info`), the count of forks
//! (`forks`), the versions it reports (`version`), the panic boundary (`guard`) and small FFI
//! helpers (`ffi`). All `unsafe` code of the crate lives here, each block with its `SAFETY:`
//! argument; only `families.rs` and `types/` name a family. Imports run one way: `server`,
//! `settings`, `version`, `ffi` and `guard` are leaves that any other file may read; no file
//! imports one that imports it back (`make lint`, rule `import-cycle`).

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
mod format;
mod guard;
pub mod huge_pages;
mod info;
mod io;
mod key_positions;
mod load;
mod memory;
mod prefetch;
mod propagate;
mod reply;
mod server;
mod settings;
mod types;
mod values;
mod vector;
mod version;

use std::os::raw::c_int;

use redis_module::{raw, Context, RedisString, Status};

/// Module initialisation, after the data types are created (`load`): configs, then commands.
pub fn init(ctx: &Context, args: &[RedisString]) -> Status {
    guard::install_panic_hook();
    let options = server::module_options(ctx.ctx);
    // SAFETY: OnLoad context; reading an API pointer set by RedisModule_Init.
    unsafe {
        if let Some(set_options) = raw::RedisModule_SetModuleOptions {
            set_options(ctx.ctx, options as c_int);
        }
    }
    let setup = config::apply_module_args(ctx, args)
        .and_then(|()| config::register(ctx))
        .and_then(|()| families::register_data_types(ctx.ctx))
        .and_then(|()| command_info::register_commands(ctx.ctx));
    match setup {
        Ok(()) => {
            vector::choose(settings::vector_hashing());
            prefetch::install();
            info::register(ctx);
            ffi::log(ctx.ctx, c"notice", &version::loaded_line());
            forks::subscribe(ctx.ctx);
            if settings::huge_pages() {
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
