//! The panic boundary. A panic that unwound into the server would abort it, so every command
//! and every data-type callback runs under `catch_unwind` (the release profile unwinds for
//! this), and the panic message goes to the server log.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `callback`, turning a panic into `fallback` (the hook has logged it).
pub fn guarded<T>(fallback: T, callback: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(callback)).unwrap_or(fallback)
}

/// Sends panic messages to the server log: stderr is often /dev/null under a daemonized server.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        super::ffi::log(
            std::ptr::null_mut(),
            c"warning",
            &format!("redis-bf: {info}"),
        );
    }));
}
