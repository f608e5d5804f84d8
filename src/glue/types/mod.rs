//! One file per family: its data types (each a [`Format`](super::data_type::Format): name,
//! encoding version, RDB, AOF and digest code, all safe) and the record that registers the
//! family with them (`glue/families.rs` lists it).

pub mod bf;
pub mod cf;
pub mod cms;
pub mod tdigest;
pub mod topk;
