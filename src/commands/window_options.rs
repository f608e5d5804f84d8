//! `[WINDOW n | TIMESPAN ms] [SLOTS s]`: the options that make a value that forgets (a
//! Count-Min sketch or a Top-K; `forgetting.rs`), declared, read and shown by `INFO` the same
//! way by every family, each wording its own errors.

use std::ffi::CStr;

use super::args::integer_in;
use super::errors::Failure;
use super::reply::{Reply, Scalar};
use super::spec::{ArgKind, ArgSpec};
use crate::core::window::{Window, DEFAULT_SLOTS, MAX_SLOTS, MAX_WINDOW};

/// `[WINDOW n | TIMESPAN ms]` in COMMAND DOCS: what a value that forgets forgets by.
pub const WINDOW_ARG: ArgSpec = ArgSpec::new(
    "window",
    ArgKind::OneOf(&[
        ArgSpec::new("count", ArgKind::Integer).token("WINDOW"),
        ArgSpec::new("timespan", ArgKind::Integer).token("TIMESPAN"),
    ]),
)
.optional();

/// `[SLOTS s]` in COMMAND DOCS: how many slots the window is cut into.
pub const SLOTS_ARG: ArgSpec = ArgSpec::new("slots", ArgKind::Integer)
    .token("SLOTS")
    .optional();

/// Why `[WINDOW n | TIMESPAN ms] [SLOTS s]` was refused; each family words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionError {
    /// `WINDOW` outside 1 to 2^40.
    WindowRange,
    /// `TIMESPAN` outside 1 to 2^40.
    TimespanRange,
    /// `SLOTS` outside 1 to 8.
    SlotsRange,
    /// `SLOTS` before either.
    SlotsWithoutWindow,
    /// Both, or one twice.
    OneWindow,
    /// Another keyword, or `SLOTS` twice.
    Unknown,
}

/// How a family words each [`OptionError`] (its texts live in its `errors.rs`).
pub struct OptionTexts {
    pub window_range: &'static CStr,
    pub timespan_range: &'static CStr,
    pub slots_range: &'static CStr,
    pub slots_without_window: &'static CStr,
    pub one_window: &'static CStr,
    pub unknown: &'static CStr,
}

impl OptionTexts {
    /// `error` as this family words it.
    pub fn refuse(&self, error: OptionError) -> Failure {
        Failure::Message(match error {
            OptionError::WindowRange => self.window_range,
            OptionError::TimespanRange => self.timespan_range,
            OptionError::SlotsRange => self.slots_range,
            OptionError::SlotsWithoutWindow => self.slots_without_window,
            OptionError::OneWindow => self.one_window,
            OptionError::Unknown => self.unknown,
        })
    }
}

/// The window options read so far.
#[derive(Debug, Default, Clone, Copy)]
pub struct WindowOptions {
    window: Option<Window>,
    slots: Option<u64>,
}

impl WindowOptions {
    /// Reads one keyword (any case) and its value.
    pub fn take(&mut self, keyword: &[u8], value: &[u8]) -> Result<(), OptionError> {
        let length = |error| {
            integer_in(value, &(1..=MAX_WINDOW as i64))
                .map(|n| n as u64)
                .map_err(|_| error)
        };
        if keyword.eq_ignore_ascii_case(b"WINDOW") || keyword.eq_ignore_ascii_case(b"TIMESPAN") {
            if self.window.is_some() {
                return Err(OptionError::OneWindow);
            }
            self.window = Some(if keyword.eq_ignore_ascii_case(b"WINDOW") {
                Window::Count(length(OptionError::WindowRange)?)
            } else {
                Window::Time(length(OptionError::TimespanRange)?)
            });
        } else if keyword.eq_ignore_ascii_case(b"SLOTS") && self.slots.is_none() {
            if self.window.is_none() {
                return Err(OptionError::SlotsWithoutWindow);
            }
            let slots = integer_in(value, &(1..=MAX_SLOTS as i64));
            self.slots = Some(slots.map_err(|_| OptionError::SlotsRange)? as u64);
        } else {
            return Err(OptionError::Unknown);
        }
        Ok(())
    }

    /// Reads every keyword/value pair of `pairs`.
    pub fn parse(pairs: &[&[u8]]) -> Result<WindowOptions, OptionError> {
        let mut options = WindowOptions::default();
        for [keyword, value] in pairs.as_chunks::<2>().0 {
            options.take(keyword, value)?;
        }
        Ok(options)
    }

    /// Whether keyword/value `pairs` name a window (`WINDOW` or `TIMESPAN` as a keyword):
    /// only then are more arguments than RedisBloom's taken, so that RedisBloom's commands
    /// with too many arguments keep its arity error.
    pub fn asked_for(pairs: &[&[u8]]) -> bool {
        pairs.as_chunks::<2>().0.iter().any(|[keyword, _]| {
            keyword.eq_ignore_ascii_case(b"WINDOW") || keyword.eq_ignore_ascii_case(b"TIMESPAN")
        })
    }

    /// The window asked for and its slots (4 without `SLOTS`), if one was.
    pub fn window(self) -> Option<(Window, u64)> {
        Some((self.window?, self.slots.unwrap_or(DEFAULT_SLOTS)))
    }
}

/// The `INFO` pairs of a value that forgets by `window`, cut into `slots`: `window_type`
/// (`count` or `time`), `window` (its length) and `slots`.
pub fn info(window: Window, slots: u64) -> [(&'static CStr, Reply); 3] {
    let kind = match window {
        Window::Count(_) => "count",
        Window::Time(_) => "time",
    };
    [
        (c"window_type", Reply::Scalar(Scalar::Text(kind))),
        (c"window", Reply::count(window.length())),
        (c"slots", Reply::count(slots)),
    ]
}
