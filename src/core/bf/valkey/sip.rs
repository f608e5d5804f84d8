//! SipHash-1-3 (one compression round, three finalisation rounds), as Rust's `Hash` of a byte
//! slice feeds it in the `bloomfilter` crate (3.x, `siphasher`'s `SipHasher13`): the slice's
//! length as a little-endian `u64`, then its bytes.

/// The hash of `item` under the key `(k0, k1)`.
pub fn hash_item(k0: u64, k1: u64, item: &[u8]) -> u64 {
    let mut state = State::new(k0, k1);
    let length = (item.len() as u64).to_le_bytes();
    // The prefix is one whole word; the item follows it.
    state.word(u64::from_le_bytes(length));
    let (words, tail) = item.as_chunks::<8>();
    for word in words {
        state.word(u64::from_le_bytes(*word));
    }
    let mut last = [0u8; 8];
    if let Some(start) = last.get_mut(..tail.len()) {
        start.copy_from_slice(tail);
    }
    let total = 8u64.wrapping_add(item.len() as u64);
    state.finish(u64::from_le_bytes(last) | (total << 56))
}

struct State {
    v0: u64,
    v1: u64,
    v2: u64,
    v3: u64,
}

impl State {
    fn new(k0: u64, k1: u64) -> State {
        State {
            v0: k0 ^ 0x736f_6d65_7073_6575,
            v1: k1 ^ 0x646f_7261_6e64_6f6d,
            v2: k0 ^ 0x6c79_6765_6e65_7261,
            v3: k1 ^ 0x7465_6462_7974_6573,
        }
    }

    fn round(&mut self) {
        self.v0 = self.v0.wrapping_add(self.v1);
        self.v1 = self.v1.rotate_left(13) ^ self.v0;
        self.v0 = self.v0.rotate_left(32);
        self.v2 = self.v2.wrapping_add(self.v3);
        self.v3 = self.v3.rotate_left(16) ^ self.v2;
        self.v0 = self.v0.wrapping_add(self.v3);
        self.v3 = self.v3.rotate_left(21) ^ self.v0;
        self.v2 = self.v2.wrapping_add(self.v1);
        self.v1 = self.v1.rotate_left(17) ^ self.v2;
        self.v2 = self.v2.rotate_left(32);
    }

    fn word(&mut self, m: u64) {
        self.v3 ^= m;
        self.round();
        self.v0 ^= m;
    }

    fn finish(mut self, last: u64) -> u64 {
        self.word(last);
        self.v2 ^= 0xff;
        self.round();
        self.round();
        self.round();
        self.v0 ^ self.v1 ^ self.v2 ^ self.v3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SipHash-1-3 of the reference key (bytes 0..16) over messages 0, 0 1, … as the
    /// `siphasher` crate's test vectors give them, through a message that is a length prefix
    /// and an item: checked here on the raw function with the prefix written out.
    fn raw(k0: u64, k1: u64, message: &[u8]) -> u64 {
        let mut state = State::new(k0, k1);
        let (words, tail) = message.as_chunks::<8>();
        for word in words {
            state.word(u64::from_le_bytes(*word));
        }
        let mut last = [0u8; 8];
        last[..tail.len()].copy_from_slice(tail);
        state.finish(u64::from_le_bytes(last) | ((message.len() as u64) << 56))
    }

    #[test]
    fn an_item_is_hashed_after_its_length() {
        for len in [0usize, 1, 7, 8, 9, 15, 16, 17, 100] {
            let item: Vec<u8> = (0..len as u8).collect();
            let mut message = (len as u64).to_le_bytes().to_vec();
            message.extend_from_slice(&item);
            assert_eq!(hash_item(3, 5, &item), raw(3, 5, &message), "{len}");
        }
    }

    #[test]
    fn the_reference_vectors_hold() {
        // siphasher's SipHash-1-3 vectors: key 00..0f, messages of 0 and 1 bytes.
        let k0 = u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7]);
        let k1 = u64::from_le_bytes([8, 9, 10, 11, 12, 13, 14, 15]);
        assert_eq!(raw(k0, k1, &[]), 0xabac_0158_050f_c4dc);
        assert_eq!(raw(k0, k1, &[0]), 0xc9f4_9bf3_7d57_ca93);
    }
}
