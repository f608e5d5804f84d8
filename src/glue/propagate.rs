//! What a write tells the server besides its reply: the commands replicas and the AOF get, and
//! the keyspace event on its key, for the running command (`context.rs`).

use std::ffi::CStr;

use redis_module::raw;

use super::context::CommandContext;
use crate::commands::server::{Arg, Replicated};

impl CommandContext<'_> {
    /// Raises keyspace event `event` on the command's key (argument 1).
    pub(super) fn notify(&self, event: &'static CStr) {
        let key = self.arg(1);
        if key.is_null() {
            return;
        }
        // SAFETY: `ctx` is the running command's context, `event` is NUL-terminated and
        // static, `key` the command's argument; reading an API pointer set by RedisModule_Init.
        unsafe {
            if let Some(notify) = raw::RedisModule_NotifyKeyspaceEvent {
                notify(
                    self.ctx,
                    raw::NotifyEvent::MODULE.bits(),
                    event.as_ptr(),
                    key,
                );
            }
        }
    }

    /// Replicates one command: its arguments as server strings — the command's own, and new
    /// ones for new bytes — handed over as a vector (`"v"`), which the server retains as it
    /// queues the command; the new ones are freed after.
    pub(super) fn replicate(&self, command: &Replicated) {
        // SAFETY: reading API pointers set by RedisModule_Init.
        let api = unsafe {
            (
                raw::RedisModule_CreateString,
                raw::RedisModule_FreeString,
                raw::RedisModule_Replicate,
            )
        };
        let (Some(create), Some(free), Some(replicate)) = api else {
            return;
        };
        let strings: Vec<*mut raw::RedisModuleString> = command
            .args
            .iter()
            .map(|arg| match *arg {
                Arg::Own(index) => self.arg(index),
                // SAFETY: `ctx` is the running command's context; the bytes outlive the call,
                // which copies them into a new string.
                Arg::Bytes(bytes) => unsafe {
                    create(self.ctx, bytes.as_ptr().cast(), bytes.len())
                },
            })
            .collect();
        if strings.iter().all(|s| !s.is_null()) {
            // SAFETY: the name is NUL-terminated and static; "v" takes a pointer to
            // `strings.len()` live strings and their count, exactly what is passed.
            unsafe {
                replicate(
                    self.ctx,
                    command.command.as_ptr(),
                    c"v".as_ptr(),
                    strings.as_ptr(),
                    strings.len(),
                );
            }
        }
        for (&string, arg) in strings.iter().zip(&command.args) {
            if matches!(arg, Arg::Bytes(_)) && !string.is_null() {
                // SAFETY: each new string was created above with this context and is freed
                // once; the server took its own reference to it if it queued the command.
                unsafe { free(self.ctx, string) };
            }
        }
    }
}
