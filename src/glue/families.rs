//! The families the module registers, each with its data types: the one list a new family
//! joins. Everything else — data types, commands, configs, ACL categories, INFO sections —
//! is derived from it.

use super::data_type::DataType;
use super::types;
use crate::commands::family::Family;

/// A family and the data types that hold its values.
pub struct Registered {
    pub family: &'static Family,
    pub types: &'static [&'static DataType],
}

/// Every family, in registration order.
pub static FAMILIES: [&Registered; 2] = [&types::bloom::BLOOM, &types::cuckoo::CUCKOO];

/// Every data type of every family.
pub fn data_types() -> impl Iterator<Item = &'static DataType> {
    FAMILIES
        .iter()
        .flat_map(|registered| registered.types.iter().copied())
}
