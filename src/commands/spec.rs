//! What Redis is told about a command — name, flags, arity, key spec, ACL categories and the
//! COMMAND DOCS entries — declared once, as a `CommandSpec` beside the command's code. The
//! glue registers every spec of `commands::ALL` from it.

use super::call::Call;
use super::errors::CommandResult;

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
    /// All of these, in order.
    Block(&'static [ArgSpec]),
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
pub const KEY_ARG: ArgSpec = ArgSpec::new("key", ArgKind::Key);

/// Everything Redis is told about a command, declared once next to its code.
pub struct CommandSpec {
    pub name: &'static str,
    /// `RedisModule_CreateCommand` flags.
    pub flags: &'static str,
    /// Redis arity: exact when positive, a minimum when negative.
    pub arity: i32,
    pub key: KeyAccess,
    /// ACL categories on servers that support module categories: standard ones and the
    /// family's own (`bloom`, `cuckoo`), which the glue creates.
    pub acl_categories: &'static str,
    pub summary: &'static str,
    pub complexity: &'static str,
    pub since: &'static str,
    /// COMMAND tips, e.g. `nondeterministic_output`.
    pub tips: Option<&'static str>,
    pub args: &'static [ArgSpec],
    pub run: fn(&Call) -> CommandResult,
}
