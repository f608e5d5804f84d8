//! How many child processes the server has forked since the module loaded (BGSAVE, full
//! synchronisations, AOF rewrites, module forks), counted from the `ForkChild` server event,
//! which fires in the parent (Redis ≥ 6.2, Valkey; on older servers the count stays 0). A
//! data type whose saved form differs from what it holds in memory learns from it that a
//! child may have saved that form (`commands::server::Server::snapshots`).

use std::os::raw::c_void;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use redis_module::raw;

/// Forks so far. Written by the event, on the main thread.
static FORKS: AtomicU64 = AtomicU64::new(0);

/// The forks so far.
pub fn count() -> u64 {
    FORKS.load(Relaxed)
}

/// Subscribes to the `ForkChild` event where the server has it (OnLoad only).
pub fn subscribe(ctx: *mut raw::RedisModuleCtx) {
    let event = raw::RedisModuleEvent {
        id: raw::REDISMODULE_EVENT_FORK_CHILD,
        dataver: 1,
    };
    // SAFETY: OnLoad context; reading an API pointer set by RedisModule_Init. A server that
    // does not know the event refuses the subscription, which leaves the count at 0.
    unsafe {
        if let Some(subscribe) = raw::RedisModule_SubscribeToServerEvent {
            subscribe(ctx, event, Some(on_fork));
        }
    }
}

unsafe extern "C" fn on_fork(
    _ctx: *mut raw::RedisModuleCtx,
    _event: raw::RedisModuleEvent,
    subevent: u64,
    _data: *mut c_void,
) {
    if subevent == raw::REDISMODULE_SUBEVENT_FORK_CHILD_BORN {
        FORKS.fetch_add(1, Relaxed);
    }
}
