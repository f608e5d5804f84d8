//! What the commands' unit tests share.

/// A command line's arguments, split on spaces.
pub fn words(line: &str) -> Vec<&[u8]> {
    line.split(' ').map(str::as_bytes).collect()
}

/// Asserts that `result` is the error reply `text`, naming the caller's line when it is not.
#[track_caller]
pub fn assert_refused<T: std::fmt::Debug + PartialEq>(
    result: Result<T, super::errors::Failure>,
    text: &'static std::ffi::CStr,
) {
    assert_eq!(result, Err(super::errors::Failure::Message(text)));
}

/// Asserts that `parse` reads none of `texts`, naming the text it read.
#[track_caller]
pub fn assert_reads_none<T: std::fmt::Debug + PartialEq>(
    parse: impl Fn(&[u8]) -> Option<T>,
    texts: &[&[u8]],
) {
    for text in texts {
        let shown = String::from_utf8_lossy(text);
        assert_eq!(parse(text), None, "{shown:?}");
    }
}
