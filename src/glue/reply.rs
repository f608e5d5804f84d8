//! Writes a command's [`Reply`] with the server's reply calls.
//!
//! Each call is looked up before use: servers before Redis 7.0 have no boolean, map or
//! (on some) null replies for modules. There, as RedisBloom does, booleans go out as
//! integers and maps as flat arrays — which is also what a RESP2 client gets anywhere.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_long, c_longlong};

use redis_module::raw;

use crate::commands::reply::{Reply, Scalar};

/// Sends `reply` to the client of `ctx`.
pub fn send(ctx: *mut raw::RedisModuleCtx, reply: &Reply) {
    match reply {
        Reply::Scalar(value) => scalar(ctx, *value),
        Reply::Bulk(bytes) => bulk(ctx, bytes),
        Reply::Array(items) => {
            array(ctx, items.len());
            items.iter().for_each(|item| send(ctx, item));
        }
        Reply::Map(pairs) => {
            map(ctx, pairs.len());
            for (name, value) in pairs {
                simple_string(ctx, name);
                send(ctx, value);
            }
        }
        Reply::Field(name, value) => {
            if is_resp3(ctx) {
                map(ctx, 1);
                simple_string(ctx, name);
            } else {
                array(ctx, 1);
            }
            scalar(ctx, *value);
        }
        Reply::Error(text) => error(ctx, text),
    }
}

/// Sends an error reply with exactly `text` (the server adds only the leading `-`).
pub fn error(ctx: *mut raw::RedisModuleCtx, text: &CStr) {
    // SAFETY: (this argument covers every reply call of this file) `ctx` is the live context
    // of the running command, each API pointer was set by RedisModule_Init (or is None where
    // the server lacks the call), and every buffer outlives the call, which copies it.
    unsafe {
        if let Some(reply) = raw::RedisModule_ReplyWithError {
            reply(ctx, text.as_ptr());
        }
    }
}

/// Redis's own `ERR wrong number of arguments for '<command>' command`.
pub fn wrong_arity(ctx: *mut raw::RedisModuleCtx) {
    // SAFETY: see `error`.
    unsafe {
        if let Some(reply) = raw::RedisModule_WrongArity {
            reply(ctx);
        }
    }
}

fn scalar(ctx: *mut raw::RedisModuleCtx, value: Scalar) {
    match value {
        Scalar::Ok => simple_string(ctx, c"OK"),
        Scalar::Integer(n) => integer(ctx, n),
        // SAFETY: see `error`.
        Scalar::Bool(b) => unsafe {
            match raw::RedisModule_ReplyWithBool {
                Some(reply) => {
                    reply(ctx, c_int::from(b));
                }
                None => integer(ctx, i64::from(b)),
            }
        },
        // SAFETY: see `error`.
        Scalar::Null => unsafe {
            match raw::RedisModule_ReplyWithNull {
                Some(reply) => {
                    reply(ctx);
                }
                None => bulk_null(ctx),
            }
        },
        Scalar::Text(text) => bulk(ctx, text.as_bytes()),
        Scalar::IntegerOrFalse(_) if is_resp3(ctx) => scalar(ctx, Scalar::Bool(false)),
        Scalar::IntegerOrFalse(n) => integer(ctx, n),
    }
}

fn integer(ctx: *mut raw::RedisModuleCtx, n: i64) {
    // SAFETY: see `error`.
    unsafe {
        if let Some(reply) = raw::RedisModule_ReplyWithLongLong {
            reply(ctx, n as c_longlong);
        }
    }
}

fn bulk(ctx: *mut raw::RedisModuleCtx, bytes: &[u8]) {
    // SAFETY: see `error`.
    unsafe {
        if let Some(reply) = raw::RedisModule_ReplyWithStringBuffer {
            reply(ctx, bytes.as_ptr().cast::<c_char>(), bytes.len());
        }
    }
}

/// RESP2's null bulk string, for servers without `ReplyWithNull`.
fn bulk_null(ctx: *mut raw::RedisModuleCtx) {
    // SAFETY: see `error`.
    unsafe {
        if let Some(reply) = raw::RedisModule_ReplyWithNullArray {
            reply(ctx);
        }
    }
}

fn simple_string(ctx: *mut raw::RedisModuleCtx, text: &CStr) {
    // SAFETY: see `error`.
    unsafe {
        if let Some(reply) = raw::RedisModule_ReplyWithSimpleString {
            reply(ctx, text.as_ptr());
        }
    }
}

fn array(ctx: *mut raw::RedisModuleCtx, len: usize) {
    // SAFETY: see `error`.
    unsafe {
        if let Some(reply) = raw::RedisModule_ReplyWithArray {
            reply(ctx, len as c_long);
        }
    }
}

/// A map of `pairs` pairs; a flat array of twice as many elements where the server has no
/// map reply (it sends that to RESP2 clients itself).
fn map(ctx: *mut raw::RedisModuleCtx, pairs: usize) {
    // SAFETY: see `error`.
    unsafe {
        match raw::RedisModule_ReplyWithMap {
            Some(reply) => {
                reply(ctx, pairs as c_long);
            }
            None => array(ctx, pairs * 2),
        }
    }
}

/// Whether the client speaks RESP3 (`HELLO 3`).
fn is_resp3(ctx: *mut raw::RedisModuleCtx) -> bool {
    // SAFETY: see `error`.
    let flags = unsafe { raw::RedisModule_GetContextFlags.map_or(0, |flags| flags(ctx)) };
    flags as u32 & raw::REDISMODULE_CTX_FLAGS_RESP3 != 0
}
