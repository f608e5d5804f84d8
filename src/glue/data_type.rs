//! What every stored data type shares, and the one place their callbacks touch the server.
//! A type is described by a [`Format`] — its name, encoding version, value type, and its RDB,
//! AOF and digest code, all safe — and [`DataType::of`] builds the server's callback table
//! from it: the value pointer convention (`Box<T>` handed to Redis, freed by `free`), the
//! callbacks that only need a value's size, a copy of it or its heap blocks (`mem_usage`,
//! `free_effort`, `copy`, `free`, `defrag`), the family's totals kept as values enter the keyspace (RDB load, COPY) and
//! are freed (commands count what they store and change: `commands::metrics`), and the panic
//! guard around each. Each data type's own file (`types/`) holds only what its format needs.

use std::any::Any;
use std::os::raw::{c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering::Relaxed};

use redis_module::native_types::RedisType;
use redis_module::raw;

use super::defrag::ServerMover;
pub use super::format::{Format, StoredValue};
use super::guard::guarded;
pub use super::io::{Aof, Digest, Io};
use crate::commands::family::Family;
use crate::commands::metrics::Measured;
use crate::core::relocate::Relocate;

/// A family and the data types that hold its values: what each family's file in `types/`
/// declares, and `families.rs` lists.
pub struct Registered {
    pub family: &'static Family,
    pub types: &'static [&'static DataType],
}

/// A registered data type: the server's handle and callback table, and how a value of it is
/// recognised and found.
pub struct DataType {
    /// Its name, as `Format::NAME`.
    pub name: &'static str,
    /// The encoding version it registers (`Format::written_encoding`).
    encoding: fn() -> i32,
    methods: raw::RedisModuleTypeMethods,
    /// The server's handle once registered (`redis.raw_type`, kept where every command can
    /// read it with one load).
    handle: AtomicPtr<raw::RedisModuleType>,
    /// Whether a new value is stored as this type.
    holds: fn(&dyn Any) -> bool,
    /// The value behind one of this type's value pointers.
    found: unsafe fn(*mut c_void) -> *mut dyn Any,
}

impl DataType {
    /// The data type of format `F`.
    pub const fn of<F: Format>() -> DataType {
        DataType {
            name: F::NAME,
            encoding: F::written_encoding,
            methods: methods::<F>(),
            handle: AtomicPtr::new(ptr::null_mut()),
            holds: holds::<F>,
            found: found::<F::Value>,
        }
    }

    /// Registers the type with the server (OnLoad only, once the settings are known: they
    /// may choose its encoding version).
    pub fn register(&self, ctx: *mut raw::RedisModuleCtx) -> Result<(), String> {
        let redis = RedisType::new(self.name, (self.encoding)(), self.methods);
        redis.create_data_type(ctx).map_err(|_| {
            let name = self.name;
            format!("could not create the data type {name} (does another module provide it?)")
        })?;
        self.handle.store(*redis.raw_type.borrow(), Relaxed);
        Ok(())
    }

    /// The server's handle (null before registration).
    pub fn raw(&self) -> *mut raw::RedisModuleType {
        self.handle.load(Relaxed)
    }

    /// Whether `value` is stored as this type.
    pub fn holds(&self, value: &dyn Any) -> bool {
        (self.holds)(value)
    }

    /// The value behind a value pointer of this type.
    ///
    /// # Safety
    /// `value` must be a live value pointer of this type.
    pub unsafe fn found(&self, value: *mut c_void) -> *mut dyn Any {
        // SAFETY: guaranteed by the caller.
        unsafe { (self.found)(value) }
    }
}

fn holds<F: Format>(value: &dyn Any) -> bool {
    value.downcast_ref::<F::Value>().is_some_and(F::holds)
}

/// # Safety
/// `value` must be a live `Box<T>` pointer handed out by [`into_value`] or `set_value`.
unsafe fn found<T: Any>(value: *mut c_void) -> *mut dyn Any {
    value.cast::<T>() as *mut dyn Any
}

/// The callback table of format `F`.
const fn methods<F: Format>() -> raw::RedisModuleTypeMethods {
    raw::RedisModuleTypeMethods {
        version: raw::REDISMODULE_TYPE_METHOD_VERSION as u64,
        rdb_load: Some(rdb_load::<F>),
        rdb_save: Some(rdb_save::<F>),
        aof_rewrite: Some(aof_rewrite::<F>),
        mem_usage: Some(mem_usage::<F::Value>),
        digest: Some(digest::<F>),
        free: Some(free::<F::Value>),
        aux_load: None,
        aux_save: None,
        aux_save_triggers: 0,
        free_effort: Some(free_effort::<F::Value>),
        unlink: None,
        copy: Some(copy::<F::Value>),
        defrag: Some(defrag::<F>),
        mem_usage2: None,
        free_effort2: None,
        unlink2: None,
        copy2: None,
        aux_save2: None,
    }
}

/// The value behind a value pointer.
///
/// # Safety
/// `value` must be a live `Box<T>` pointer handed out by [`into_value`] or `set_value`.
unsafe fn value_ref<'a, T>(value: *const c_void) -> &'a T {
    // SAFETY: guaranteed by the caller.
    unsafe { &*value.cast::<T>() }
}

/// Hands `value` to Redis as a value pointer (from RDB load or COPY, on the main thread),
/// adding it to its family's totals.
fn into_value<T: Measured>(value: T) -> *mut c_void {
    T::totals().entered(value.footprint());
    Box::into_raw(Box::new(value)).cast()
}

unsafe extern "C" fn rdb_load<F: Format>(
    rdb: *mut raw::RedisModuleIO,
    encver: c_int,
) -> *mut c_void {
    // A null return fails the load: RESTORE answers `ERR Bad data format`.
    guarded(ptr::null_mut(), || {
        let mut io = Io::new(rdb);
        let memory = io.memory();
        F::load(&mut io, encver, &memory).map_or(ptr::null_mut(), into_value)
    })
}

unsafe extern "C" fn rdb_save<F: Format>(rdb: *mut raw::RedisModuleIO, value: *mut c_void) {
    // SAFETY: Redis passes a live value of this type.
    let value = unsafe { value_ref::<F::Value>(value) };
    guarded((), || F::save(value, &mut Io::new(rdb)));
}

unsafe extern "C" fn aof_rewrite<F: Format>(
    aof: *mut raw::RedisModuleIO,
    key: *mut raw::RedisModuleString,
    value: *mut c_void,
) {
    // SAFETY: Redis passes a live value of this type.
    let value = unsafe { value_ref::<F::Value>(value) };
    guarded((), || F::rewrite(value, &mut Aof::new(aof, key)));
}

/// DEBUG DIGEST / DIGEST-VALUE.
unsafe extern "C" fn digest<F: Format>(md: *mut raw::RedisModuleDigest, value: *mut c_void) {
    // SAFETY: Redis passes a live value of this type.
    let value = unsafe { value_ref::<F::Value>(value) };
    guarded((), || F::digest(value, &mut Digest::new(md)));
    // SAFETY: `md` is the digest Redis passed; the value's sequence ends here.
    unsafe {
        if let Some(end) = raw::RedisModule_DigestEndSequence {
            end(md);
        }
    }
}

/// The `free` callback: on the main thread or the lazy-free one, which `Totals::freed`
/// allows. Null is no value: when a payload ends before its EOF marker, Redis 6.0 wraps
/// whatever `rdb_load` returned, a refusal's null included, to free it (`rdbLoadObject` in
/// its `src/rdb.c`; later servers check first).
unsafe extern "C" fn free<T: Measured>(value: *mut c_void) {
    if value.is_null() {
        return;
    }
    // SAFETY: Redis frees each value once, with the pointer it was given (`into_value`, or
    // `set_value` for values commands store).
    let value = unsafe { Box::from_raw(value.cast::<T>()) };
    let footprint = value.footprint();
    drop(value);
    T::totals().freed(footprint);
}

unsafe extern "C" fn mem_usage<T: StoredValue>(value: *const c_void) -> usize {
    // SAFETY: Redis passes a live value of this type.
    usize::try_from(unsafe { value_ref::<T>(value) }.footprint().bytes).unwrap_or(usize::MAX)
}

/// The `free_effort` callback: bigger values are freed by the lazy-free thread (UNLINK,
/// lazyfree-lazy-*). One unit of effort per array and per 64 KiB, so values above ~4 MiB pass
/// Redis's threshold of 64.
unsafe extern "C" fn free_effort<T: StoredValue>(
    _key: *mut raw::RedisModuleString,
    value: *const c_void,
) -> usize {
    // SAFETY: Redis passes a live value of this type.
    let value = unsafe { value_ref::<T>(value) };
    let chunks = usize::try_from(value.footprint().bytes >> 16).unwrap_or(usize::MAX);
    value.arrays().saturating_add(chunks)
}

/// The `copy` callback (COPY): a null return makes COPY fail cleanly when the copy cannot be
/// made.
unsafe extern "C" fn copy<T: StoredValue>(
    _from: *mut raw::RedisModuleString,
    _to: *mut raw::RedisModuleString,
    value: *const c_void,
) -> *mut c_void {
    // SAFETY: Redis passes a live value of this type.
    let value = unsafe { value_ref::<T>(value) };
    guarded(ptr::null_mut(), || {
        value.try_clone().map_or(ptr::null_mut(), into_value)
    })
}

/// The `defrag` callback (active defragmentation, `glue::defrag`): the value's box, then
/// every block it offers, unless the type's defrag is off. Returns 1 when the server's
/// deadline stopped the walk part way.
unsafe extern "C" fn defrag<F: Format>(
    ctx: *mut raw::RedisModuleDefragCtx,
    _key: *mut raw::RedisModuleString,
    value: *mut *mut c_void,
) -> c_int {
    if !F::defragged() {
        return 0;
    }
    guarded(0, || {
        let mut mover = ServerMover::resume(ctx);
        if mover.at_start() {
            // SAFETY: Redis passes the key's value pointer, a live `Box` of this type's value.
            unsafe { mover.move_box::<F::Value>(value) };
        }
        // SAFETY: `*value` is the (possibly moved) live value; nothing else holds a reference
        // to it while the server defragments, between commands.
        let stored = unsafe { &mut *(*value).cast::<F::Value>() };
        stored.relocate(&mut mover);
        mover.finish()
    })
}
