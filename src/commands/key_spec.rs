//! Which arguments of a command are keys, as its spec declares them ([`Keys`]), and how the
//! server learns them: the legacy key range, the key specs (`glue/command_info.rs`), and for
//! commands whose sources a count names, the command's own answer ([`Keys::positions`],
//! `glue/key_positions.rs`).

use super::args::parse_integer;

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
