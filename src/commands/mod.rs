//! The commands: each parses its arguments into plain values, calls the core and returns a
//! [`Reply`](reply::Reply). Everything Redis-facing a command needs (its key, the
//! configuration, the memory bound) it asks of the [`Server`](call::Server) in its
//! [`Call`](call::Call), which the glue implements; the glue registers every spec of [`ALL`].
//!
//! * `spec` — what Redis is told about a command; `call` — one invocation and its key;
//!   `args` — numbers as Redis parses them; `reply` — reply values; `errors` — every wire
//!   error string; `metrics` — the totals of the module's `INFO` section;
//! * `bf/` — the Bloom-filter family, one file per command family;
//! * `cf/` — the Cuckoo-filter family, likewise.
//!
//! Argument errors always come before key errors, as in RedisBloom.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod args;
pub mod bf;
pub mod call;
pub mod cf;
pub mod errors;
pub mod metrics;
pub mod reply;
pub mod spec;

use spec::CommandSpec;

/// Every command, in registration order.
pub static ALL: [&CommandSpec; 25] = [
    &bf::RESERVE,
    &bf::ADD,
    &bf::MADD,
    &bf::INSERT,
    &bf::EXISTS,
    &bf::MEXISTS,
    &bf::INFO,
    &bf::CARD,
    &bf::SCANDUMP,
    &bf::LOADCHUNK,
    &bf::DEBUG,
    &cf::RESERVE,
    &cf::ADD,
    &cf::ADDNX,
    &cf::INSERT,
    &cf::INSERTNX,
    &cf::EXISTS,
    &cf::MEXISTS,
    &cf::COUNT,
    &cf::DEL,
    &cf::COMPACT,
    &cf::SCANDUMP,
    &cf::LOADCHUNK,
    &cf::INFO,
    &cf::DEBUG,
];
