//! Item hashing, bit-exact with RedisBloom (`deps/bloom/bloom.c`, `deps/murmur2`).
//!
//! An item is hashed once into a pair `(a, b)`; probe `i` of every sub-filter is then
//! `(a + i·b) mod m` (Kirsch–Mitzenmacher double hashing), so one hash serves the whole chain.

/// The two halves of an item's hash, reused for every probe of every sub-filter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
                let words = Words::of(item);
                let a = murmur64a_of(&words, MURMUR64_SEED);
                HashPair {
                    a,
                    b: murmur64a_of(&words, a),
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
    murmur64a_of(&Words::of(data), seed)
}

/// An item split as MurmurHash64A reads it: whole 64-bit words, then the tail as one
/// little-endian integer. A Bloom item is hashed twice over the same words (the second pass
/// seeded with the first's result), so the split is made once.
struct Words<'a> {
    words: &'a [[u8; 8]],
    /// The 1–7 trailing bytes, byte j at bits 8·j; `None` when there are none.
    tail: Option<u64>,
    len: u64,
}

impl<'a> Words<'a> {
    fn of(data: &'a [u8]) -> Words<'a> {
        let (words, tail) = data.as_chunks::<8>();
        Words {
            words,
            tail: (!tail.is_empty()).then(|| tail_le(tail)),
            len: data.len() as u64,
        }
    }
}

const M64: u64 = 0xc6a4_a793_5bd1_e995;
const R64: u32 = 47;

#[inline]
fn murmur64a_of(data: &Words, seed: u64) -> u64 {
    let mut h = seed ^ data.len.wrapping_mul(M64);
    for word in data.words {
        let mut k = u64::from_le_bytes(*word);
        k = k.wrapping_mul(M64);
        k ^= k >> R64;
        k = k.wrapping_mul(M64);
        h ^= k;
        h = h.wrapping_mul(M64);
    }
    // The reference falls through `case 7 … case 1`: byte j lands at bit 8·j.
    if let Some(tail) = data.tail {
        h ^= tail;
        h = h.wrapping_mul(M64);
    }
    h ^= h >> R64;
    h = h.wrapping_mul(M64);
    h ^= h >> R64;
    h
}

/// The bytes of a tail shorter than a word as a little-endian integer, read with two
/// overlapping loads (or three single bytes) instead of a loop: the overlapping bytes land at
/// the same bits from both reads, so OR-ing them is exact.
#[inline]
fn tail_le(tail: &[u8]) -> u64 {
    let n = tail.len();
    if let (Some(first), Some(last)) = (tail.first_chunk::<4>(), tail.last_chunk::<4>()) {
        u64::from(u32::from_le_bytes(*first))
            | u64::from(u32::from_le_bytes(*last)) << (8 * (n - 4))
    } else {
        let byte = |j: usize| u64::from(tail.get(j).copied().unwrap_or(0)) << (8 * j);
        match n {
            0 => 0,
            _ => byte(0) | byte(n / 2) | byte(n - 1),
        }
    }
}

/// Austin Appleby's 32-bit MurmurHash2, little-endian words.
pub fn murmur2_32(data: &[u8], seed: u32) -> u32 {
    let [hash] = murmur2_32_seeds(data, [seed]);
    hash
}

/// [`murmur2_32`] of `data` under each of `seeds`, in one pass over the item. A word's mix
/// does not depend on the seed, only the running hash does, so each word is read and mixed
/// once for all the seeds; the running hashes then advance side by side, as independent
/// multiply chains the processor overlaps, or as the lanes of a vector register (`lanes`).
/// Always inlined: a vector kernel is this function compiled for its unit, which a call
/// would leave to the baseline's.
#[inline(always)]
pub fn murmur2_32_seeds<const N: usize>(data: &[u8], seeds: [u32; N]) -> [u32; N] {
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    // The reference takes the length as a C `int`; items are far below 2^31 bytes.
    let len = data.len() as u32;
    let mut hashes = seeds.map(|seed| seed ^ len);
    let (words, tail) = data.as_chunks::<4>();
    for word in words {
        let mut k = u32::from_le_bytes(*word);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        for h in &mut hashes {
            *h = h.wrapping_mul(M) ^ k;
        }
    }
    if !tail.is_empty() {
        let tail = tail_le(tail) as u32;
        for h in &mut hashes {
            *h = (*h ^ tail).wrapping_mul(M);
        }
    }
    hashes.map(|mut h| {
        h ^= h >> 13;
        h = h.wrapping_mul(M);
        h ^ (h >> 15)
    })
}

/// SplitMix64's increment, 2⁶⁴/φ made odd (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", 2014).
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finaliser (the same paper, with Vigna's constants): every input bit reaches
/// every output bit. The fast layout's further probe words and Top-K's decay draws.
#[inline]
pub fn splitmix64_mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// MurmurHash3's 64-bit finaliser (`fmix64`): a window filter's slot indexes.
#[inline]
pub fn murmur3_fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The finalisers' published values: SplitMix64's first outputs from seed 0 (each the
    /// finaliser of a multiple of the increment), and `fmix64` of 1.
    #[test]
    fn finalisers_give_their_published_values() {
        assert_eq!(splitmix64_mix(GOLDEN_GAMMA), 0xe220_a839_7b1d_cdaf);
        assert_eq!(
            splitmix64_mix(GOLDEN_GAMMA.wrapping_mul(2)),
            0x6e78_9e6a_a1b9_65f4
        );
        assert_eq!(murmur3_fmix64(0), 0);
        assert_eq!(murmur3_fmix64(1), 0xb456_bcfc_34c2_cb2c);
    }

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

    /// 40 varied bytes: every prefix of them is an item of another length and tail.
    fn sample_bytes() -> Vec<u8> {
        (0..40u8)
            .map(|i| i.wrapping_mul(97).wrapping_add(13))
            .collect()
    }

    /// The reference's byte-by-byte tail, to check the word-at-a-time one against.
    fn murmur64a_bytewise(data: &[u8], seed: u64) -> u64 {
        let mut h = seed ^ (data.len() as u64).wrapping_mul(M64);
        let mut words = data.chunks_exact(8);
        for word in &mut words {
            let mut k = u64::from_le_bytes(word.try_into().unwrap());
            k = k.wrapping_mul(M64);
            k ^= k >> R64;
            k = k.wrapping_mul(M64);
            h ^= k;
            h = h.wrapping_mul(M64);
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            for (j, &byte) in tail.iter().enumerate() {
                h ^= u64::from(byte) << (8 * j);
            }
            h = h.wrapping_mul(M64);
        }
        h ^= h >> R64;
        h = h.wrapping_mul(M64);
        h ^= h >> R64;
        h
    }

    #[test]
    fn tails_are_read_as_the_reference_reads_them() {
        let data = sample_bytes();
        for n in 0..data.len() {
            let item = &data[..n];
            assert_eq!(
                murmur64a(item, 7),
                murmur64a_bytewise(item, 7),
                "length {n}"
            );
            let expected: u64 = item[n - n % 8..]
                .iter()
                .enumerate()
                .map(|(j, &b)| u64::from(b) << (8 * j))
                .sum();
            assert_eq!(tail_le(&item[n - n % 8..]), expected, "length {n}");
            let pair = HashPair::of(item, HashKind::Murmur64);
            let a = murmur64a_bytewise(item, MURMUR64_SEED);
            assert_eq!(
                pair,
                HashPair {
                    a,
                    b: murmur64a_bytewise(item, a)
                }
            );
        }
    }

    #[test]
    fn murmur2_reference_vectors() {
        // Worked by hand from the reference: h = seed ^ 0, then the final mix.
        assert_eq!(murmur2_32(b"", 0), 0);
        assert_eq!(murmur2_32(b"", 1), 0x5bd1_5e36);
    }

    /// The reference's loop, one seed at a time, byte by byte in the tail.
    pub(crate) fn murmur2_32_bytewise(data: &[u8], seed: u32) -> u32 {
        const M: u32 = 0x5bd1_e995;
        let mut h = seed ^ data.len() as u32;
        let mut words = data.chunks_exact(4);
        for word in &mut words {
            let mut k = u32::from_le_bytes(word.try_into().unwrap());
            k = k.wrapping_mul(M);
            k ^= k >> 24;
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
        h ^ (h >> 15)
    }

    #[test]
    fn murmur2_matches_the_reference_loop() {
        let data = sample_bytes();
        for n in 0..data.len() {
            for seed in [0, 7, 1919, u32::MAX - 3] {
                let item = &data[..n];
                assert_eq!(murmur2_32(item, seed), murmur2_32_bytewise(item, seed));
            }
        }
    }
}
