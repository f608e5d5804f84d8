//! Small helpers for handing Rust values to the server's C API, and for reading its strings.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;

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

/// `RedisModule_StringPtrLen`, as the server set it at load.
pub type StringPtrLen =
    unsafe extern "C" fn(*const raw::RedisModuleString, *mut usize) -> *const c_char;

/// The server's `RedisModule_StringPtrLen`; `None` before load or on a server without it.
pub fn string_ptr_len() -> Option<StringPtrLen> {
    // SAFETY: reading an API pointer set by RedisModule_Init.
    unsafe { raw::RedisModule_StringPtrLen }
}

/// The bytes of a module string, borrowed without a copy; empty where the server lacks
/// `RedisModule_StringPtrLen`.
///
/// # Safety
/// As [`bytes_by`].
pub unsafe fn bytes<'a>(string: *const raw::RedisModuleString) -> &'a [u8] {
    match string_ptr_len() {
        // SAFETY: guaranteed by the caller.
        Some(ptr_len) => unsafe { bytes_by(ptr_len, string) },
        None => &[],
    }
}

/// The bytes of a module string through `ptr_len`, which a caller reading many strings looks
/// up once (a command's arguments, some two hundred in a ×100 command: looked up per string,
/// `CMS.INCRBY` ×100 took 1–2% longer).
///
/// # Safety
/// `string` is a live module string, and the bytes are not used after it is freed or changed.
#[inline(always)]
pub unsafe fn bytes_by<'a>(
    ptr_len: StringPtrLen,
    string: *const raw::RedisModuleString,
) -> &'a [u8] {
    let mut len = 0;
    // SAFETY: the caller keeps `string` live and unchanged while the bytes, `len` of them at
    // the pointer the server gives, are used.
    unsafe {
        let bytes = ptr_len(string, &mut len);
        if bytes.is_null() {
            &[]
        } else {
            std::slice::from_raw_parts(bytes.cast::<u8>(), len)
        }
    }
}
