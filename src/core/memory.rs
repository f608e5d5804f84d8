//! How the core gets memory. Every allocation a user can cause is fallible, the bytes of new
//! arrays come from the caller (who knows the server's allocator), and a value's size is
//! checked before anything is allocated against what the operator lets one value hold and
//! what the machine can hold: its physical memory, and the server's own bound (`maxmemory`).
//!
//! A value's size is always its whole reservation — every sub-filter it has and the one it is
//! about to get, or everything a SCANDUMP header or an RDB payload announces — never one
//! allocation alone: a key that grows a gigabyte at a time stops where the key as a whole
//! would pass the bound.

use super::error::Error;

/// Supplies the zero-filled bytes of a new array, or `None` when that much memory cannot be
/// had. The server glue passes one that maps fresh, lazily zeroed pages; [`eager_zeroed`]
/// serves where there is no server.
pub type Zeroed = fn(usize) -> Option<Vec<u8>>;

/// Told about an array the moment it becomes dense (see `core::sparse`): most of its pages
/// are about to be written, so the caller may now back it with bigger pages. The server glue
/// passes one that advises transparent huge pages; advising a fresh array before its first
/// write instead would fault in 2 MiB per item written at random, stalling the server.
pub type Dense = fn(&[u8]);

/// Where a value's new arrays come from, and how large one value may become (as its
/// `memory_usage` counts it: arrays and their bookkeeping).
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    /// The source of zero-filled arrays.
    pub zeroed: Zeroed,
    /// Called with an array's bytes once it becomes dense.
    pub dense: Dense,
    /// The most bytes one value may ever get on this machine (its physical memory): beyond
    /// it a value is [`Error::OutOfMemory`], instead of being granted by overcommit and then
    /// faulting the server to death as its bits are set.
    pub available: u64,
    /// The server's own bound on one value (its `maxmemory`, where set and where it applies),
    /// as `server_bound(site)`: beyond it a value is [`Error::OutOfMemory`] too. Asked only
    /// once a value passes the other two bounds, when it is sized — created, grown, or
    /// announced by a header or payload — as the answer may cost a call into the server: the
    /// commands that only add to existing arrays never ask.
    pub server_bound: fn(usize) -> u64,
    /// The caller's handle on the server, passed back untouched to `server_bound` (0 where
    /// there is none).
    pub site: usize,
    /// The most bytes the operator lets one value hold: beyond it a value is
    /// [`Error::OverLimit`].
    pub limit: u64,
}

/// Arrays written eagerly, with no bound but what allocation refuses: for tests and tools.
pub const EAGER: Memory = Memory {
    zeroed: eager_zeroed,
    dense: no_advice,
    available: u64::MAX,
    server_bound: no_server_bound,
    site: 0,
    limit: u64::MAX,
};

/// A [`Memory::dense`] for where there is no server: nothing to advise.
pub fn no_advice(_bytes: &[u8]) {}

/// A [`Memory::server_bound`] for where there is no server.
pub fn no_server_bound(_site: usize) -> u64 {
    u64::MAX
}

impl Memory {
    /// Whether a value may hold `value_bytes` in all: its whole reservation, not one array.
    pub fn check(&self, value_bytes: u64) -> Result<(), Error> {
        if value_bytes > self.limit {
            Err(Error::OverLimit)
        } else if value_bytes > self.available || value_bytes > (self.server_bound)(self.site) {
            Err(Error::OutOfMemory)
        } else {
            Ok(())
        }
    }

    /// A zeroed array of `len` bytes (the filter's total was checked by the caller).
    pub fn array(&self, len: u64) -> Result<Vec<u8>, Error> {
        let len = usize::try_from(len).map_err(|_| Error::OutOfMemory)?;
        (self.zeroed)(len)
            .filter(|bytes| bytes.len() == len)
            .ok_or(Error::OutOfMemory)
    }
}

/// Zeroed bytes from a fallible reservation, written eagerly.
pub fn eager_zeroed(len: usize) -> Option<Vec<u8>> {
    try_filled(len, 0).ok()
}

/// An empty vector with room for exactly `len` elements, or `OutOfMemory` instead of aborting
/// the server: how the core allocates every vector whose length comes from input.
pub fn try_vec<T>(len: usize) -> Result<Vec<T>, Error> {
    let mut vec = Vec::new();
    vec.try_reserve_exact(len).map_err(|_| Error::OutOfMemory)?;
    Ok(vec)
}

/// `len` copies of `value` ([`try_vec`]).
pub fn try_filled<T: Clone>(len: usize, value: T) -> Result<Vec<T>, Error> {
    let mut vec = try_vec(len)?;
    vec.resize(len, value);
    Ok(vec)
}

/// A copy of `items` ([`try_vec`]).
pub fn try_copy<T: Copy>(items: &[T]) -> Result<Vec<T>, Error> {
    let mut copy = try_vec(items.len())?;
    copy.extend_from_slice(items);
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operators_limit_is_checked_before_the_machines() {
        let memory = Memory {
            available: 100,
            limit: 50,
            ..EAGER
        };
        assert_eq!(memory.check(50), Ok(()));
        assert_eq!(memory.check(51), Err(Error::OverLimit));
        let memory = Memory {
            limit: 200,
            ..memory
        };
        assert_eq!(memory.check(101), Err(Error::OutOfMemory));
        let server = Memory {
            server_bound: |site| site as u64 * 10,
            site: 7,
            ..EAGER
        };
        assert_eq!(server.check(70), Ok(()));
        assert_eq!(server.check(71), Err(Error::OutOfMemory));
        let refusing = Memory {
            zeroed: |_| None,
            ..EAGER
        };
        assert_eq!(refusing.array(8), Err(Error::OutOfMemory));
        assert_eq!(EAGER.array(8), Ok(vec![0; 8]));
    }
}
