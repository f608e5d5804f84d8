//! A SCANDUMP stream as one fuzz input: the header chunk, then the data chunks exactly as
//! SCANDUMP returned them and LOADCHUNK takes them back — `(iterator, data)` pairs.
//!
//! Format: the header's length (u32, little-endian) and bytes; then, to the end of the input,
//! per chunk its iterator (i64, little-endian), its length (u32, little-endian) and its bytes.
//! A chunk cut short by the end of the input is kept with the bytes there are.

/// A decoded stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream<'a> {
    pub header: &'a [u8],
    pub chunks: Vec<(i64, &'a [u8])>,
}

/// The stream in a fuzz input; `None` when it is too short to hold a header length.
pub fn parse(data: &[u8]) -> Option<Stream<'_>> {
    let (len, mut rest) = data.split_first_chunk::<4>()?;
    let (header, tail) = rest.split_at(rest.len().min(u32::from_le_bytes(*len) as usize));
    rest = tail;
    let mut chunks = Vec::new();
    while let Some((iter, tail)) = rest.split_first_chunk::<8>() {
        let Some((len, tail)) = tail.split_first_chunk::<4>() else {
            break;
        };
        let (chunk, tail) = tail.split_at(tail.len().min(u32::from_le_bytes(*len) as usize));
        chunks.push((i64::from_le_bytes(*iter), chunk));
        rest = tail;
    }
    Some(Stream { header, chunks })
}

/// The input that [`parse`] reads as `header` and `chunks`.
pub fn encode(header: &[u8], chunks: &[(i64, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(header);
    for (iter, chunk) in chunks {
        out.extend_from_slice(&iter.to_le_bytes());
        out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_tolerates_a_short_tail() {
        let chunks: &[(i64, &[u8])] = &[(9, b"12345678"), (-1, b""), (i64::MAX, b"xy")];
        let input = encode(b"head", chunks);
        assert_eq!(
            parse(&input),
            Some(Stream {
                header: b"head",
                chunks: chunks.to_vec()
            })
        );
        let cut = parse(&input[..input.len() - 1]).unwrap();
        assert_eq!(cut.chunks.last(), Some(&(i64::MAX, &b"x"[..])));
        assert_eq!(parse(&input[..3]), None);
    }
}
