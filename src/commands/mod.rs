//! The commands: each parses its arguments into plain values, calls the core and returns a
//! [`Reply`](reply::Reply). Everything Redis-facing a command needs (its keys, the memory
//! bound, replication) it asks of the [`Server`](server::Server) in its [`Call`](call::Call),
//! which the glue implements.
//!
//! Shared by every family, and naming none: `spec` — what Redis is told about a command;
//! `family` — the record a family hands the glue (commands, configs, INFO section, totals);
//! `call` and `server` — one invocation and its keys; `sources` — a merge's sources, each opened once; `args`, `double`, `hex_double` and
//! `digits` — numbers as Redis parses them; `key_spec` — which arguments are keys;
//! `reply` — reply values; `errors` — the errors every family sends; `setting` — one config;
//! `metrics` — the totals of the module's `INFO` sections; `forgetting` — what the families whose
//! values forget share (their time, how it reaches replicas); `window_options` — their options;
//! `classic_or_window` — their values, found at a key.
//!
//! One folder per family (a wing): `bf/` (Bloom filters), `cf/` (Cuckoo filters), `cms/`
//! (Count-Min sketches), `topk/` (Top-K), `tdigest/` (t-digests). Each has a file per command
//! family, its parameter rules, its configs, its wire texts (`errors.rs`) and its `FAMILY`
//! record.
//!
//! Each family checks its arguments and its key in RedisBloom's order: for BF and CF the
//! arguments first, for CMS, TOPK and TDIGEST the key first.

#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod args;
pub mod bf;
pub mod call;
pub mod cf;
pub mod classic_or_window;
pub mod cms;
mod digits;
pub mod double;
pub mod dump;
pub mod errors;
pub mod family;
pub mod forgetting;
mod hex_double;
pub mod key_spec;
pub mod keys;
pub mod lookup;
pub mod metrics;
pub mod opened;
mod origin;
pub mod reply;
pub mod server;
pub mod setting;
pub mod sources;
pub mod spec;
pub mod tdigest;
#[cfg(test)]
mod testing;
pub mod topk;
pub mod tracked;
pub mod window_options;
