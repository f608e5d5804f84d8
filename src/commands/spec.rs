//! What Redis is told about a command — name, flags, arity, keys, ACL categories and the
//! COMMAND DOCS entries — declared once, as a `CommandSpec` beside the command's code, and
//! listed in its family's [`Family`](super::family::Family). Everything else is derived from
//! it by the glue: registration, the legacy key range and the key specs, COMMAND DOCS, the
//! family's ACL category, the arity check before the command runs, and dispatch.

use super::args::parse_integer;
use super::call::Call;
use super::errors::CommandResult;

/// Whether a command reads or writes its key (for key specs and ACL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAccess {
    Read,
    Write,
}

/// Which arguments are keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// One key, argument 1, read or written.
    One(KeyAccess),
    /// `destination numkeys source [source ...]`: argument 1 is written, argument 2 counts the
    /// sources that follow it, which are read (CMS.MERGE, TDIGEST.MERGE).
    DestinationAndSources,
}

impl Keys {
    /// The legacy key range `(first, last, step)` of `RedisModule_CreateCommand`: argument 1.
    /// Sources counted by an argument cannot be told in a range, nor does cluster routing read
    /// key specs (`getKeysFromCommand` in the servers' `db.c` takes the legacy range of a
    /// module command, which a key spec counted by an argument leaves at the destination), so
    /// such commands also tell the server their keys themselves ([`Keys::asks_command`]).
    pub const LEGACY_RANGE: (i32, i32, i32) = (1, 1, 1);

    /// Whether the server must ask the command which arguments are keys (the `getkeys-api`
    /// flag): when a count among the arguments says how many follow, so that cluster routing
    /// sees every key (`CROSSSLOT`, `ASK`, `TRYAGAIN`), as ACL and `COMMAND GETKEYS` do through
    /// the key specs.
    pub fn asks_command(self) -> bool {
        matches!(self, Keys::DestinationAndSources)
    }

    /// The arguments of `args` (the command name first) that are keys, and how each is used:
    /// the destination, then the sources a well-formed count names. A count that is no
    /// positive integer, or names more sources than there are arguments, names none: the
    /// command then fails with its own error, wherever the destination is.
    pub fn positions(self, args: &[&[u8]]) -> impl Iterator<Item = (usize, KeyAccess)> {
        let (destination, sources) = match self {
            Keys::One(access) => ((1, access), 0),
            Keys::DestinationAndSources => {
                let count = args.get(2).and_then(|count| parse_integer(count));
                let count = count.and_then(|count| usize::try_from(count).ok());
                let fits =
                    |&count: &usize| count.checked_add(3).is_some_and(|end| end <= args.len());
                ((1, KeyAccess::Write), count.filter(fits).unwrap_or(0))
            }
        };
        let named = usize::from(destination.0 < args.len());
        let sources = (3..3 + sources).map(|i| (i, KeyAccess::Read));
        std::iter::once(destination).take(named).chain(sources)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::testing::words;

    fn positions(keys: Keys, line: &str) -> Vec<(usize, KeyAccess)> {
        keys.positions(&words(line)).collect()
    }

    /// The sources a merge's count names are keys; a count that names none, or more than
    /// there are, leaves the destination alone.
    #[test]
    fn a_merge_names_its_destination_and_counted_sources() {
        let (read, write) = (KeyAccess::Read, KeyAccess::Write);
        let merge = Keys::DestinationAndSources;
        assert_eq!(
            positions(merge, "m d 2 a b WEIGHTS 1 2"),
            [(1, write), (3, read), (4, read)]
        );
        assert_eq!(positions(merge, "m d 1 a"), [(1, write), (3, read)]);
        for line in [
            "m d 3 a b",
            "m d 0 a",
            "m d -1 a",
            "m d x a",
            "m d 99999999999999999999 a",
        ] {
            assert_eq!(positions(merge, line), [(1, write)], "{line}");
        }
        assert_eq!(positions(Keys::One(read), "c k x"), [(1, read)]);
        assert_eq!(positions(Keys::One(read), "c"), []);
        assert!(merge.asks_command() && !Keys::One(write).asks_command());
    }
}
