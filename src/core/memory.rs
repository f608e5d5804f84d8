//! How the core gets memory: every allocation a user can cause is fallible, and the bytes of
//! new arrays come from the caller, who knows the server's allocator.

use super::Error;

/// Supplies the zero-filled bytes of a new array, or `None` when that much memory cannot be
/// had. It is a parameter, not a global: the server glue passes one that maps fresh, lazily
/// zeroed pages and refuses sizes beyond the machine's memory; [`eager_zeroed`] serves where
/// there is no server.
pub type Zeroed = fn(usize) -> Option<Vec<u8>>;

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
