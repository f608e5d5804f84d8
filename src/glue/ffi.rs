//! Small helpers for handing Rust values to the server's C API.

use std::ffi::CString;

/// A C string of `text`, cut at a NUL rather than panicking (our texts contain none).
pub fn c_string(text: &str) -> CString {
    let end = text.find('\0').unwrap_or(text.len());
    CString::new(&text[..end]).unwrap_or_default()
}
