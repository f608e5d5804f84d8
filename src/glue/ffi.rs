//! Small helpers for handing Rust values to the server's C API.

use std::ffi::{CStr, CString};

use redis_module::raw;

/// A C string of `text`, cut at a NUL rather than panicking (our texts contain none).
pub fn c_string(text: &str) -> CString {
    let end = text.find('\0').unwrap_or(text.len());
    CString::new(&text[..end]).unwrap_or_default()
}

/// Writes `text` to the server log at `level` (`c"warning"`, `c"notice"`…). `ctx` may be null.
/// Unlike the crate's loggers, the text is an argument of a `%s` format, so a `%` in it (a
/// user's module argument, a panic message) is printed, not interpreted; and a server without
/// `RedisModule_Log` gets nothing rather than a panic.
pub fn log(ctx: *mut raw::RedisModuleCtx, level: &CStr, text: &str) {
    let text = c_string(text);
    // SAFETY: reading an API pointer set by RedisModule_Init (None before it); the format and
    // its one string argument are NUL-terminated and outlive the call; a null or live `ctx`
    // is what RedisModule_Log takes.
    unsafe {
        if let Some(log) = raw::RedisModule_Log {
            log(ctx, level.as_ptr(), c"%s".as_ptr(), text.as_ptr());
        }
    }
}
