//! Golden runs: RedisBloom 2.8.2 (Redis 7.0.15, module loaded with `CF_MAX_EXPANSIONS
//! 100000` so that no command hits the per-command expansion limit, which belongs to the
//! command layer) ran these commands, and the filter must give the same replies, `CF.DEBUG`
//! and SCANDUMP bytes. 2.8.2's algorithm is 8.x's for filters this small: they differ only in
//! integer widths and guards that need billions of buckets or 65535 sub-filters.

use super::{params, scandump_walk};
use crate::core::cf::encoding::decode_header;
use crate::core::cf::{CuckooFilter, ItemHash, Params};
use crate::core::testing::{fnv, unhex, Rng, FNV_OFFSET};
use crate::core::{Error, EAGER};

/// One command of a captured run and its reply, coded as the capture script coded them:
/// `1`/`0` for integers and booleans, `F` for `Filter is full`, `G` for any other error, the
/// number and a comma for CF.COUNT, `K` for CF.COMPACT.
fn apply(f: &mut CuckooFilter, command: &str, item: &[u8]) -> String {
    let h = ItemHash::of(item);
    let code = |r: Result<bool, Error>| match r {
        Ok(b) => u8::from(b).to_string(),
        Err(Error::Full) => "F".to_string(),
        Err(_) => "G".to_string(),
    };
    match command {
        "ADD" => code(f.insert(&h, &EAGER).map(|()| true)),
        "ADDNX" => code(f.insert_if_absent(&h, &EAGER)),
        "DEL" => code(Ok(f.delete(&h))),
        "COUNT" => format!("{},", f.count(&h)),
        "EXISTS" => code(Ok(f.contains(&h))),
        "COMPACT" => {
            f.compact();
            "K".to_string()
        }
        _ => unreachable!("{command}"),
    }
}

/// The random run `seed` of the capture script: CF.DEBUG, FNV-1a of the coded replies, and
/// FNV-1a of the SCANDUMP walk (each reply's cursor as 8 little-endian bytes, then its data).
fn random_run(seed: u64) -> (String, u64, u64) {
    let mut g = Rng::new(seed);
    let bucket_size = 1 + g.below(8) as u16;
    let max_iterations = 1 + g.below(50) as u16;
    let expansion = g.below(5) as u16;
    let capacity = 2 * u64::from(bucket_size) + g.below(40);
    let p = params(capacity, bucket_size, max_iterations, expansion);
    let f = CuckooFilter::new(p, &EAGER).unwrap();
    run_commands(f, &mut g)
}

/// The random run `seed` of the second capture script: a filter made by a CF.LOADCHUNK
/// header with an expansion of 3, 5, 6 or 7, which RedisBloom takes as it is, so that every
/// sub-filter after the first has a bucket count that is not a power of two.
fn odd_expansion_run(seed: u64) -> (String, u64, u64) {
    let mut g = Rng::new(seed);
    let bucket_size = 1 + g.below(8) as u16;
    let max_iterations = 1 + g.below(50) as u16;
    let expansion = [3u16, 5, 6, 7][g.below(4) as usize];
    let num_buckets = 1u64 << g.below(4);
    let mut header = Vec::new();
    for v in [0, num_buckets, 0, 1] {
        header.extend_from_slice(&u64::to_le_bytes(v));
    }
    for v in [bucket_size, max_iterations, expansion] {
        header.extend_from_slice(&v.to_le_bytes());
    }
    let f = decode_header(&header, 255, &EAGER).unwrap();
    run_commands(f, &mut g)
}

/// The rest of a captured run: an item pool of 10..100 names `k<n>` and 100..400 commands,
/// each ADD (45%), ADDNX (10%), DEL (20%), COUNT (10%), EXISTS (10%) or COMPACT (5%) of a
/// random pool item; then CF.DEBUG and a SCANDUMP walk.
fn run_commands(mut f: CuckooFilter, g: &mut Rng) -> (String, u64, u64) {
    let pool = 10 + g.below(90);
    let ops = 100 + g.below(300);
    let mut replies = String::new();
    for _ in 0..ops {
        let op = g.below(100);
        let item = format!("k{}", g.below(pool));
        let command = match op {
            0..45 => "ADD",
            45..55 => "ADDNX",
            55..75 => "DEL",
            75..85 => "COUNT",
            85..95 => "EXISTS",
            _ => "COMPACT",
        };
        replies += &apply(&mut f, command, item.as_bytes());
    }
    let mut dump = FNV_OFFSET;
    for (cursor, data) in scandump_walk(&f) {
        dump = fnv(fnv(dump, &cursor.to_le_bytes()), &data);
    }
    (f.debug_line(), fnv(FNV_OFFSET, replies.as_bytes()), dump)
}

/// `(seed, CF.DEBUG, replies FNV, SCANDUMP FNV)` of random runs on RedisBloom 2.8.2. Each run
/// draws, from `Rng::new(seed)`: bucket size 1..=8, max iterations 1..=50, expansion 0..=4 and
/// capacity `2 × bucket size + 0..40` for `CF.RESERVE`, then the commands of
/// [`run_commands`]. 2000 seeds matched when the table was captured; the first 64 are kept.
#[rustfmt::skip]
const RANDOM_RUNS: &[(u64, &str, u64, u64)] = &[
    (0, "bktsize:6 buckets:8 items:48 deletes:1 filters:1 max_iterations:25 expansion:0", 0x8287631f0eb0df3b, 0xf1cb36c692dbc794),
    (1, "bktsize:3 buckets:16 items:134 deletes:2 filters:3 max_iterations:21 expansion:2", 0x3e088f70851b8434, 0xa00f18b420bcd851),
    (2, "bktsize:8 buckets:2 items:47 deletes:2 filters:3 max_iterations:34 expansion:2", 0x2c39a166b687a914, 0xc7c104dd301dd798),
    (3, "bktsize:5 buckets:4 items:59 deletes:4 filters:2 max_iterations:50 expansion:4", 0xfb013340e09d0d2b, 0xe21bdcc9412bd212),
    (4, "bktsize:2 buckets:8 items:110 deletes:1 filters:8 max_iterations:19 expansion:1", 0x58e2d2d5f61c0cbc, 0xe76ccbc685e80416),
    (5, "bktsize:7 buckets:8 items:91 deletes:2 filters:2 max_iterations:23 expansion:2", 0x450059d30be97beb, 0xecca96827794f11f),
    (6, "bktsize:3 buckets:16 items:57 deletes:4 filters:2 max_iterations:8 expansion:2", 0x42cf092018158963, 0x9047b04073e5cb77),
    (7, "bktsize:2 buckets:8 items:16 deletes:0 filters:1 max_iterations:4 expansion:0", 0x09795df5bca2d450, 0x4bc9eb67fc7d7bc2),
    (8, "bktsize:5 buckets:8 items:135 deletes:1 filters:3 max_iterations:27 expansion:2", 0xb77bf0c8f627a5dd, 0xef3acc6ff53eb5e0),
    (9, "bktsize:4 buckets:8 items:49 deletes:2 filters:2 max_iterations:37 expansion:4", 0x283801a678490ea5, 0xd3acfbbae9cd0a06),
    (10, "bktsize:7 buckets:8 items:148 deletes:3 filters:2 max_iterations:26 expansion:4", 0xc126ab0ea6b149ab, 0x8c9a47a5c961093d),
    (11, "bktsize:6 buckets:4 items:116 deletes:1 filters:3 max_iterations:28 expansion:2", 0xaaf3b6092222f744, 0x310d7eca3727625c),
    (12, "bktsize:4 buckets:16 items:53 deletes:2 filters:1 max_iterations:45 expansion:0", 0x91274de7ccb5491f, 0xb6867866196f4817),
    (13, "bktsize:5 buckets:8 items:55 deletes:2 filters:2 max_iterations:47 expansion:1", 0x180a507b46861b35, 0xe701afe30350f02d),
    (14, "bktsize:2 buckets:32 items:65 deletes:2 filters:2 max_iterations:8 expansion:1", 0x044237f3672f6b67, 0x2a0402bce76058c6),
    (15, "bktsize:3 buckets:8 items:22 deletes:0 filters:1 max_iterations:12 expansion:0", 0xa04974156dfd2639, 0xf480b26422aada4a),
    (16, "bktsize:8 buckets:4 items:84 deletes:4 filters:2 max_iterations:28 expansion:4", 0x7a534579ae818a45, 0xa39f1b323ddd9cb1),
    (17, "bktsize:1 buckets:32 items:23 deletes:3 filters:1 max_iterations:30 expansion:0", 0x72597529c173d333, 0x547ebf7e5f2d1556),
    (18, "bktsize:5 buckets:16 items:81 deletes:4 filters:2 max_iterations:41 expansion:2", 0xc1d1d4678d77cbd6, 0x851f4152e2357012),
    (19, "bktsize:8 buckets:4 items:32 deletes:7 filters:1 max_iterations:3 expansion:0", 0x9f1b0fcdf3d0c254, 0xe7990156193182fe),
    (20, "bktsize:3 buckets:16 items:48 deletes:4 filters:1 max_iterations:32 expansion:0", 0xbef362e6c282f008, 0x4ad02282b4dc97bb),
    (21, "bktsize:6 buckets:8 items:47 deletes:1 filters:1 max_iterations:42 expansion:0", 0xfcac1dcbf4cf4bb9, 0x2e3b0482883fa5b1),
    (22, "bktsize:1 buckets:4 items:114 deletes:1 filters:10 max_iterations:47 expansion:2", 0xfb85f6305fd25ce8, 0xa5bcce87f9cdec56),
    (23, "bktsize:4 buckets:8 items:91 deletes:0 filters:2 max_iterations:31 expansion:4", 0xfc97aa963c22e15f, 0x990c185ea81bc570),
    (24, "bktsize:2 buckets:16 items:64 deletes:4 filters:3 max_iterations:12 expansion:1", 0x053b5216e07fa481, 0x812dc3b9f5698dec),
    (25, "bktsize:7 buckets:8 items:125 deletes:4 filters:3 max_iterations:30 expansion:1", 0xcdb8b4538e6ee20b, 0xc213b47561080c01),
    (26, "bktsize:4 buckets:8 items:32 deletes:0 filters:1 max_iterations:3 expansion:0", 0xe9b61ad2189ec263, 0xee8bf177b4115780),
    (27, "bktsize:1 buckets:16 items:112 deletes:0 filters:4 max_iterations:29 expansion:4", 0x27558b5698b7a100, 0x28450fb4fc9d2a97),
    (28, "bktsize:6 buckets:8 items:48 deletes:0 filters:1 max_iterations:32 expansion:0", 0xbc9b4300dfd665f8, 0x9cbc33edb85300b1),
    (29, "bktsize:3 buckets:8 items:133 deletes:1 filters:7 max_iterations:50 expansion:1", 0x7c560e6d245a87ba, 0x1b251e5e7719bd3e),
    (30, "bktsize:7 buckets:4 items:77 deletes:0 filters:2 max_iterations:47 expansion:4", 0x76dce012b5b00715, 0xe1d8bccd6e318857),
    (31, "bktsize:6 buckets:8 items:110 deletes:1 filters:2 max_iterations:1 expansion:4", 0x614412ee8e5aa65c, 0x112f66df44eb2eb5),
    (32, "bktsize:1 buckets:16 items:47 deletes:0 filters:5 max_iterations:13 expansion:1", 0xbbb22b5be8f45428, 0xe7eefa9ea079d127),
    (33, "bktsize:8 buckets:4 items:114 deletes:1 filters:2 max_iterations:9 expansion:4", 0xb76a1b272228239c, 0xcb6fa86b0ca4dfca),
    (34, "bktsize:3 buckets:8 items:122 deletes:2 filters:3 max_iterations:12 expansion:2", 0x751e663291119b7f, 0x4f8c8be65806eadc),
    (35, "bktsize:2 buckets:16 items:24 deletes:1 filters:1 max_iterations:28 expansion:0", 0x10526b650926d34a, 0xd13c9709b60e9738),
    (36, "bktsize:8 buckets:8 items:59 deletes:1 filters:2 max_iterations:29 expansion:1", 0x049bb122aa543622, 0xdc08f9a7d482912e),
    (37, "bktsize:1 buckets:32 items:104 deletes:2 filters:4 max_iterations:31 expansion:4", 0x93d26b43192df2e5, 0xeb06ee646fc7c9ac),
    (38, "bktsize:6 buckets:8 items:49 deletes:2 filters:2 max_iterations:34 expansion:2", 0xe2f9dabc6677d7ea, 0xc7144f160bbed284),
    (39, "bktsize:7 buckets:8 items:70 deletes:1 filters:2 max_iterations:36 expansion:4", 0x6ac9881c316d91d6, 0xc1cf14ee4ff94691),
    (40, "bktsize:4 buckets:8 items:69 deletes:3 filters:2 max_iterations:1 expansion:2", 0x92b693bbaf12547e, 0x286672ba3bceb500),
    (41, "bktsize:5 buckets:8 items:40 deletes:0 filters:1 max_iterations:47 expansion:0", 0x86343c3dcb4b2312, 0x026fa01bd59efedc),
    (42, "bktsize:1 buckets:64 items:82 deletes:1 filters:3 max_iterations:2 expansion:4", 0x3f38f2487818aec4, 0xb21146acf4b5ea82),
    (43, "bktsize:4 buckets:8 items:32 deletes:0 filters:1 max_iterations:24 expansion:0", 0xdccd1446178b8669, 0x43354078f07baf6b),
    (44, "bktsize:7 buckets:8 items:92 deletes:2 filters:2 max_iterations:29 expansion:2", 0xdf6fa4c6ecfed799, 0x37586aa3cc0dc107),
    (45, "bktsize:2 buckets:32 items:51 deletes:1 filters:1 max_iterations:45 expansion:0", 0x8d7bb1481c0cb36f, 0x92107519f17e80d3),
    (46, "bktsize:5 buckets:8 items:34 deletes:4 filters:1 max_iterations:12 expansion:0", 0x6618ac9489c08612, 0xf1e1bf3d1f0973cf),
    (47, "bktsize:8 buckets:8 items:57 deletes:7 filters:1 max_iterations:44 expansion:0", 0x1ad5b5f4d9ce6ab6, 0x2590be51f2b0b85b),
    (48, "bktsize:6 buckets:8 items:69 deletes:2 filters:2 max_iterations:11 expansion:1", 0xfe593fdafe090c3a, 0xd58aa8115edfb606),
    (49, "bktsize:3 buckets:16 items:134 deletes:2 filters:2 max_iterations:46 expansion:4", 0x408895ac812bc6d2, 0xf8b0645eaafb27d4),
    (50, "bktsize:8 buckets:8 items:144 deletes:10 filters:3 max_iterations:13 expansion:1", 0xd1bb813fb7e62569, 0xc3ecc6506f4c643f),
    (51, "bktsize:5 buckets:8 items:40 deletes:0 filters:1 max_iterations:15 expansion:0", 0x04964d31ee41373d, 0x430e7bf1f516c5d7),
    (52, "bktsize:2 buckets:32 items:87 deletes:6 filters:3 max_iterations:42 expansion:1", 0xa1b2fa7d5605d02f, 0x44b4d3bf02108b1a),
    (53, "bktsize:7 buckets:8 items:78 deletes:2 filters:2 max_iterations:32 expansion:1", 0xd6f3d1e183b65712, 0x75589d5956820edb),
    (54, "bktsize:3 buckets:16 items:41 deletes:0 filters:1 max_iterations:41 expansion:0", 0x8e39a017508f3bab, 0x5bd2550783e6fb22),
    (55, "bktsize:2 buckets:32 items:72 deletes:3 filters:3 max_iterations:47 expansion:2", 0x721dd4c10fd6a94b, 0x5cacede0564954fc),
    (56, "bktsize:5 buckets:8 items:38 deletes:0 filters:1 max_iterations:14 expansion:1", 0x690e4986b647b881, 0x8271502bbd8d5101),
    (57, "bktsize:4 buckets:2 items:121 deletes:8 filters:4 max_iterations:4 expansion:4", 0x8f1d72123410feb3, 0x535a6180c9f90874),
    (58, "bktsize:7 buckets:8 items:48 deletes:1 filters:1 max_iterations:19 expansion:1", 0x735a8be7ca07e83b, 0x81af8c29b7ab4043),
    (59, "bktsize:6 buckets:4 items:24 deletes:2 filters:1 max_iterations:41 expansion:0", 0x919df07283313cef, 0xaccf1c8e71006739),
    (60, "bktsize:4 buckets:16 items:114 deletes:6 filters:2 max_iterations:26 expansion:2", 0x2c0428d26c525ecc, 0x456792f7ebf0b727),
    (61, "bktsize:5 buckets:16 items:113 deletes:2 filters:2 max_iterations:18 expansion:2", 0x177e2f3494bab1cf, 0xe261040e155e4385),
    (62, "bktsize:2 buckets:32 items:60 deletes:3 filters:3 max_iterations:1 expansion:4", 0xda5ff6813abc6037, 0x71431271cb10d21c),
    (63, "bktsize:3 buckets:16 items:60 deletes:2 filters:2 max_iterations:35 expansion:1", 0xbc2572040ccda6fb, 0x44636f2072ad8a0b),
];

/// The same for [`odd_expansion_run`]: the filter comes from `CF.LOADCHUNK key 1 <header>`
/// with numBuckets 1, 2, 4 or 8, one sub-filter, no items, and the drawn bucket size, max
/// iterations and expansion. 1000 seeds matched when captured; the first 32 are kept.
#[rustfmt::skip]
const ODD_EXPANSION_RUNS: &[(u64, &str, u64, u64)] = &[
    (0, "bktsize:6 buckets:1 items:97 deletes:1 filters:3 max_iterations:25 expansion:6", 0xe08a7fd8b4b04582, 0x3b35fe5210f9dfda),
    (1, "bktsize:3 buckets:2 items:144 deletes:2 filters:3 max_iterations:21 expansion:5", 0xbe787b6a7ac214ea, 0xfe361b37ca37de75),
    (2, "bktsize:8 buckets:8 items:48 deletes:2 filters:1 max_iterations:34 expansion:3", 0x00edfc8bc9fb5258, 0x81609f86f570451c),
    (3, "bktsize:5 buckets:8 items:61 deletes:4 filters:2 max_iterations:50 expansion:6", 0x1ededa19ba2468ba, 0xc1ccaddc5120b83b),
    (4, "bktsize:2 buckets:2 items:110 deletes:1 filters:4 max_iterations:19 expansion:7", 0xaf730c55b30bcbf5, 0x8381db836044ddd6),
    (5, "bktsize:7 buckets:4 items:91 deletes:2 filters:2 max_iterations:23 expansion:3", 0x824f37ef42b93f76, 0x5b485d36ec1310c8),
    (6, "bktsize:3 buckets:8 items:57 deletes:4 filters:2 max_iterations:8 expansion:7", 0x6a05e0076b556a0e, 0x3514cd041ff5a002),
    (7, "bktsize:2 buckets:4 items:68 deletes:2 filters:3 max_iterations:4 expansion:3", 0xdb6c9eafb008b9c0, 0x835a4f80fea38762),
    (8, "bktsize:5 buckets:4 items:141 deletes:1 filters:3 max_iterations:27 expansion:5", 0x5f49b539654a8402, 0xf42c4bbb8e91b44e),
    (9, "bktsize:4 buckets:4 items:49 deletes:2 filters:2 max_iterations:37 expansion:7", 0x283801a678490ea5, 0xbdf391d3a2ca9821),
    (10, "bktsize:7 buckets:4 items:147 deletes:2 filters:2 max_iterations:26 expansion:6", 0x17cad2b42f123f47, 0xd8a0d714452529b1),
    (11, "bktsize:6 buckets:2 items:116 deletes:1 filters:3 max_iterations:28 expansion:5", 0x850613461298ea07, 0x4cc75b2015d9c629),
    (12, "bktsize:4 buckets:4 items:120 deletes:2 filters:3 max_iterations:45 expansion:3", 0x955cd74d5ca6d1d8, 0x477e2fd1ded79bd0),
    (13, "bktsize:5 buckets:8 items:55 deletes:2 filters:2 max_iterations:47 expansion:7", 0x180a507b46861b35, 0xb44c1a4b2882dc72),
    (14, "bktsize:2 buckets:2 items:65 deletes:2 filters:3 max_iterations:8 expansion:6", 0x54c6b904f1f15a7d, 0x04f95f999dbc7a44),
    (15, "bktsize:3 buckets:2 items:61 deletes:0 filters:3 max_iterations:12 expansion:3", 0xdb12d61323530406, 0xf10641705301f5c3),
    (16, "bktsize:8 buckets:8 items:84 deletes:4 filters:2 max_iterations:28 expansion:3", 0x101ca0251a6ffdec, 0x721e71cce843af77),
    (17, "bktsize:1 buckets:1 items:64 deletes:3 filters:4 max_iterations:30 expansion:7", 0x78b0b9ac7ba7b064, 0x2fbf6d737fe660dd),
    (18, "bktsize:5 buckets:1 items:81 deletes:3 filters:4 max_iterations:41 expansion:3", 0x16d9a8afd17bf237, 0x030237ec72a85512),
    (19, "bktsize:8 buckets:1 items:104 deletes:8 filters:3 max_iterations:3 expansion:7", 0x34cc0b787c09c500, 0x75b5ac23db76a16f),
    (20, "bktsize:3 buckets:1 items:81 deletes:5 filters:3 max_iterations:32 expansion:6", 0x48c49912e4b2310b, 0x39b159066f1b184e),
    (21, "bktsize:6 buckets:2 items:125 deletes:2 filters:3 max_iterations:42 expansion:3", 0x7352144169c6d5ae, 0x63b005a6a1cb5dba),
    (22, "bktsize:1 buckets:2 items:118 deletes:1 filters:5 max_iterations:47 expansion:5", 0xd3a83de38abcac0b, 0x1d841fbcc5c815af),
    (23, "bktsize:4 buckets:4 items:91 deletes:0 filters:2 max_iterations:31 expansion:6", 0x3e5aaa0a277ab5d4, 0x3fb05de91238ff14),
    (24, "bktsize:2 buckets:1 items:66 deletes:3 filters:4 max_iterations:12 expansion:7", 0xa2e4187a860f99bc, 0x4d0774b09bdb5085),
    (25, "bktsize:7 buckets:1 items:127 deletes:4 filters:4 max_iterations:30 expansion:3", 0x2348e2d43b680429, 0x7a3f452fac5fa1b8),
    (26, "bktsize:4 buckets:4 items:76 deletes:3 filters:2 max_iterations:3 expansion:5", 0x8ff68efa8d59ca73, 0x646b6d105892113f),
    (27, "bktsize:1 buckets:8 items:114 deletes:0 filters:3 max_iterations:29 expansion:7", 0xc04ea26ea4926d02, 0x486e1d4c658ac315),
    (28, "bktsize:6 buckets:1 items:73 deletes:0 filters:3 max_iterations:32 expansion:6", 0x1ad288c46b216dbc, 0xc555ca2f71c56175),
    (29, "bktsize:3 buckets:8 items:134 deletes:1 filters:3 max_iterations:50 expansion:5", 0xa515d284cf6e685b, 0x333b39221e84d051),
    (30, "bktsize:7 buckets:8 items:77 deletes:0 filters:2 max_iterations:47 expansion:6", 0x93672b651abcd5c9, 0xdd5b8387a224e3ee),
    (31, "bktsize:6 buckets:8 items:110 deletes:1 filters:2 max_iterations:1 expansion:5", 0x614412ee8e5aa65c, 0x30fd05391d7419c1),
];

#[test]
fn odd_expansion_runs_match_redisbloom() {
    for &(seed, debug, replies, dump) in ODD_EXPANSION_RUNS {
        let (got_debug, got_replies, got_dump) = odd_expansion_run(seed);
        assert_eq!(got_debug, debug, "seed {seed}");
        assert_eq!(got_replies, replies, "seed {seed}: replies");
        assert_eq!(got_dump, dump, "seed {seed}: SCANDUMP");
    }
}

#[test]
fn random_runs_match_redisbloom() {
    for &(seed, debug, replies, dump) in RANDOM_RUNS {
        let (got_debug, got_replies, got_dump) = random_run(seed);
        assert_eq!(got_debug, debug, "seed {seed}");
        assert_eq!(got_replies, replies, "seed {seed}: replies");
        assert_eq!(got_dump, dump, "seed {seed}: SCANDUMP");
    }
}

/// Runs `commands` on a filter made with `p` and checks the coded replies, CF.DEBUG and the
/// SCANDUMP walk (hex) that RedisBloom 2.8.2 gave.
fn check_run(
    p: Params,
    commands: &[(&str, String)],
    replies: &str,
    debug: &str,
    walk: &[(i64, &str)],
) {
    let mut f = CuckooFilter::new(p, &EAGER).unwrap();
    let got: String = commands
        .iter()
        .map(|(c, item)| apply(&mut f, c, item.as_bytes()))
        .collect();
    assert_eq!(got, replies);
    assert_eq!(f.debug_line(), debug);
    let expected: Vec<(i64, Vec<u8>)> = walk
        .iter()
        .map(|&(cursor, hex)| (cursor, unhex(hex)))
        .collect();
    assert_eq!(scandump_walk(&f), expected);
}

fn adds(range: impl Iterator<Item = u32>) -> Vec<(&'static str, String)> {
    range.map(|i| ("ADD", i.to_string())).collect()
}

fn dels(range: impl Iterator<Item = u32>) -> Vec<(&'static str, String)> {
    range.map(|i| ("DEL", i.to_string())).collect()
}

#[test]
fn kicks_and_growth_with_one_slot_buckets_match_redisbloom() {
    // CF.RESERVE a 8 BUCKETSIZE 1 MAXITERATIONS 5 EXPANSION 1; CF.ADD a 0 … 39.
    check_run(
        params(8, 1, 5, 1),
        &adds(0..40),
        &"1".repeat(40),
        "bktsize:1 buckets:8 items:40 deletes:0 filters:6 max_iterations:5 expansion:1",
        &[
            (
                1,
                "2800000000000000080000000000000000000000000000000600000000000000010005000100",
            ),
            (9, "dd65d413e381e400"),
            (17, "21ae0ab214616cad"),
            (25, "2281d6372c67c604"),
            (33, "8dd76271a33332b5"),
            (41, "0000004eebaf3200"),
            (49, "df00003000b68597"),
        ],
    );
}

#[test]
fn deletes_with_auto_compaction_match_redisbloom() {
    // CF.RESERVE b 8 BUCKETSIZE 2 MAXITERATIONS 10 EXPANSION 2; CF.ADD b 0 … 59;
    // CF.DEL b 0 … 39.
    let commands = [adds(0..60), dels(0..40)].concat();
    check_run(
        params(8, 2, 10, 2),
        &commands,
        &"1".repeat(100),
        "bktsize:2 buckets:4 items:20 deletes:2 filters:3 max_iterations:10 expansion:2",
        &[
            (
                1,
                "140000000000000004000000000000000200000000000000030000000000000002000a000200",
            ),
            (9, "f21573694e50bed6"),
            (25, "0900320028b0be009600a02939f005a0"),
            (
                57,
                "0000000000000000000000000000000000000000000000000000000000000000",
            ),
        ],
    );
    // CF.RESERVE h 8 EXPANSION 1, the same commands: RedisBloom 2.8.2 ends at "filters:3 deletes:2".
    check_run(
        params(8, 2, 20, 1),
        &commands,
        &"1".repeat(100),
        "bktsize:2 buckets:4 items:20 deletes:2 filters:3 max_iterations:20 expansion:1",
        &[
            (
                1,
                "1400000000000000040000000000000002000000000000000300000000000000020014000100",
            ),
            (9, "f24e73a03950be00"),
            (17, "29966915f02832be"),
            (25, "0000d609b00500a0"),
        ],
    );
}

#[test]
fn compact_with_expansion_4_matches_redisbloom() {
    // CF.RESERVE c 12 BUCKETSIZE 3 MAXITERATIONS 3 EXPANSION 4; CF.ADD c 0 … 99;
    // CF.DEL c 0, 3, … 99; CF.COMPACT c.
    let mut commands = [adds(0..100), dels((0..100).step_by(3))].concat();
    commands.push(("COMPACT", String::new()));
    let last = "00000000000000000000000000000000000000000000000000000000000000000000000000000000\
                0000f600000000000000000000000000000000000000000000000000000000000000000000000000\
                00000000000000000000000000000000f20000000000000000000000840000000000000000720000\
                000000000000000000000000000000730000000000000000729e000000000000000000007e000000\
                000000000091002b0000000000000000000000007f0000000000000000000000";
    check_run(
        params(12, 3, 3, 4),
        &commands,
        &("1".repeat(134) + "K"),
        "bktsize:3 buckets:4 items:66 deletes:0 filters:3 max_iterations:3 expansion:4",
        &[
            (
                1,
                "4200000000000000040000000000000000000000000000000300000000000000030003000400",
            ),
            (13, "dde3056566a046d40a39d6a8"),
            (
                61,
                "0914c64429c7d2b08e71004e2cae326115008505b5a04ed422ef008d079b507e96b23000a397d605\
                 beaff06c32ae0004",
            ),
            (253, last),
        ],
    );
}

#[test]
fn a_full_filter_rolls_back_exactly_like_redisbloom() {
    // CF.RESERVE d 8 BUCKETSIZE 2 MAXITERATIONS 50 EXPANSION 0; CF.ADD d 0 … 19. The tenth
    // add finds room after two failed ones: their kicks were undone byte for byte.
    check_run(
        params(8, 2, 50, 0),
        &adds(0..20),
        "1111111FF1FFFFFFFFFF",
        "bktsize:2 buckets:4 items:8 deletes:0 filters:1 max_iterations:50 expansion:0",
        &[
            (
                1,
                "0800000000000000040000000000000000000000000000000100000000000000020032000000",
            ),
            (9, "dde36581e4d413ad"),
        ],
    );
}

#[test]
fn count_duplicates_and_single_filter_compaction_match_redisbloom() {
    // CF.RESERVE e 4; ADD 3; COUNT 3; EXISTS 3; DEL 3; COUNT 3 — then no items: [0, nil].
    let commands: Vec<_> = ["ADD", "COUNT", "EXISTS", "DEL", "COUNT"]
        .iter()
        .map(|&c| (c, "3".to_string()))
        .collect();
    check_run(
        params(4, 2, 20, 1),
        &commands,
        "12,110,",
        "bktsize:2 buckets:2 items:0 deletes:1 filters:1 max_iterations:20 expansion:1",
        &[],
    );
    // CF.RESERVE f 4 BUCKETSIZE 2 MAXITERATIONS 20 EXPANSION 2; CF.ADD f x (20 times);
    // CF.COUNT f x.
    let mut commands = vec![("ADD", "x".to_string()); 20];
    commands.push(("COUNT", "x".to_string()));
    check_run(
        params(4, 2, 20, 2),
        &commands,
        &("1".repeat(20) + "20,"),
        "bktsize:2 buckets:2 items:20 deletes:0 filters:5 max_iterations:20 expansion:2",
        &[
            (
                1,
                "1400000000000000020000000000000000000000000000000500000000000000020014000200",
            ),
            (5, "0f0f0f0f"),
            (13, "00000f0f0f0f0000"),
            (29, "00000f0f0f0f00000000000000000000"),
            (
                61,
                "000000000f0f0000000000000000000000000f0f000000000000000000000000",
            ),
            (
                125,
                "0000000000000000000000000000000000000f0f000000000000000000000000\
                 000000000f0f0000000000000000000000000000000000000000000000000000",
            ),
        ],
    );
    // CF.RESERVE g 8; ADD 1; ADD 1; DEL 1; COMPACT: deletes back to 0 with one sub-filter.
    let commands: Vec<_> = ["ADD", "ADD", "DEL", "COMPACT"]
        .iter()
        .map(|&c| (c, "1".to_string()))
        .collect();
    check_run(
        params(8, 2, 20, 1),
        &commands,
        "111K",
        "bktsize:2 buckets:4 items:1 deletes:0 filters:1 max_iterations:20 expansion:1",
        &[
            (
                1,
                "0100000000000000040000000000000000000000000000000100000000000000020014000100",
            ),
            (9, "00dd000000000000"),
        ],
    );
}
