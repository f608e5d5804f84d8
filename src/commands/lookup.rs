//! What a key holds, from a command's point of view ([`Lookup`]): its value as the command
//! views it, nothing, or another kind of value. Keys are looked up through their handles
//! (`keys.rs`), and a value found to change keeps its key borrowed: one lookup after another
//! compiles,
//!
//! ```no_run
//! # use redis_bf::commands::keys::WriteKey;
//! # use redis_bf::core::bf::chain::Chain;
//! fn twice(key: &mut WriteKey) {
//!     let first = key.lookup::<Chain>();
//!     drop(first);
//!     let second = key.lookup::<Chain>();
//!     drop(second);
//! }
//! ```
//!
//! but two `&mut` of one value at once do not:
//!
//! ```compile_fail,E0499
//! # use redis_bf::commands::keys::WriteKey;
//! # use redis_bf::core::bf::chain::Chain;
//! fn twice(key: &mut WriteKey) {
//!     let first = key.lookup::<Chain>();
//!     let second = key.lookup::<Chain>();
//!     drop((first, second));
//! }
//! ```

use std::ffi::CStr;

use super::errors::{self, Failure};
use super::server::Held;

/// What a key holds, from a command's point of view: `V` is `&T` for keys opened to read (or
/// `&mut T`, [`ReadKey::lookup_mut`](super::keys::ReadKey::lookup_mut)),
/// [`Tracked<T>`](super::tracked::Tracked) (a `&mut T` that keeps the totals) for
/// keys opened to write.
pub enum Lookup<V> {
    Missing,
    WrongType,
    Found(V),
}

impl<V> Lookup<V> {
    /// What `held` is, as the command's view `pick` makes of a module value (`None`: the
    /// value is another family's, `WRONGTYPE`).
    // Inlined, as every step from a lookup to a `Tracked` is (`tracked.rs`).
    #[inline(always)]
    pub(super) fn of<H, E>(held: Held<H, E>, pick: impl FnOnce(H) -> Option<V>) -> Lookup<V> {
        match held {
            Held::Empty(_) => Lookup::Missing,
            Held::Value(value) => pick(value).map_or(Lookup::WrongType, Lookup::Found),
            Held::Other => Lookup::WrongType,
        }
    }

    /// The value, or `ERR not found` / `WRONGTYPE`.
    pub fn existing(self) -> Result<V, Failure> {
        self.or_missing(errors::NOT_FOUND)
    }

    /// The value, or the family's `missing` text for an empty key / `WRONGTYPE`.
    pub fn or_missing(self, missing: &'static CStr) -> Result<V, Failure> {
        match self {
            Lookup::Found(value) => Ok(value),
            Lookup::Missing => Err(Failure::Message(missing)),
            Lookup::WrongType => Err(Failure::Message(errors::WRONG_TYPE)),
        }
    }
}
