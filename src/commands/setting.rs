//! A config (`bf-error-rate`, `cf-bucket-size`, …): its names, how a value is parsed and
//! shown, and the value now. Each family declares its own settings in its wing and lists them
//! in its [`Family`](super::family::Family); the glue registers them with the server (module
//! arguments, the config file, CONFIG SET/GET). Values are kept as a `u64` (an `f64`'s bits
//! for a rate) so that commands read them without a lock or a server call.

use std::ffi::CStr;
use std::os::raw::c_void;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::Relaxed};

/// One config.
pub struct Setting {
    /// Its name (`bf-error-rate`); the glue spells it as the server requires.
    pub name: &'static CStr,
    /// RedisBloom's module-argument name, accepted with a deprecation warning.
    pub legacy_arg: Option<&'static str>,
    /// The value of a text, or what CONFIG SET answers (inside the server's `ERR CONFIG SET
    /// failed …`) when it is refused.
    pub parse: fn(&[u8]) -> Result<u64, &'static CStr>,
    /// The text CONFIG GET shows for a value.
    pub show: fn(u64) -> String,
    /// Whether it is set only when the module loads (a module argument or the config file),
    /// never by CONFIG SET: what it decides is fixed at load, as a data type's encoding.
    pub at_load_only: bool,
    value: AtomicU64,
    /// The server string last returned to CONFIG GET, which the server copies but does not
    /// free: the glue frees it when it returns the next one.
    pub shown: AtomicPtr<c_void>,
}

impl Setting {
    /// A setting whose value is `default` until it is set.
    pub const fn new(
        name: &'static CStr,
        legacy_arg: Option<&'static str>,
        parse: fn(&[u8]) -> Result<u64, &'static CStr>,
        show: fn(u64) -> String,
        default: u64,
    ) -> Setting {
        Setting {
            name,
            legacy_arg,
            parse,
            show,
            at_load_only: false,
            value: AtomicU64::new(default),
            shown: AtomicPtr::new(ptr::null_mut()),
        }
    }

    /// The same setting, set only when the module loads.
    pub const fn at_load_only(self) -> Setting {
        Setting {
            at_load_only: true,
            ..self
        }
    }

    /// The value now.
    pub fn get(&self) -> u64 {
        self.value.load(Relaxed)
    }

    /// Parses `text` and, if it is valid, makes it the value.
    pub fn set(&self, text: &[u8]) -> Result<(), &'static CStr> {
        let value = (self.parse)(text)?;
        self.value.store(value, Relaxed);
        Ok(())
    }

    /// The value now, as CONFIG GET shows it.
    pub fn shown_value(&self) -> String {
        (self.show)(self.get())
    }
}

/// A `yes`/`no` config's value, in any case: 1 or 0, else `bad`.
pub fn yes_or_no(text: &[u8], bad: &'static CStr) -> Result<u64, &'static CStr> {
    match () {
        () if text.eq_ignore_ascii_case(b"yes") => Ok(1),
        () if text.eq_ignore_ascii_case(b"no") => Ok(0),
        () => Err(bad),
    }
}

/// How a `yes`/`no` config shows its value.
pub fn show_yes_or_no(value: u64) -> String {
    if value == 1 { "yes" } else { "no" }.into()
}
