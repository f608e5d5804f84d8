//! Item hashing, bit-exact with RedisBloom (`deps/bloom/bloom.c`, `deps/murmur2`).
//!
//! An item is hashed once into a pair `(a, b)`; probe `i` of every sub-filter is then
//! `(a + i·b) mod m` (Kirsch–Mitzenmacher double hashing), so one hash serves the whole chain.

/// The two halves of an item's hash, reused for every probe of every sub-filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashPair {
    /// First hash: the start of the probe sequence.
    pub a: u64,
    /// Second hash, seeded with the first: the probe stride.
    pub b: u64,
}

/// The hash function family a filter was created with (RDB/SCANDUMP option `FORCE64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashKind {
    /// Two MurmurHash64A passes: every filter made since RedisBloom 1.1.1.
    Murmur64,
    /// Two 32-bit MurmurHash2 passes: filters made before that, still loadable from old RDBs.
    Murmur32,
    /// One xxh3-128 pass: the fast (blocked) layout, `a` choosing the block, `b` the bits.
    Xxh3,
}

/// The seed of the first MurmurHash64A pass (RedisBloom reuses the algorithm's multiplier).
const MURMUR64_SEED: u64 = 0xc6a4_a793_5bd1_e995;
/// The seed of the first 32-bit MurmurHash2 pass in pre-1.1.1 filters.
const MURMUR32_SEED: u32 = 0x9747_b28c;

impl HashPair {
    /// Hashes `item` the way a filter of kind `kind` does.
    pub fn of(item: &[u8], kind: HashKind) -> Self {
        match kind {
            HashKind::Murmur64 => {
                let a = murmur64a(item, MURMUR64_SEED);
                HashPair {
                    a,
                    b: murmur64a(item, a),
                }
            }
            HashKind::Murmur32 => {
                let a = murmur2_32(item, MURMUR32_SEED);
                HashPair {
                    a: u64::from(a),
                    b: u64::from(murmur2_32(item, a)),
                }
            }
            HashKind::Xxh3 => {
                let h = xxhash_rust::xxh3::xxh3_128(item);
                HashPair {
                    a: (h >> 64) as u64,
                    b: h as u64,
                }
            }
        }
    }
}

/// Austin Appleby's MurmurHash64A (64-bit platforms), little-endian words.
pub fn murmur64a(data: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let mut words = data.chunks_exact(8);
    for word in &mut words {
        let mut k = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        // The reference falls through `case 7 … case 1`: byte j lands at bit 8·j.
        for (j, &byte) in tail.iter().enumerate() {
            h ^= u64::from(byte) << (8 * j);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// Austin Appleby's 32-bit MurmurHash2, little-endian words.
pub fn murmur2_32(data: &[u8], seed: u32) -> u32 {
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    // The reference takes the length as a C `int`; items are far below 2^31 bytes.
    let mut h = seed ^ (data.len() as u32);
    let mut words = data.chunks_exact(4);
    for word in &mut words {
        let mut k = u32::from_le_bytes(word.try_into().unwrap_or([0; 4]));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let tail = words.remainder();
    if !tail.is_empty() {
        for (j, &byte) in tail.iter().enumerate() {
            h ^= u32::from(byte) << (8 * j);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item1_matches_the_redisbloom_scandump_example() {
        // RedisBloom's BF.SCANDUMP documentation example, which adds `item1`.
        let h = HashPair::of(b"item1", HashKind::Murmur64);
        assert_eq!(h.a, 0xa053_790e_072b_2e8b);
        assert_eq!(h.b, 0x707e_5d60_182e_b075);
    }

    #[test]
    fn murmur64a_known_values() {
        // Empty input with seed 0 mixes to 0; any byte changes the result.
        assert_eq!(murmur64a(b"", 0), 0);
        assert_ne!(murmur64a(b"a", 0), murmur64a(b"b", 0));
        // Every tail length is exercised and distinct.
        let outs: Vec<u64> = (0..17).map(|n| murmur64a(&[7u8; 16][..n], 1)).collect();
        for (i, x) in outs.iter().enumerate() {
            assert!(!outs[..i].contains(x));
        }
    }

    #[test]
    fn murmur2_reference_vectors() {
        // Worked by hand from the reference: h = seed ^ 0, then the final mix.
        assert_eq!(murmur2_32(b"", 0), 0);
        assert_eq!(murmur2_32(b"", 1), 0x5bd1_5e36);
    }
}
