//! What the commands' unit tests share.

/// A command line's arguments, split on spaces.
pub fn words(line: &str) -> Vec<&[u8]> {
    line.split(' ').map(str::as_bytes).collect()
}
