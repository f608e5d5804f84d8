//! A config (`bf-error-rate`, `cf-bucket-size`, …): its names, how a value is parsed and
//! shown, and the value now. Each family declares its own settings in its wing and lists them
//! in its [`Family`](super::family::Family); the glue registers them with the server (module
//! arguments, the config file, CONFIG SET/GET). Values are kept as a `u64` (an `f64`'s bits
//! for a rate) so that commands read them without a lock or a server call.

use std::ffi::CStr;
use std::ops::RangeInclusive;
use std::os::raw::c_void;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering::Relaxed};

use super::args::integer_in;

/// One config.
pub struct Setting {
    /// Its name (`bf-error-rate`); the glue spells it as the server requires.
    pub name: &'static CStr,
    /// RedisBloom's module-argument name, accepted with a deprecation warning.
    pub legacy_arg: Option<&'static str>,
    parse: Parse,
    /// The text CONFIG GET shows for a value.
    show: fn(u64) -> String,
    /// Whether it is set only when the module loads (a module argument or the config file),
    /// never by CONFIG SET: what it decides is fixed at load, as a data type's encoding.
    pub at_load_only: bool,
    value: AtomicU64,
    /// The server string last returned to CONFIG GET, which the server copies but does not
    /// free: the glue frees it when it returns the next one.
    pub shown: AtomicPtr<c_void>,
}

/// The value of a text, or what CONFIG SET answers (inside the server's `ERR CONFIG SET failed
/// …`) when it is refused.
enum Parse {
    /// An integer within the range; the texts for a non-number and for a number out of it.
    Integer(&'static RangeInclusive<i64>, [&'static CStr; 2]),
    With(fn(&[u8]) -> Result<u64, &'static CStr>),
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
        Setting::with(name, legacy_arg, Parse::With(parse), show, default)
    }

    /// An integer setting within `range`, shown as a number; `texts` are CONFIG SET's answers
    /// for a text that is no number and for a number out of the range.
    pub const fn integer(
        name: &'static CStr,
        legacy_arg: Option<&'static str>,
        range: &'static RangeInclusive<i64>,
        texts: [&'static CStr; 2],
        default: u64,
    ) -> Setting {
        let parse = Parse::Integer(range, texts);
        Setting::with(name, legacy_arg, parse, show_number, default)
    }

    const fn with(
        name: &'static CStr,
        legacy_arg: Option<&'static str>,
        parse: Parse,
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
        let value = match self.parse {
            Parse::Integer(range, [not_a_number, out_of_range]) => {
                integer_within(text, range, not_a_number, out_of_range)?
            }
            Parse::With(parse) => parse(text)?,
        };
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

/// An integer config within `range`: `not_a_number` or `out_of_range` when refused (some
/// configs give one text for both).
pub fn integer_within(
    text: &[u8],
    range: &RangeInclusive<i64>,
    not_a_number: &'static CStr,
    out_of_range: &'static CStr,
) -> Result<u64, &'static CStr> {
    let n = integer_in(text, range).map_err(|bad| bad.text(not_a_number, out_of_range))?;
    u64::try_from(n).map_err(|_| out_of_range)
}

/// How a numeric config shows its value.
pub fn show_number(value: u64) -> String {
    value.to_string()
}

/// How a rate, kept as its `f64`'s bits, shows.
pub fn show_rate(bits: u64) -> String {
    f64::from_bits(bits).to_string()
}
