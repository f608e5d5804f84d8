//! LZF decompression, step for step as liblzf's `lzf_decompress` (`lzf_d.c`, with
//! `CHECK_INPUT`), which Redis uses for compressed RDB strings.

/// Decompresses `input` into exactly `len` bytes; `None` where liblzf returns 0 (a literal or a
/// back reference running past either end, or a reference before the start) or the output is
/// not `len` bytes long, as Redis refuses it (`Invalid LZF compressed string`).
pub fn decompress(input: &[u8], len: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    out.try_reserve_exact(len).ok()?;
    let mut ip = 0;
    while ip < input.len() {
        let ctrl = usize::from(input[ip]);
        ip += 1;
        if ctrl < 32 {
            // A literal run of ctrl + 1 bytes.
            let run = ctrl + 1;
            if out.len() + run > len {
                return None; // E2BIG
            }
            out.extend_from_slice(input.get(ip..ip + run)?); // EINVAL
            ip += run;
        } else {
            let mut run = ctrl >> 5;
            let mut back = ((ctrl & 0x1f) << 8) + 1;
            if ip >= input.len() {
                return None;
            }
            if run == 7 {
                run += usize::from(input[ip]);
                ip += 1;
                if ip >= input.len() {
                    return None;
                }
            }
            back += usize::from(input[ip]);
            ip += 1;
            if out.len() + run + 2 > len {
                return None; // E2BIG
            }
            let start = out.len().checked_sub(back)?; // EINVAL: before the output
            for i in 0..run + 2 {
                let byte = out[start + i];
                out.push(byte);
            }
        }
    }
    (out.len() == len).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::decompress;

    #[test]
    fn literals_and_overlapping_references() {
        // "abc", then a 7-byte copy from 3 back (overlapping itself): "abcabcabca".
        assert_eq!(
            decompress(&[2, b'a', b'b', b'c', 5 << 5, 2], 10).as_deref(),
            Some(&b"abcabcabca"[..])
        );
        // A long copy: run 7 + 3 extra = 10, 12 bytes of zeros from one literal zero.
        assert_eq!(decompress(&[0, 0, 7 << 5, 3, 0], 13), Some(vec![0; 13]));
    }

    #[test]
    fn malformed_input_is_refused() {
        for (input, len) in [
            (&[2, b'a', b'b'][..], 3),  // literal past the input
            (&[0, b'a', 1 << 5, 5], 4), // reference before the output
            (&[0, b'a', 1 << 5], 4),    // reference without its offset byte
            (&[0, b'a'], 2),            // shorter than declared
            (&[1, b'a', b'b'], 1),      // longer than declared
        ] {
            assert_eq!(decompress(input, len), None, "{input:?}");
        }
    }
}
