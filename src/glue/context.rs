//! The server as one running command sees it: the commands' [`Server`], with the module API
//! called directly. A command's keys are opened, typed and read with the server's own calls —
//! `OpenKey`, `ModuleTypeGetType`, `ModuleTypeGetValue`, `CloseKey`, as RedisBloom does —
//! and the memory bound is read only when a command asks for it. A value's data type is
//! found among the registered ones (`families.rs`), and the value handed over as `dyn Any`.

use std::any::Any;
use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::ptr;

use redis_module::raw;

use super::families::DATA_TYPES;
use super::server::{context_flags, is_replay};
use super::values::value_of;
use super::{ffi, forks, memory};
use crate::commands::errors::Failure;
use crate::commands::opened::Opened;
use crate::commands::server::{Held, OpenKey, Origin, Replicated, Server, Stored};
use crate::core::Memory;

/// One running command.
pub struct CommandContext<'a> {
    pub(super) ctx: *mut raw::RedisModuleCtx,
    /// The command's arguments, the client's own strings.
    argv: &'a [*mut raw::RedisModuleString],
    /// The argument of the first key the command opened: most commands open one, and pay for
    /// no name until a second is opened.
    first_key: Cell<Option<usize>>,
    /// The names of the keys the command opened, from its second key on: each is opened once,
    /// so that no two handles reach one value (`held_mut`).
    opened: Opened<'a>,
    /// The context's flags, read at the first question about them: a read costs about 130
    /// instructions, and a t-digest read asks up to four times.
    flags: Cell<Option<u32>>,
}

impl<'a> CommandContext<'a> {
    /// The command running in `ctx`, with arguments `argv`. Both must stay valid while it
    /// exists: the server's context and arguments of the running command.
    pub fn new(ctx: *mut raw::RedisModuleCtx, argv: &'a [*mut raw::RedisModuleString]) -> Self {
        CommandContext {
            ctx,
            argv,
            first_key: Cell::new(None),
            opened: Opened::default(),
            flags: Cell::new(None),
        }
    }

    fn flags(&self) -> u32 {
        let flags = self.flags.get().unwrap_or_else(|| context_flags(self.ctx));
        self.flags.set(Some(flags));
        flags
    }

    /// Opens a key after the command's first (merges), unless its name was opened already: out
    /// of the single-key path, which then reads no name.
    #[cold]
    #[inline(never)]
    fn open_another(&self, index: usize, write: bool) -> Result<*mut c_void, Failure> {
        // SAFETY: the command's arguments live, unchanged, until it returns, and the names
        // are only compared while it runs (`opened` lives as long as the context).
        let name = |index| unsafe { ffi::bytes(self.arg(index)) };
        if self.opened.is_empty() {
            if let Some(first) = self.first_key.get() {
                self.opened.admit(name(first))?;
            }
        }
        self.opened.admit(name(index))?;
        Ok(self.open_key(index, write))
    }

    /// `RedisModule_OpenKey` of the key at argument `index`; null past the arguments.
    fn open_key(&self, index: usize, write: bool) -> *mut c_void {
        let mode = if write {
            raw::REDISMODULE_READ | raw::REDISMODULE_WRITE
        } else {
            raw::REDISMODULE_READ
        };
        let key = self.arg(index);
        if key.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: `ctx` and `key` are the running command's (see `new`); reading an API
        // pointer set by RedisModule_Init. The handle goes back to `close`.
        unsafe {
            raw::RedisModule_OpenKey
                .map_or(ptr::null_mut(), |open| open(self.ctx, key, mode as c_int))
                .cast()
        }
    }

    /// The argument at `index`; null past the end.
    pub(super) fn arg(&self, index: usize) -> *mut raw::RedisModuleString {
        self.argv.get(index).copied().unwrap_or(ptr::null_mut())
    }
}

impl Server for CommandContext<'_> {
    fn memory(&self) -> Memory {
        memory::memory(self.ctx)
    }

    fn open(&self, index: usize, write: bool) -> Result<*mut c_void, Failure> {
        if self.first_key.get().is_some() {
            return self.open_another(index, write);
        }
        self.first_key.set(Some(index));
        Ok(self.open_key(index, write))
    }

    fn close(&self, key: &mut OpenKey) {
        if !key.opened_by(self) {
            return;
        }
        let handle = key.take_handle();
        if handle.is_null() {
            return;
        }
        // SAFETY: `handle` came from `open` on this command's context (`opened_by`), and is
        // taken out of its key, so it is closed once.
        unsafe {
            if let Some(close) = raw::RedisModule_CloseKey {
                close(handle.cast());
            }
        }
    }

    fn held<'k>(&self, key: &'k OpenKey) -> Held<&'k dyn Any> {
        if !key.opened_by(self) {
            return Held::Other;
        }
        match value_of(key) {
            // SAFETY: a value of one of our types is valid while its key is open, which `'k`
            // ties the borrow to (modules' keyspace-event callbacks do not delete keys); only
            // `held_mut` lends it mutably and it needs the key mutably, so no `&mut` to it
            // lives meanwhile; and `open` opens each name once per command, so no other key
            // reaches the value.
            Held::Value(value) => Held::Value(unsafe { &*value }),
            Held::Empty(()) => Held::Empty(()),
            Held::Other => Held::Other,
        }
    }

    fn held_mut<'k, 'a>(
        &self,
        key: &'k mut OpenKey<'a>,
    ) -> Held<&'k mut dyn Any, &'k mut OpenKey<'a>> {
        if !key.opened_by(self) {
            return Held::Other;
        }
        match value_of(key) {
            // SAFETY: as in `held`; the key is borrowed mutably for `'k`, so this reference is
            // the value's only one while it lives (only the main thread runs commands).
            Held::Value(value) => Held::Value(unsafe { &mut *value }),
            Held::Empty(()) => Held::Empty(key),
            Held::Other => Held::Other,
        }
    }

    fn set_value<'k>(
        &self,
        key: &'k mut OpenKey,
        value: Box<dyn Stored>,
    ) -> Option<&'k mut dyn Any> {
        let handle = key.handle().cast::<raw::RedisModuleKey>();
        if handle.is_null() || !key.opened_by(self) {
            return None;
        }
        let any: &dyn Any = &*value;
        let data_type = DATA_TYPES.iter().find(|t| t.holds(any))?;
        let boxed = Box::into_raw(value);
        // SAFETY: `handle` is an open key of the running command (this context opened it, and
        // it is not null). The box holds a value of the type's Rust type (`holds`), so the pointer to
        // its data is the `Box<T>` pointer the type's callbacks expect; on success the server
        // owns it and gives it to the type's free callback, which drops it as a `T`.
        let status = unsafe {
            raw::RedisModule_ModuleTypeSetValue.map_or(raw::REDISMODULE_ERR as c_int, |set| {
                set(handle, data_type.raw(), boxed.cast::<c_void>())
            })
        };
        if status == raw::REDISMODULE_OK as c_int {
            // SAFETY: the server now holds the box under the key, which is borrowed mutably
            // for `'k`: as in `held_mut`, the reference is the value's only one.
            let stored: &'k mut dyn Stored = unsafe { &mut *boxed };
            return Some(stored);
        }
        // SAFETY: the server refused the value, so `boxed` is still the box made above.
        drop(unsafe { Box::from_raw(boxed) });
        None
    }

    fn written(&self, event: &'static CStr) {
        // SAFETY: `ctx` is the running command's context; reading an API pointer set by
        // RedisModule_Init.
        unsafe {
            if let Some(replicate) = raw::RedisModule_ReplicateVerbatim {
                replicate(self.ctx);
            }
        }
        self.notify(event);
    }

    fn written_as(&self, events: &[&'static CStr], commands: &[Replicated]) {
        self.also_replicate(commands);
        for &event in events {
            self.notify(event);
        }
    }

    fn replayed(&self) -> bool {
        is_replay(self.flags())
    }

    fn now_ms(&self) -> u64 {
        // SAFETY: reading an API pointer set by RedisModule_Init, and calling it: it takes no
        // arguments and only reads the clock.
        let now = unsafe { raw::RedisModule_Milliseconds.map_or(0, |now| now()) };
        u64::try_from(now).unwrap_or(0)
    }

    fn log_warning(&self, text: &str) {
        ffi::log(self.ctx, c"warning", text);
    }

    /// A command replayed from the primary or the AOF, else one from a replica's client (the
    /// context says the server is a replica), else a primary's.
    fn origin(&self) -> Origin {
        let flags = self.flags();
        if is_replay(flags) {
            Origin::Replay
        } else if flags & raw::REDISMODULE_CTX_FLAGS_SLAVE != 0 {
            Origin::Replica
        } else {
            Origin::Primary
        }
    }

    fn also_replicate(&self, commands: &[Replicated]) {
        for command in commands {
            self.replicate(command);
        }
    }

    fn snapshots(&self) -> u64 {
        forks::count()
    }

    fn random_bytes(&self, out: &mut [u8]) {
        // SAFETY: reading an API pointer set by RedisModule_Init, and calling it with a
        // buffer of `out.len()` writable bytes (every server since 6.0 has it).
        unsafe {
            if let Some(random) = raw::RedisModule_GetRandomBytes {
                random(out.as_mut_ptr(), out.len());
            }
        }
    }
}
