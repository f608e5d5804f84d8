//! What Redis is told about a command — name, flags, arity, keys, ACL categories and the
//! COMMAND DOCS entries — declared once, as a `CommandSpec` beside the command's code, and
//! listed in its family's [`Family`](super::family::Family). Everything else is derived from
//! it by the glue: registration, the legacy key range and the key specs, COMMAND DOCS, the
//! family's ACL category, the arity check before the command runs, and dispatch.

use super::call::Call;
use super::errors::CommandResult;

pub use super::key_spec::{KeyAccess, Keys};

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
/// A key and one item (BF.ADD, CF.EXISTS, …).
pub const KEY_AND_ITEM: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("item", ArgKind::String)];
/// A key and items (BF.MADD, CF.MEXISTS, …).
pub const KEY_AND_ITEMS: &[ArgSpec] = &[KEY_ARG, ArgSpec::new("item", ArgKind::String).multiple()];

/// Everything Redis is told about a command, declared once next to its code.
pub struct CommandSpec {
    pub name: &'static str,
    /// `RedisModule_CreateCommand` flags.
    pub flags: &'static str,
    /// Redis arity: exact when positive, a minimum when negative. Checked before `run` on
    /// every server (Redis 6.x does not check a module command's arity itself), so a command
    /// checks only what an arity cannot say.
    pub arity: i32,
    pub keys: Keys,
    /// The standard ACL categories (`read`, `write`, `fast`); the family's own is added.
    pub acl_categories: &'static str,
    pub summary: &'static str,
    pub complexity: &'static str,
    pub since: &'static str,
    /// COMMAND tips, e.g. `nondeterministic_output`.
    pub tips: Option<&'static str>,
    pub args: &'static [ArgSpec],
    pub run: fn(&Call) -> CommandResult,
}

impl CommandSpec {
    /// Whether `argc` arguments (the name included) satisfy the arity.
    pub fn arity_allows(&self, argc: usize) -> bool {
        let count = self.arity.unsigned_abs() as usize;
        if self.arity >= 0 {
            argc == count
        } else {
            argc >= count
        }
    }
}
