//! Bloom filters that forget: the sliding-window filters of `BF.RESERVE … WINDOW` (the last
//! `capacity` additions) and `BF.RESERVE … TIMESPAN ms` (the additions of the last `ms`
//! milliseconds), as Age-Partitioned Bloom Filters (Shtul, Baquero, Almeida, arXiv 2001.03147).
//!
//! The bits are a ring of `k + l` equal slices, filled one generation of `g` additions at a
//! time. An item is written to the k newest slices; it is found while some k consecutive
//! slices all hold its bit, which they do for the k slices its own generation wrote to until
//! the oldest of them is cleared, l generations later. A new generation clears the oldest
//! slice and makes it the newest. So, with `g = ⌈C/l⌉`, the last C additions are always found,
//! an addition stops being guaranteed about `C·(1 + 1/l)` additions later (after that it is
//! still found, with a chance halving every generation, until it is k generations older), and
//! never-added items are found with a bounded rate for ever.
//!
//! Time windows cut the window into a = 4 slots: a generation also ends at the first addition
//! in a new slot, and a run only counts while its generation holds an item younger than the
//! timespan. With `L = a + b` generations of `⌈C/b⌉`, everything added within the last `ms`
//! is found as long as no more than C arrive within any `ms` — a burst included — and with no
//! further writes everything is forgotten within `ms·(1 + 1/a)`. More than C within `ms`
//! shortens the window (the filter counts those "early slides"), never the error bound.
//!
//! Nothing here reads a clock. Writes take the time the command read once on the primary, and
//! the filter never goes behind the newest time it holds; reads take a time and change
//! nothing (generations past the window are ignored, and overwritten as the ring turns: the
//! slices they alone hold are never read by a live run, so clearing them would change no
//! answer).
//!
//! * [`shape`] — choosing (k, l), the generation and the slice size; the error bound;
//! * [`filter`] — the filter stored under a key;
//! * [`encoding`] — its RDB fields, and SCANDUMP/LOADCHUNK.

pub mod encoding;
pub mod filter;
pub mod shape;

#[cfg(test)]
mod tests;

pub use filter::{Generation, Info, WindowFilter};
pub use shape::Shape;
