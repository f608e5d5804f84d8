//! An item's hash as the Cuckoo filter uses it (RedisBloom's `LookupParams`, `src/cuckoo.c`):
//! computed once per command, then used for every sub-filter, so no command hashes an item
//! twice.

use crate::core::hash::murmur64a;

/// The odd constant of the alternate bucket (`getAltHash`): `index XOR fp × 0x5BD1E995`.
const ALT_MULTIPLIER: u64 = 0x5bd1_e995;

/// An item's hash, computed once per command and used for every sub-filter: RedisBloom's
/// `LookupParams` (`getLookupParams`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ItemHash {
    /// MurmurHash64A of the item with seed 0; its primary bucket in every sub-filter is this
    /// modulo the sub-filter's bucket count.
    pub(super) h1: u64,
    /// The alternate bucket's hash: `h1 XOR fp × 0x5BD1E995`, on all 64 bits.
    pub(super) h2: u64,
    /// `h1 mod 255 + 1`: never 0, which marks an empty slot.
    pub(super) fp: u8,
}

impl ItemHash {
    /// Hashes `item` as RedisBloom's `CUCKOO_GEN_HASH` does (MurmurHash64A, seed 0).
    pub fn of(item: &[u8]) -> ItemHash {
        ItemHash::from_hash(murmur64a(item, 0))
    }

    /// The fingerprint and both bucket hashes of a 64-bit item hash.
    pub fn from_hash(hash: u64) -> ItemHash {
        // hash % 255 is at most 254, so the fingerprint is 1..=255.
        let fp = (hash % 255 + 1) as u8;
        ItemHash {
            h1: hash,
            h2: alt_index(fp, hash),
            fp,
        }
    }

    /// The item's 64-bit hash (its primary bucket hash).
    pub fn hash(&self) -> u64 {
        self.h1
    }

    /// The alternate bucket hash.
    pub fn alt_hash(&self) -> u64 {
        self.h2
    }

    /// The one-byte fingerprint stored for the item.
    pub fn fingerprint(&self) -> u8 {
        self.fp
    }
}

/// The alternate bucket of a fingerprint at `index` (`getAltHash`), before reduction modulo
/// the bucket count. The product is below 2^40; the XOR keeps every bit of `index`.
pub(super) fn alt_index(fp: u8, index: u64) -> u64 {
    index ^ u64::from(fp).wrapping_mul(ALT_MULTIPLIER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_vectors_of_the_spec() {
        // RedisBloom's CUCKOO_GEN_HASH (MurmurHash64A, seed 0) of a few items.
        for (item, hash) in [
            (&b""[..], 0u64),
            (b"a", 0x0717_17d2_d36b_6b11),
            (b"foo", 0xcdde_3835_8fd2_5b01),
            (b"item1", 0x7930_a108_c52a_9032),
            (b"123456789", 0x4977_4902_5167_4330),
        ] {
            let h = ItemHash::of(item);
            assert_eq!(h.hash(), hash, "{item:?}");
            assert_eq!(u64::from(h.fingerprint()), hash % 255 + 1);
            assert_eq!(
                h.alt_hash(),
                hash ^ (u64::from(h.fingerprint()) * 0x5bd1_e995)
            );
        }
        // The empty item: fingerprint 1, bucket 0.
        assert_eq!(ItemHash::of(b"").fingerprint(), 1);
        assert_eq!(ItemHash::of(b"item1").fingerprint(), 7);
    }

    #[test]
    fn fingerprint_is_never_zero() {
        for hash in [0, 254, 255, 256, u64::MAX, u64::MAX - 1, 255 * 1000 - 1] {
            let fp = ItemHash::from_hash(hash).fingerprint();
            assert_eq!(u64::from(fp), hash % 255 + 1);
            assert_ne!(fp, 0);
        }
    }
}
