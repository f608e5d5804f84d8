//! What the families whose values forget share in their commands (Count-Min sketches and
//! Top-Ks; `cms/window.rs` and `topk/window.rs` say how each uses it): the time a write or a
//! read is made at, and how a write that moves a value's clock reaches replicas and the AOF.
//! The options that ask for a window are `window_options.rs`; the `ADVANCE` command that
//! replicas and the AOF replay, `classic_or_window.rs`.
//!
//! A write reads the clock once, on the primary. One that opens a new period of the value's
//! clock is replicated behind the family's `ADVANCE key <ms>` (accepted only from the
//! replication stream or an AOF), which sets that clock on the replica first; the others, and
//! every write to a count window, are replicated as they came and applied at the newest period
//! the value holds, which is the primary's. So every copy holds the same bytes.

use std::ffi::CStr;

use super::call::Call;
use super::server::{Arg, Replicated};
use crate::core::window::{Forgets, Window};

/// A value that forgets, as its family's commands see it: the core's clock moves
/// ([`Forgets`]), and the family's `ADVANCE`, which carries a primary's time to replicas.
pub trait Forgetting: Forgets {
    /// The family's `ADVANCE`, as replicated.
    const ADVANCE: &'static CStr;
}

/// When a write to a value that forgets is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteTime {
    /// Its time: the clock, read once, on a primary; on replicas and in the AOF none (the
    /// newest period held). Count windows keep no time.
    pub now: Option<u64>,
    /// The same time, where the write opens a period of the value's clock: it then reaches
    /// replicas behind the family's `ADVANCE` ([`written`]).
    pub opens: Option<u64>,
}

/// When a write to `value` is made.
pub fn write_time(call: &Call, value: &impl Forgets) -> WriteTime {
    let now = time_of_write(call, value.clock().window());
    WriteTime {
        now,
        opens: now.filter(|&now| value.opens_period(now)),
    }
}

/// The time a write to a value of `window` is made at ([`WriteTime::now`]).
fn time_of_write(call: &Call, window: Window) -> Option<u64> {
    match window {
        Window::Time(_) if !call.replayed() => Some(call.now_ms()),
        _ => None,
    }
}

/// The time a read of `value` sees it at: the clock for time windows.
pub fn read_time(call: &Call, value: &impl Forgets) -> u64 {
    match value.clock().window() {
        Window::Time(_) => call.now_ms(),
        Window::Count(_) => 0,
    }
}

/// The time a creation of a value of `window` starts its clock at: the clock on a primary; 0
/// when replayed, the `advance` that follows it setting the primary's.
pub fn creation_time(call: &Call, window: Window) -> u64 {
    time_of_write(call, window).unwrap_or(0)
}

/// Replicates a write (`command`) to a value of kind `V` and raises `event`: as it came,
/// unless it `opened` a period at that time ([`WriteTime::opens`]) — then behind the family's
/// `ADVANCE key <ms>`.
pub fn written<V: Forgetting>(
    call: &Call,
    command: &'static CStr,
    opened: Option<u64>,
    event: &'static CStr,
) {
    let Some(now) = opened else {
        call.finish_write(event);
        return;
    };
    let now = now.to_string();
    let as_it_came = Replicated {
        command,
        args: (1..call.args.len()).map(Arg::Own).collect(),
    };
    call.written_as(
        &[event],
        &[advance_to(V::ADVANCE, now.as_bytes()), as_it_came],
    );
}

/// A new value of kind `V` replicated in its explicit form, `command key <shape_words> WINDOW n
/// | TIMESPAN ms SLOTS s` (nothing recomputed on replicas), raising `event`; a time window's
/// clock follows behind the family's `ADVANCE key <now>`.
pub fn created<V: Forgetting>(
    call: &Call,
    (command, shape_words): (&'static CStr, &[&[u8]]),
    (window, slots): (Window, u64),
    now: u64,
    event: &'static CStr,
) {
    if call.replayed() {
        call.finish_write(event);
        return;
    }
    let kind: &[u8] = match window {
        Window::Count(_) => b"WINDOW",
        Window::Time(_) => b"TIMESPAN",
    };
    let [length, slots, now] = [window.length(), slots, now].map(|n| n.to_string());
    let options = [kind, length.as_bytes(), b"SLOTS", slots.as_bytes()];
    let words = shape_words.iter().chain(&options).map(|w| Arg::Bytes(w));
    let args = std::iter::once(Arg::Own(1)).chain(words).collect();
    let created = Replicated { command, args };
    match window {
        Window::Time(_) => {
            call.written_as(&[event], &[created, advance_to(V::ADVANCE, now.as_bytes())])
        }
        Window::Count(_) => call.written_as(&[event], &[created]),
    }
}

/// `<advance> key <now>`.
fn advance_to<'a>(advance: &'static CStr, now: &'a [u8]) -> Replicated<'a> {
    Replicated {
        command: advance,
        args: vec![Arg::Own(1), Arg::Bytes(now)],
    }
}
