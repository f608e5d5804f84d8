//! How the core gets memory. Every allocation a user can cause is fallible, the bytes of new
//! arrays come from the caller (who knows the server's allocator), and a filter's size is
//! checked against two bounds before anything is allocated: what the machine can hold, and
//! what the operator lets one filter hold.

use super::Error;

/// Supplies the zero-filled bytes of a new array, or `None` when that much memory cannot be
/// had. The server glue passes one that maps fresh, lazily zeroed pages; [`eager_zeroed`]
/// serves where there is no server.
pub type Zeroed = fn(usize) -> Option<Vec<u8>>;

/// Where a filter's new arrays come from, and how large one filter may become (as its
/// `memory_usage` counts it: arrays and their bookkeeping).
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    /// The source of zero-filled arrays.
    pub zeroed: Zeroed,
    /// The most bytes one filter may ever get on this machine (its physical memory): beyond
    /// it a filter is [`Error::OutOfMemory`], instead of being granted by overcommit and then
    /// faulting the server to death as its bits are set.
    pub available: u64,
    /// The most bytes the operator lets one filter hold: beyond it a filter is
    /// [`Error::OverLimit`].
    pub limit: u64,
}

/// Arrays written eagerly, with no bound but what allocation refuses: for tests and tools.
pub const EAGER: Memory = Memory {
    zeroed: eager_zeroed,
    available: u64::MAX,
    limit: u64::MAX,
};

impl Memory {
    /// Whether a filter may hold `filter_bytes` in all.
    pub fn check(&self, filter_bytes: u64) -> Result<(), Error> {
        if filter_bytes > self.limit {
            Err(Error::OverLimit)
        } else if filter_bytes > self.available {
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
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(len).ok()?;
    bytes.resize(len, 0);
    Some(bytes)
}

/// A copy of `bytes`, or `OutOfMemory` instead of aborting the server.
pub fn try_copy(bytes: &[u8]) -> Result<Vec<u8>, Error> {
    let mut copy = Vec::new();
    copy.try_reserve_exact(bytes.len())
        .map_err(|_| Error::OutOfMemory)?;
    copy.extend_from_slice(bytes);
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
        let refusing = Memory {
            zeroed: |_| None,
            ..EAGER
        };
        assert_eq!(refusing.array(8), Err(Error::OutOfMemory));
        assert_eq!(EAGER.array(8), Ok(vec![0; 8]));
    }
}
