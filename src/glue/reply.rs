//! Writes a command's reply with the server's reply calls: the [`Reply`] it returns, or the
//! elements it streams through the [`Writer`].
//!
//! Each call is looked up before use: servers before Redis 7.0 have no boolean, map or
//! (on some) null replies for modules. There, as RedisBloom does, booleans go out as
//! integers and maps as flat arrays — which is also what a RESP2 client gets anywhere.

use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int, c_long, c_longlong};
use std::sync::atomic::{AtomicBool, Ordering};

use redis_module::raw;

use super::server;
use crate::commands::errors::{CommandResult, Failure};
use crate::commands::reply::{Out, Reply, Scalar};
use crate::core::printf_double::printf_g17;

/// The reply of one command: what it streams through [`Out`], then what it returns. It
/// counts the elements the array it began still owes, so a command that stops half-way — an
/// error, a panic — still leaves a well-formed reply (the missing elements become errors),
/// and it never writes a second reply after the first.
pub struct Writer {
    ctx: *mut raw::RedisModuleCtx,
    /// Whether anything was written.
    begun: Cell<bool>,
    /// Elements still owed to the array begun.
    owed: Cell<usize>,
}

impl Writer {
    pub fn new(ctx: *mut raw::RedisModuleCtx) -> Writer {
        Writer {
            ctx,
            begun: Cell::new(false),
            owed: Cell::new(0),
        }
    }

    /// Whether one more element may be written: one is owed (or nothing was begun, for a
    /// lone value).
    fn take_element(&self) -> bool {
        match (self.begun.replace(true), self.owed.get()) {
            (false, _) => true,
            (true, 0) => false,
            (true, owed) => {
                self.owed.set(owed - 1);
                true
            }
        }
    }

    /// Ends the reply with what the command returned.
    pub fn finish(&self, result: CommandResult) {
        let ctx = self.ctx;
        if !self.begun.get() {
            match &result {
                Ok(Reply::Scalar(value)) => scalar(ctx, *value),
                Ok(Reply::Sent) => {}
                Ok(other) => send(ctx, other),
                Err(Failure::Message(text)) => error(ctx, text),
                Err(Failure::WrongArity) => wrong_arity(ctx),
            }
            release(result);
            return;
        }
        let text = match &result {
            Err(Failure::Message(text)) => text,
            _ => crate::commands::errors::INTERNAL_ERROR,
        };
        for _ in 0..self.owed.replace(0) {
            error(ctx, text);
        }
        release(result);
    }
}

/// Lets go of a command's result. Most own no memory, and for those the call of the reply's
/// drop glue, on every command's path, is skipped.
fn release(result: CommandResult) {
    if matches!(
        result,
        Ok(Reply::Scalar(_) | Reply::Field(..) | Reply::Error(_) | Reply::Sent) | Err(_)
    ) {
        std::mem::forget(result);
    }
}

impl Out for Writer {
    fn array(&self, len: usize) {
        if !self.begun.replace(true) {
            array(self.ctx, len);
            self.owed.set(len);
        }
    }

    fn scalar(&self, value: Scalar) {
        if self.take_element() {
            scalar(self.ctx, value);
        }
    }

    fn bulk(&self, bytes: &[u8]) {
        if self.take_element() {
            bulk(self.ctx, bytes);
        }
    }

    fn error(&self, text: &'static CStr) {
        if self.take_element() {
            error(self.ctx, text);
        }
    }
}

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
            if has_map_reply() && is_resp3(ctx) {
                map(ctx, 1);
                simple_string(ctx, name);
            } else {
                array(ctx, 1);
            }
            scalar(ctx, *value);
        }
        Reply::Error(text) => error(ctx, text),
        Reply::Sent => {}
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

#[inline]
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
        Scalar::Status(text) => simple_string(ctx, text),
        Scalar::Double(x) => double(ctx, x),
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

/// [`server::prints_doubles_with_printf`], read once at load.
static PRINTS_DOUBLES: AtomicBool = AtomicBool::new(false);

/// Reads, once at load, how the server writes doubles.
pub fn learn_double_format() {
    PRINTS_DOUBLES.store(server::prints_doubles_with_printf(), Ordering::Relaxed);
}

/// A double as the server writes one (RedisBloom's replies of doubles go the same way). Where
/// the server would print it with glibc's `printf` for a RESP2 client (some 2,900 instructions),
/// the same text is printed here and sent as the same bulk string.
fn double(ctx: *mut raw::RedisModuleCtx, x: f64) {
    if PRINTS_DOUBLES.load(Ordering::Relaxed) && !is_resp3(ctx) {
        bulk(ctx, printf_g17(x).as_bytes());
        return;
    }
    // SAFETY: see `error`.
    unsafe {
        if let Some(reply) = raw::RedisModule_ReplyWithDouble {
            reply(ctx, x);
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

/// Whether the server lets modules send maps (Redis ≥ 7.0); before, a one-field answer keeps
/// RESP2's shape for every client, as RedisBloom's does.
fn has_map_reply() -> bool {
    // SAFETY: see `error`.
    let reply = unsafe { raw::RedisModule_ReplyWithMap };
    reply.is_some()
}

/// Whether the client speaks RESP3 (`HELLO 3`).
fn is_resp3(ctx: *mut raw::RedisModuleCtx) -> bool {
    // SAFETY: see `error`.
    let flags = unsafe { raw::RedisModule_GetContextFlags.map_or(0, |flags| flags(ctx)) };
    flags as u32 & raw::REDISMODULE_CTX_FLAGS_RESP3 != 0
}
