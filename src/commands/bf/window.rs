//! What the BF.* commands do on filters that forget (`BF.RESERVE key error_rate capacity
//! WINDOW | TIMESPAN ms`, the same options in BF.INSERT; the filter is `core::bf::window`):
//! creating one, adding to it, reading it by the clock, and its `BF.INFO` and `BF.DEBUG`.
//!
//! # Time on replicas and in the AOF
//!
//! What a time window holds depends on when each item was added, so its writes cannot be
//! replicated as they came: a replica, or an AOF replayed a day later, would apply them at its
//! own time and hold other bytes. So the time travels with the write:
//!
//! * A write reads the clock once, on the primary (`Server::now_ms`), and every item of it is
//!   added at that time — made the start of its time slot (`WindowFilter::write_time`): what
//!   a write leaves depends on its slot, never on its millisecond. The filter never goes
//!   behind the newest time it holds, so a clock stepped back, or a failover to a replica
//!   whose clock lags, cannot reorder its generations.
//! * A write in the slot of the newest time the filter holds — most writes: a slot is an
//!   eighth to a quarter of the timespan — is replicated as it came, and a replica or an AOF
//!   load makes a write that carries no time at that newest time, which is the primary's.
//!   (RM_Replicate costs the server more than the rest of a `BF.ADD`: it looks the command
//!   up by name and builds its arguments anew.) So a replica must run this version or a
//!   later one before its primary does.
//! * A write that opens a new slot reaches replicas and the AOF as `BF.INSERT key NOCREATE AT
//!   <ms> ITEMS …`, `<ms>` being the time the filter used. `AT` is accepted only from the
//!   primary's replication stream or an AOF being loaded (`Server::replayed`): a client cannot
//!   move a filter's clock, which could push it years ahead and keep it from ever forgetting.
//!   BF.INSERT already has what the replicated form needs (NOCREATE, ITEMS), so there is no
//!   hidden command to register, document or grant in ACLs, and the AOF stays readable.
//! * A new window filter reaches them as `BF.LOADCHUNK key 1 <header>`: its SCANDUMP header,
//!   which holds its whole shape — k, l, slices, generation size, time slots — as the primary
//!   chose it, and whose empty bits need no chunk. A replica never recomputes the shape from
//!   BF.RESERVE's arguments, so one running another version of the sizing rule still holds
//!   the same filter. BF.INSERT creating a filter replicates the header, then its items.
//! * Count windows depend on no clock. A new one travels as its header too, and the items of
//!   the command that created it as `BF.INSERT key NOCREATE ITEMS …`, so its shape is the
//!   primary's; a write to an existing one is replicated as it came, as a classic filter's is.
//! * Reads take the clock as well, only to know which generations are still alive, and change
//!   nothing. A replica answers by its own clock: within a few milliseconds of an item's
//!   expiry (the clocks' difference) it may answer differently from the primary, while both
//!   hold the same bytes (`DEBUG DIGEST`).
//!
//! In MULTI and in scripts each command reads its own time and replicates it, so transactions
//! replay exactly too.

use std::ffi::CStr;

use super::errors;
use crate::commands::call::Call;
use crate::commands::errors::Failure;
use crate::commands::keys::WriteKey;
use crate::commands::reply::{Reply, Scalar};
use crate::commands::server::{Arg, Replicated};
use crate::commands::tracked::Tracked;
use crate::core::bf::chain::Params;
use crate::core::bf::window::{encoding, Info, WindowFilter};
use crate::core::window::Window;

/// A new window filter of `params`' capacity and error rate, stored under the empty key and
/// replicated as its header; `BF.RESERVE`.
pub fn reserve(
    call: &Call,
    key: &mut WriteKey,
    params: Params,
    window: Window,
) -> Result<(), Failure> {
    let (_, header) = created(call, key, params, window)?;
    call.written_as(&[c"bf.reserve"], &[loadchunk_header(&header)]);
    Ok(())
}

/// A new window filter stored under the empty key, and its header (to be replicated).
pub fn created<'k>(
    call: &Call,
    key: &'k mut WriteKey,
    params: Params,
    window: Window,
) -> Result<(Tracked<'k, WindowFilter>, Vec<u8>), Failure> {
    let filter = WindowFilter::new(params.error_rate, params.capacity, window, &call.memory())
        .map_err(errors::fail)?;
    let header = encoding::encode_header(&filter);
    key.store(filter)?;
    Ok((key.lookup().existing()?, header))
}

/// Whether a filter of `existing` window is what `asked` asks for: the same kind (a timespan's
/// length, like the capacity, is a creation parameter, ignored for an existing filter).
pub fn same_kind(asked: Window, existing: Window) -> bool {
    std::mem::discriminant(&asked) == std::mem::discriminant(&existing)
}

/// Adds the items (the arguments from `first_item` on) and answers each as BF.MADD does (1
/// when it was not found before).
pub fn add_items(
    call: &Call,
    filter: &mut WindowFilter,
    first_item: usize,
    at: Option<u64>,
    created: Option<&[u8]>,
) -> Reply {
    call.out.array(call.args.len().saturating_sub(first_item));
    add(call, filter, first_item, at, created, |new| {
        call.out.scalar(Scalar::Bool(new))
    });
    Reply::Sent
}

/// Adds the items (the arguments from `first_item` on) in order at one time — `at` when a
/// replayed write carries it, else the clock read now — telling `each` whether each was new.
/// Every item is written, found or not, which renews it. Then the write is replicated as the
/// commands that repeat it exactly (module docs), after the header of the filter it `created`,
/// if it did — or, to an existing count window, as it came.
pub fn add(
    call: &Call,
    filter: &mut WindowFilter,
    first_item: usize,
    at: Option<u64>,
    created: Option<&[u8]>,
    mut each: impl FnMut(bool),
) {
    let items = call.args.get(first_item..).unwrap_or(&[]);
    let is_time = matches!(filter.shape().window, Window::Time(_));
    // The time a replayed write that carries none is made at: the newest the filter holds.
    let held_time = filter.write_time(filter.newest_ms());
    let now = match at {
        Some(at) => at,
        None if is_time && call.replayed() => held_time,
        None => read_time(call, filter),
    };
    let made_at = filter.write_time(now);
    let turned = filter.ring_has_turned();
    for item in items {
        each(!filter.insert(item, now));
    }
    if !turned && filter.ring_has_turned() {
        // Dense from now on, as a classic filter is once its writes reached its blocks: the
        // server glue advises huge pages, into which khugepaged collapses the resident pages
        // over time (never earlier: see `core::memory::Dense`).
        (call.memory().dense)(filter.bits());
    }
    let time = match filter.shape().window {
        // Made at the time replicas would make it at without one: the command is replicated
        // as it came (RM_Replicate would cost the server twice the rest of the write).
        Window::Time(_) if created.is_none() && made_at == held_time => {
            call.finish_write(c"bf.add");
            return;
        }
        Window::Time(_) => Some(filter.newest_ms().to_string()),
        Window::Count(_) if created.is_none() => {
            // What a count window does with a write depends only on its bytes, which every
            // replica holds: the command is replicated as it came, at no more cost than a
            // classic filter's.
            call.finish_write(c"bf.add");
            return;
        }
        Window::Count(_) => None,
    };
    let mut args = Vec::with_capacity(items.len() + 5);
    args.extend([KEY, Arg::Bytes(b"NOCREATE")]);
    if let Some(time) = &time {
        args.extend([Arg::Bytes(b"AT"), Arg::Bytes(time.as_bytes())]);
    }
    args.push(Arg::Bytes(b"ITEMS"));
    args.extend((first_item..first_item + items.len()).map(Arg::Own));
    let insert = Replicated {
        command: c"BF.INSERT",
        args,
    };
    match created {
        Some(header) => call.written_as(&[c"bf.add"], &[loadchunk_header(header), insert]),
        None => call.written_as(&[c"bf.add"], &[insert]),
    }
}

/// The command's key, as the replicated commands name it.
const KEY: Arg = Arg::Own(1);

/// `BF.LOADCHUNK key 1 <header>`: a new filter, as replicas and the AOF receive it.
fn loadchunk_header(header: &[u8]) -> Replicated<'_> {
    Replicated {
        command: c"BF.LOADCHUNK",
        args: vec![KEY, Arg::Bytes(b"1"), Arg::Bytes(header)],
    }
}

/// The time a command reads `filter` at: the clock for time windows; count windows keep none.
pub fn read_time(call: &Call, filter: &WindowFilter) -> u64 {
    match filter.shape().window {
        Window::Count(_) => 0,
        Window::Time(_) => call.now_ms(),
    }
}

/// One of the fields every Bloom filter's `BF.INFO` has (by its argument keyword), for a window
/// filter: one filter that never expands; `Number of items inserted` is `BF.CARD`'s count, the
/// items added within the window; its `LAYOUT` is `window`.
pub fn field(info: &Info, word: &str) -> Scalar {
    match word {
        "CAPACITY" => count(info.shape.capacity),
        "SIZE" => count(info.memory),
        "FILTERS" => Scalar::Integer(1),
        "ITEMS" => count(info.items),
        "LAYOUT" => Scalar::Text("window"),
        _ => Scalar::Null,
    }
}

/// The fields `BF.INFO` shows after the common ones: the window and how much of it is held,
/// the slices, the generations and the additions.
pub fn window_fields(info: &Info) -> Vec<(&'static CStr, Reply)> {
    let shape = &info.shape;
    let mut fields = Vec::with_capacity(11);
    let mut add = |name, value| fields.push((name, Reply::Scalar(value)));
    match shape.window {
        Window::Count(_) => {
            add(c"Window type", Scalar::Text("count"));
            add(c"Window held (additions)", count(info.window_held));
        }
        Window::Time(ms) => {
            add(c"Window type", Scalar::Text("time"));
            add(c"Timespan (ms)", count(ms));
            add(c"Time slots", count(u64::from(shape.slots)));
            add(c"Window held (ms)", count(info.window_held));
            add(c"Early slides", count(info.early_slides));
        }
    }
    add(c"Hash functions", count(u64::from(shape.k)));
    add(c"Slices", count(u64::from(info.slices)));
    add(c"Slice size", count(info.slice_bytes));
    add(c"Generation size", count(shape.generation));
    add(
        c"Items in current generation",
        count(info.current_generation),
    );
    add(c"Total additions", count(info.additions));
    fields
}

/// `BF.DEBUG` of a window filter: `size:<items in the window>`, its shape, then one line per
/// generation, newest first.
pub fn debug(filter: &WindowFilter, now: u64) -> Reply {
    let shape = filter.shape();
    let window = match shape.window {
        Window::Count(_) => "window:count".to_string(),
        Window::Time(ms) => format!("window:time timespan:{ms} now_ms:{}", filter.newest_ms()),
    };
    let mut lines = vec![
        format!("size:{}", filter.card(now)),
        format!(
            "{window} hashes:{} positions:{} slots:{} generation:{} slice_bits:{} additions:{}",
            shape.k,
            shape.l,
            shape.slots,
            shape.generation,
            shape.slice_bits,
            filter.info(now).additions
        ),
    ];
    lines.extend(filter.generations().map(|generation| {
        let latest = generation
            .latest_ms
            .map_or(String::new(), |ms| format!(" latest_ms:{ms}"));
        format!(
            "generation:{} slice:{} items:{}{latest}",
            generation.position, generation.slice, generation.fresh
        )
    }));
    Reply::Array(
        lines
            .into_iter()
            .map(|line| Reply::Bulk(line.into_bytes()))
            .collect(),
    )
}

fn count(n: u64) -> Scalar {
    Scalar::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}
