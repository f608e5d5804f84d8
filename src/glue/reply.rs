//! Writes a command's [`Reply`] with the server's reply calls.

use std::os::raw::{c_char, c_int, c_long};

use redis_module::raw;

use super::c_string;
use crate::commands::reply::Reply;

/// Sends `reply` to the client of `ctx`.
pub fn send(ctx: *mut raw::RedisModuleCtx, reply: &Reply) {
    match reply {
        Reply::Ok => simple_string(ctx, "OK"),
        Reply::Integer(n) => {
            raw::reply_with_long_long(ctx, *n);
        }
        Reply::Bool(b) => {
            raw::reply_with_bool(ctx, c_int::from(*b));
        }
        Reply::Null => {
            raw::reply_with_null(ctx);
        }
        Reply::Bulk(bytes) => {
            raw::reply_with_string_buffer(ctx, bytes.as_ptr().cast::<c_char>(), bytes.len());
        }
        Reply::Array(items) => {
            raw::reply_with_array(ctx, items.len() as c_long);
            items.iter().for_each(|item| send(ctx, item));
        }
        Reply::Map(pairs) => {
            raw::reply_with_map(ctx, pairs.len() as c_long);
            for (name, value) in pairs {
                simple_string(ctx, name);
                send(ctx, value);
            }
        }
        Reply::Error(text) => error(ctx, text),
    }
}

/// Sends an error reply with exactly `text` (the server adds only the leading `-`).
pub fn error(ctx: *mut raw::RedisModuleCtx, text: &str) {
    let text = c_string(text);
    // SAFETY: `ctx` is the live context of the running command; `text` is NUL-terminated and
    // outlives the call, which copies it.
    unsafe {
        if let Some(reply_with_error) = raw::RedisModule_ReplyWithError {
            reply_with_error(ctx, text.as_ptr());
        }
    }
}

fn simple_string(ctx: *mut raw::RedisModuleCtx, text: &str) {
    raw::reply_with_simple_string(ctx, c_string(text).as_ptr());
}
