//! A family of commands (`BF.*`, `CF.*`, …) as the rest of the module sees it: one record,
//! declared in the family's wing, that the glue reads to register the commands, the configs
//! and the family's `INFO` section. Nothing outside a wing needs to know the family's name.

use std::ffi::CStr;

use super::metrics::Totals;
use super::setting::Setting;
use super::spec::CommandSpec;

/// Everything the module registers for one family.
pub struct Family {
    /// The family's ACL category (`bloom`), which each of its commands joins where the server
    /// has module categories (Redis ≥ 7.4, Valkey).
    pub acl_category: &'static str,
    /// Its commands, in registration order.
    pub commands: &'static [&'static CommandSpec],
    /// Its configs, in registration order.
    pub settings: &'static [&'static Setting],
    /// The totals of its stored values, which [`info`](Family::info) shows.
    pub totals: &'static Totals,
    /// Its section of `INFO`.
    pub info: InfoSection,
    /// How a command is registered where the family stands in for another module, as that
    /// module registers it, or `None`: as declared. Asked once per command, when the module
    /// loads, after the configs.
    pub stand_in: fn(&CommandSpec) -> Option<StandIn>,
}

/// A command registered as another module registers it: the server shows its name in
/// `COMMAND` and in arity errors, its flags and ACL categories in `COMMAND INFO`, and its arity
/// there too (the command's own check still applies).
pub struct StandIn {
    pub name: String,
    pub flags: &'static str,
    pub acl_categories: &'static str,
    pub arity: i32,
}

/// A section of the module's `INFO`: its name, without the server's `bf_` prefix, and its
/// fields, in order.
pub struct InfoSection {
    pub name: &'static CStr,
    pub fields: &'static [InfoField],
}

/// One field of a family's `INFO` section: its name, without the server's `bf_` prefix, and
/// which total it shows.
pub struct InfoField {
    pub name: &'static CStr,
    pub shows: Stat,
}

impl InfoField {
    /// The field `name` showing `shows`.
    pub const fn new(name: &'static CStr, shows: Stat) -> InfoField {
        InfoField { name, shows }
    }
}

/// A total of a family's stored values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    /// How many there are.
    Objects,
    /// Their bytes, as `MEMORY USAGE` counts them.
    Bytes,
    /// The sum of one of the counts of their footprints (the family says what each means).
    Count(usize),
}
