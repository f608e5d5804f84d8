//! The fuzz targets of redis-bf, as plain functions (`targets`), and what they need that the
//! module does not ship: a reader of `DUMP` payloads as Redis frames module values (`dump`,
//! with `lzf`), the format of a SCANDUMP stream in one fuzz input (`stream`), and a bounded
//! `Memory` that counts what it hands out (`memory`).
//!
//! Each target checks invariants, not only the absence of panics: a decoded filter answers
//! lookups, saves to the fields it was read from and loads back equal, round-trips through
//! SCANDUMP, has the size its fields describe, and never got more memory than its header
//! honestly needs. `cargo test` here (`make fuzz-check`) runs every seed and every regression
//! input through its target and checks that the seeds decode into filters holding what was
//! added to them.

pub mod dump;
pub mod lzf;
pub mod memory;
pub mod stream;
pub mod targets;

#[cfg(test)]
mod tests;
