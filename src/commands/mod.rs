//! The BF.* commands: each parses its arguments into plain values, calls the core and
//! returns a [`Reply`]. Everything Redis-facing they need (the context, the data type, the
//! configured defaults) arrives in a [`Call`]; the glue registers them from [`ALL`].
//!
//! Argument errors always come before key errors, as in RedisBloom.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod add;
mod debug;
mod dump;
pub mod errors;
mod exists;
mod info;
mod insert;
pub mod reply;
mod reserve;

use redis_module::key::{RedisKey, RedisKeyWritable};
use redis_module::native_types::RedisType;
use std::ffi::CStr;

use redis_module::{Context, ContextFlags, RedisError, RedisString};

use crate::core::chain::{Chain, LayoutKind, Params};
use crate::core::filter::Zeroed;
use errors::{CommandResult, Failure};

/// Defaults for filters created without explicit parameters (the `bf-*` configs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Defaults {
    pub error_rate: f64,
    pub capacity: u64,
    /// 0 means new filters are non-scaling.
    pub expansion: u32,
    pub layout: LayoutKind,
}

impl Defaults {
    /// What BF.ADD/BF.MADD auto-create with.
    fn params(&self) -> Params {
        Params {
            capacity: self.capacity,
            error_rate: self.error_rate,
            expansion: self.expansion,
            nonscaling: self.expansion == 0,
            layout: self.layout,
        }
    }
}

/// Raises keyspace event `event` on key `name` (the glue's, without allocating per call).
pub type Notify = fn(&Context, &'static CStr, &RedisString);

/// One invocation of a command.
pub struct Call<'a> {
    pub ctx: &'a Context,
    /// The arguments, the command name first, as the bytes the client sent.
    pub args: &'a [&'a [u8]],
    /// The key (argument 1) as the server's string, for opening it; `None` without one.
    pub key: Option<&'a RedisString>,
    /// The registered `MBbloom--` type: RedisBloom's, for classic filters.
    pub bloom_type: &'a RedisType,
    /// The registered type of fast-layout filters.
    pub fast_type: &'a RedisType,
    pub defaults: Defaults,
    /// Where new bit arrays come from.
    pub zeroed: Zeroed,
    /// Raises a module keyspace event (`notify-keyspace-events` with `d`) on a key.
    pub notify: Notify,
}

/// Whether a command reads or writes its key (for key specs and ACL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAccess {
    Read,
    Write,
}

/// How an argument is documented in COMMAND DOCS.
#[derive(Debug, Clone, Copy)]
pub enum ArgKind {
    Key,
    String,
    Integer,
    Double,
    PureToken,
    /// Exactly one of these.
    OneOf(&'static [ArgSpec]),
}

/// One argument in COMMAND DOCS.
#[derive(Debug, Clone, Copy)]
pub struct ArgSpec {
    pub name: &'static str,
    pub kind: ArgKind,
    /// The keyword before the value, e.g. `EXPANSION`.
    pub token: Option<&'static str>,
    pub optional: bool,
    pub multiple: bool,
}

impl ArgSpec {
    pub const fn new(name: &'static str, kind: ArgKind) -> Self {
        ArgSpec {
            name,
            kind,
            token: None,
            optional: false,
            multiple: false,
        }
    }
    pub const fn token(self, token: &'static str) -> Self {
        ArgSpec {
            token: Some(token),
            ..self
        }
    }
    pub const fn optional(self) -> Self {
        ArgSpec {
            optional: true,
            ..self
        }
    }
    pub const fn multiple(self) -> Self {
        ArgSpec {
            multiple: true,
            ..self
        }
    }
}

/// The key, first argument of every command.
const KEY_ARG: ArgSpec = ArgSpec::new("key", ArgKind::Key);
/// BF.ADD and BF.EXISTS: a key and one item.
const ONE_ITEM_ARGS: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("item", ArgKind::String)];
/// BF.MADD and BF.MEXISTS: a key and items.
const MANY_ITEM_ARGS: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("item", ArgKind::String).multiple()];

/// Options BF.RESERVE and BF.INSERT share.
const EXPANSION_ARG: ArgSpec = ArgSpec::new("expansion", ArgKind::Integer)
    .token("EXPANSION")
    .optional();
const NONSCALING_ARG: ArgSpec = ArgSpec::new("nonscaling", ArgKind::PureToken)
    .token("NONSCALING")
    .optional();
const LAYOUT_ARG: ArgSpec = ArgSpec::new("layout", ArgKind::String)
    .token("LAYOUT")
    .optional();

/// Everything Redis is told about a command, declared once next to its code.
pub struct CommandSpec {
    pub name: &'static str,
    /// `RedisModule_CreateCommand` flags.
    pub flags: &'static str,
    /// Redis arity: exact when positive, a minimum when negative.
    pub arity: i32,
    pub key: KeyAccess,
    /// ACL categories on servers that support module categories (`bloom` is created by us).
    pub acl_categories: &'static str,
    pub summary: &'static str,
    pub complexity: &'static str,
    pub since: &'static str,
    /// COMMAND tips, e.g. `nondeterministic_output`.
    pub tips: Option<&'static str>,
    pub args: &'static [ArgSpec],
    pub run: fn(&Call) -> CommandResult,
}

/// Every command, in registration order.
pub static ALL: [&CommandSpec; 11] = [
    &reserve::RESERVE,
    &add::ADD,
    &add::MADD,
    &insert::INSERT,
    &exists::EXISTS,
    &exists::MEXISTS,
    &info::INFO,
    &info::CARD,
    &dump::SCANDUMP,
    &dump::LOADCHUNK,
    &debug::DEBUG,
];

/// What a key holds, from a command's point of view: `F` is `&Chain` for keys opened to read,
/// `&mut Chain` for keys opened to write.
pub enum Lookup<F> {
    Missing,
    WrongType,
    Filter(F),
}

impl<F> Lookup<F> {
    fn from_value(value: Result<Option<F>, RedisError>) -> Self {
        match value {
            Ok(Some(chain)) => Lookup::Filter(chain),
            Ok(None) => Lookup::Missing,
            Err(_) => Lookup::WrongType,
        }
    }

    /// This, unless it is a wrong type: then what `other` finds (a key holds one of two types).
    fn or_else(self, other: impl FnOnce() -> Self) -> Self {
        match self {
            Lookup::WrongType => other(),
            found => found,
        }
    }

    /// The filter, or `ERR not found` / `WRONGTYPE`.
    fn existing(self) -> Result<F, Failure> {
        match self {
            Lookup::Filter(chain) => Ok(chain),
            Lookup::Missing => Err(Failure::Message(errors::NOT_FOUND)),
            Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
        }
    }
}

impl Call<'_> {
    /// Argument `i` as bytes (the caller has checked the arity).
    fn arg(&self, i: usize) -> &[u8] {
        self.args.get(i).copied().unwrap_or_default()
    }

    /// Fails with Redis's arity error unless `ok`.
    fn require_arity(&self, ok: bool) -> Result<(), Failure> {
        if ok {
            Ok(())
        } else {
            Err(Failure::WrongArity)
        }
    }

    /// The key's name (argument 1; the arity is checked before any key is opened).
    fn key_name(&self) -> Result<&RedisString, Failure> {
        self.key.ok_or(Failure::WrongArity)
    }

    /// Opens the key for writing.
    fn open_for_write(&self) -> Result<RedisKeyWritable, Failure> {
        Ok(self.ctx.open_key_writable(self.key_name()?))
    }

    /// Opens the key for reading: unlike a write open, it does not count as a modification
    /// (WATCH, client-side caching).
    fn open_for_read(&self) -> Result<RedisKey, Failure> {
        Ok(self.ctx.open_key(self.key_name()?))
    }

    /// What a key opened for writing holds.
    fn lookup<'k>(&self, key: &'k RedisKeyWritable) -> Lookup<&'k mut Chain> {
        Lookup::from_value(key.get_value::<Chain>(self.bloom_type))
            .or_else(|| Lookup::from_value(key.get_value::<Chain>(self.fast_type)))
    }

    /// What a key opened for reading holds.
    fn lookup_read<'k>(&self, key: &'k RedisKey) -> Lookup<&'k Chain> {
        Lookup::from_value(key.get_value::<Chain>(self.bloom_type))
            .or_else(|| Lookup::from_value(key.get_value::<Chain>(self.fast_type)))
    }

    /// The filter at the key, created with `params` when the key is empty.
    fn existing_or_created<'k>(
        &self,
        key: &'k RedisKeyWritable,
        params: Params,
    ) -> Result<&'k mut Chain, Failure> {
        match self.lookup(key) {
            Lookup::Filter(chain) => Ok(chain),
            Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
            Lookup::Missing => {
                self.store(key, Chain::new(params, self.zeroed)?)?;
                self.lookup(key).existing()
            }
        }
    }

    /// Puts a new filter under an empty key.
    fn store(&self, key: &RedisKeyWritable, chain: Chain) -> Result<(), Failure> {
        let data_type = match chain.layout() {
            LayoutKind::Classic => self.bloom_type,
            LayoutKind::Fast => self.fast_type,
        };
        key.set_value(data_type, chain)
            .map_err(|_| Failure::Message(errors::WRONG_TYPE))
    }

    /// Every successful write ends here: replicate the command as it came (as RedisBloom
    /// does, so replicas and the AOF see the same command) and tell keyspace listeners.
    fn finish_write(&self, event: &'static CStr) {
        self.ctx.replicate_verbatim();
        if let Some(name) = self.key {
            (self.notify)(self.ctx, event, name);
        }
    }

    fn is_resp3(&self) -> bool {
        self.ctx.get_flags().contains(ContextFlags::FLAGS_RESP3)
    }
}

/// A signed integer as Redis parses one (`string2ll`): optional `-`, no `+`, no spaces, no
/// leading zeros, within i64.
pub(crate) fn parse_integer(text: &[u8]) -> Option<i64> {
    let digits = text.strip_prefix(b"-").unwrap_or(text);
    let canonical = match digits {
        [b'0'] => true,
        [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
        [] => false,
    };
    if !canonical || (digits.len() != text.len() && digits == b"0") {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

/// A double as Redis parses one (`RedisModule_StringToDouble`): the whole string, no
/// leading space, no NaN, and no overflow or underflow of a finite literal.
pub(crate) fn parse_double(text: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(text).ok()?;
    let value: f64 = text.parse().ok()?;
    let names_infinity = text.to_ascii_lowercase().contains("inf");
    let nonzero_mantissa = text
        .split(['e', 'E'])
        .next()
        .is_some_and(|m| m.bytes().any(|b| (b'1'..=b'9').contains(&b)));
    let overflowed = value.is_infinite() && !names_infinity;
    let underflowed = value == 0.0 && nonzero_mantissa;
    (!value.is_nan() && !overflowed && !underflowed).then_some(value)
}

/// RedisBloom caps error rates silently at this (`BF_ERROR_RATE_CAP`), logging a warning.
pub(crate) const ERROR_RATE_CAP: f64 = 0.25;
/// Capacity limit of RESERVE/INSERT and the config (2^30).
pub(crate) const MAX_CAPACITY: i64 = 1 << 30;
/// Expansion limit of RESERVE/INSERT and the config.
pub(crate) const MAX_EXPANSION: i64 = 32768;

/// The layouts' names, as `LAYOUT`, the `bf-layout` config (any case) and `BF.INFO` spell them.
const LAYOUT_NAMES: [(LayoutKind, &str); 2] =
    [(LayoutKind::Classic, "classic"), (LayoutKind::Fast, "fast")];

/// The layout called `name`, in any case.
pub(crate) fn layout_named(name: &[u8]) -> Option<LayoutKind> {
    LAYOUT_NAMES
        .iter()
        .find(|(_, n)| name.eq_ignore_ascii_case(n.as_bytes()))
        .map(|(kind, _)| *kind)
}

/// The name of `layout`.
pub(crate) fn layout_name(layout: LayoutKind) -> &'static str {
    LAYOUT_NAMES
        .iter()
        .find(|(kind, _)| *kind == layout)
        .map_or("classic", |(_, n)| n)
}

/// A `LAYOUT` value.
fn parse_layout(text: &[u8]) -> Result<LayoutKind, Failure> {
    layout_named(text).ok_or(Failure::Message(errors::BAD_LAYOUT))
}

/// Applies RedisBloom's error-rate cap, telling the log as it does.
fn capped_error_rate(ctx: &Context, error_rate: f64) -> f64 {
    if error_rate > ERROR_RATE_CAP {
        ctx.log_warning("Error rate is capped at 0.250000");
        ERROR_RATE_CAP
    } else {
        error_rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_parse_like_redis() {
        assert_eq!(parse_integer(b"0"), Some(0));
        assert_eq!(parse_integer(b"-12"), Some(-12));
        assert_eq!(parse_integer(b"9223372036854775807"), Some(i64::MAX));
        for bad in [
            &b""[..],
            b"-",
            b"+1",
            b"01",
            b"-0",
            b" 1",
            b"1 ",
            b"1.0",
            b"9223372036854775808",
            b"0x10",
        ] {
            assert_eq!(
                parse_integer(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn doubles_parse_like_redis() {
        assert_eq!(parse_double(b"0.01"), Some(0.01));
        assert_eq!(parse_double(b"1e-3"), Some(0.001));
        assert_eq!(parse_double(b"inf"), Some(f64::INFINITY));
        assert_eq!(parse_double(b"0"), Some(0.0));
        for bad in [
            &b""[..],
            b" 1",
            b"1 ",
            b"nan",
            b"abc",
            b"1e400",
            b"1e-400",
            b"0.01x",
        ] {
            assert_eq!(
                parse_double(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
