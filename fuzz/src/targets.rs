//! One function per fuzz target (`fuzz_targets/<name>.rs` calls it), each checking
//! invariants of what it decodes. A failed invariant panics, which libFuzzer reports as a
//! crash with its input.
//!
//! | target | input |
//! |---|---|
//! | `bf_rdb_classic` | a `DUMP` payload of `MBbloom--` (RedisBloom's type), encoding versions 1–4 |
//! | `bf_rdb_fast` | a `DUMP` payload of `bfblocked` (the fast layout) |
//! | `bf_scandump` | a BF.SCANDUMP stream (`stream`): header, then LOADCHUNK pairs |
//! //! | `cf_rdb` | a `DUMP` payload of `MBbloomCF`, encoding versions 1–4 |
//! | `cf_scandump` | a CF.SCANDUMP stream |
//! | `args_numbers` | one argument: the integer, double, error-rate, range and layout parsers |
//! | `bf_args` | a command line, one argument per line: BF.RESERVE and BF.INSERT options |
//! | `cf_args` | a command line, one argument per line: CF.RESERVE and CF.INSERT options |

use redis_bf::core::bloom::chain::{self, Chain, LayoutKind, Params};
use redis_bf::core::bloom::encoding as bf_encoding;
use redis_bf::core::bloom::filter::Link;
use redis_bf::core::bloom::rdb;
use redis_bf::core::cuckoo::encoding as cf_encoding;
use redis_bf::core::cuckoo::filter::{memory_usage as cf_memory_usage, MAX_BUCKET_SIZE};
use redis_bf::core::cuckoo::rdb::{self as cf_rdb, LegacyDefaults};
use redis_bf::core::cuckoo::{CuckooFilter, ItemHash, Params as CfParams};
use redis_bf::core::le::LeReader;
use redis_bf::core::rdb::FieldWriter;
use redis_bf::core::{Error, EAGER};
use redis_bf::commands::args::{integer_in, parse_integer, Bad};
use redis_bf::commands::double::parse_double;
use redis_bf::commands::bf::rules::{error_rate, layout_named, CAPACITY, ERROR_RATE_CAP, EXPANSION};
use redis_bf::commands::bf::{parse_insert, parse_reserve};
use redis_bf::commands::cf::rules::{self as cf_rules, Defaults as CuckooDefaults};
use redis_bf::commands::cf;

use crate::dump::{self, DumpReader, Recording};
use crate::memory::{bounded, take_granted, LIMIT};
use crate::stream;

// ---------------------------------------------------------------------------------------
// Bloom filter: RDB / DUMP payloads.

/// A `DUMP` payload of RedisBloom's type, through `rdb::load_classic`.
pub fn bf_rdb_classic(data: &[u8]) {
    bf_rdb(
        data,
        *b"MBbloom--",
        rdb::ENCODING_VERSION,
        |input, encver| rdb::load_classic(input, encver, &bounded()),
    );
}

/// A `DUMP` payload of the fast layout's type, through `rdb::load_fast`.
pub fn bf_rdb_fast(data: &[u8]) {
    bf_rdb(
        data,
        *b"bfblocked",
        rdb::FAST_ENCODING_VERSION,
        |input, encver| rdb::load_fast(input, encver, &bounded()),
    );
}

fn bf_rdb(
    data: &[u8],
    name: [u8; 9],
    current: i32,
    load: impl Fn(&mut Recording<DumpReader>, i32) -> Result<Chain, Error>,
) {
    let Some((module, reader)) = dump::open(data) else {
        return;
    };
    if module.name != name {
        return;
    }
    let mut input = Recording::new(reader);
    let Ok(chain) = load(&mut input, module.encver) else {
        return;
    };
    // Its size is its bookkeeping and the strings it was read from, nothing else.
    let links = chain.links().len() as u64;
    assert_eq!(
        Some(chain.memory_usage()),
        chain::memory_usage(links, input.string_bytes),
        "memory_usage is not what the payload holds"
    );
    // What it saves is what it was read from, field for field (older versions lack fields).
    if module.encver == current {
        assert_eq!(
            saved_bloom(&chain),
            input.fields.0,
            "a loaded filter saves other fields than it was loaded from"
        );
    } else {
        assert!(module.encver >= 4 || chain.growth() == 2);
        assert!(module.encver >= 2 || chain.options() == 0);
    }
    check_bloom(&chain, data);
}

fn saved_bloom(chain: &Chain) -> Vec<u8> {
    let mut out = FieldWriter::default();
    rdb::save(chain, &mut out);
    out.0
}

// ---------------------------------------------------------------------------------------
// Bloom filter: SCANDUMP / LOADCHUNK.

/// BF.LOADCHUNK of a header, then of every chunk of the stream.
pub fn bf_scandump(data: &[u8]) {
    let Some(stream) = stream::parse(data) else {
        return;
    };
    take_granted();
    let decoded = bf_encoding::decode_header(stream.header, &bounded());
    let granted = take_granted();
    let mut chain = match decoded {
        Ok(chain) => chain,
        Err(_) => {
            assert_eq!(granted, 0, "a refused header was given memory");
            return;
        }
    };
    assert_eq!(
        bf_encoding::encode_header(&chain),
        stream.header,
        "a decoded header does not encode back to itself"
    );
    // It got exactly the bytes its header describes, checked against the bound first.
    assert_eq!(granted, bloom_header_bytes(stream.header));
    assert_eq!(
        Some(chain.memory_usage()),
        chain::memory_usage(chain.links().len() as u64, granted)
    );
    assert!(chain.memory_usage() <= LIMIT);
    assert!(all_zero(&flat_bloom(&chain)));

    // The chunks: each lands where its iterator says, or is refused and changes nothing.
    let mut expected = flat_bloom(&chain);
    for &(iter, data) in &stream.chunks {
        if bf_encoding::load_chunk(&mut chain, iter, data).is_ok() {
            let start = (iter - data.len() as i64 - 1) as usize;
            let target = expected.get_mut(start..start + data.len());
            target
                .expect("a chunk was accepted outside the filter")
                .copy_from_slice(data);
        }
    }
    assert_eq!(flat_bloom(&chain), expected, "chunks wrote elsewhere");
    // SCANDUMP at the stream's iterators: the bytes there, never across a link.
    for &(iter, data) in &stream.chunks {
        for at in [
            iter,
            iter.wrapping_sub(data.len() as i64),
            iter.wrapping_neg(),
        ] {
            check_bloom_chunk_at(&chain, &expected, at);
        }
    }
    assert_eq!(bf_encoding::encode_header(&chain), stream.header);
    check_bloom(&chain, data);
}

/// The bytes a BF header's links declare, read from the header itself.
fn bloom_header_bytes(header: &[u8]) -> u64 {
    let links = u32::from_le_bytes(header[8..12].try_into().unwrap()) as usize;
    (0..links)
        .map(|i| {
            let at = 20 + 53 * i;
            u64::from_le_bytes(header[at..at + 8].try_into().unwrap())
        })
        .sum()
}

/// Every byte of a chain's bit arrays, oldest link first: what SCANDUMP walks.
fn flat_bloom(chain: &Chain) -> Vec<u8> {
    concatenated(chain.links().iter().flat_map(Link::segments))
}

/// The pieces one after another. Whole slices are copied, not byte by byte: under the
/// fuzzer's instrumentation a per-byte loop over a filter costs more than the decoding.
fn concatenated<'a>(pieces: impl Iterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut flat = Vec::new();
    for piece in pieces {
        flat.extend_from_slice(piece);
    }
    flat
}

/// Whether every byte is zero, in one `memcmp` against zeroes rather than an instrumented
/// loop (no filter within the bound is longer than [`LIMIT`]).
fn all_zero(bytes: &[u8]) -> bool {
    static ZEROES: [u8; LIMIT as usize] = [0; LIMIT as usize];
    ZEROES.get(..bytes.len()) == Some(bytes)
}

/// `chunk_at(iter)` gives the bytes from `iter - 1` to the end of that link (at most
/// `MAX_CHUNK`), or nothing outside the filter.
fn check_bloom_chunk_at(chain: &Chain, flat: &[u8], iter: i64) {
    let got = bf_encoding::chunk_at(chain, iter);
    let offset = iter.checked_sub(1).filter(|o| *o >= 0).map(|o| o as usize);
    let Some(offset) = offset.filter(|o| *o < flat.len()) else {
        assert_eq!(got, None, "a chunk outside the filter");
        return;
    };
    let (next, data) = got.expect("no chunk inside the filter");
    assert!(!data.is_empty() && data.len() <= bf_encoding::MAX_CHUNK);
    assert_eq!(next, iter + data.len() as i64);
    assert_eq!(data, &flat[offset..offset + data.len()]);
    // It stops at the end of a segment, and a segment ends no later than its link.
    let mut end = 0;
    for segment in chain.links().iter().flat_map(Link::segments) {
        end += segment.len();
        if end > offset {
            assert!(offset + data.len() <= end, "a chunk crosses a link");
            break;
        }
    }
}

/// What every decoded Bloom filter must satisfy, however it was decoded.
fn check_bloom(chain: &Chain, data: &[u8]) {
    // Sizes agree: links, segments, items.
    let flat = flat_bloom(chain);
    for link in chain.links() {
        let bytes: usize = link.segments().map(<[u8]>::len).sum();
        assert_eq!(bytes as u64, link.shape().bytes());
    }
    assert_eq!(
        Some(chain.memory_usage()),
        chain::memory_usage(chain.links().len() as u64, flat.len() as u64)
    );
    assert_eq!(
        Some(chain.items()),
        chain
            .links()
            .iter()
            .try_fold(0u64, |sum, l| sum.checked_add(l.items()))
    );
    let _ = chain.capacity();

    // Lookups, one by one and batched, agree.
    let items = probe_items(data);
    let mut batched = Vec::new();
    chain.contains_each(items.iter().map(Vec::as_slice), |found| batched.push(found));
    let single: Vec<bool> = items.iter().map(|item| chain.contains(item)).collect();
    assert_eq!(batched, single, "batched lookups disagree with single ones");

    // RDB: it saves, and loads back equal, to the same fields.
    let fields = saved_bloom(chain);
    let mut input = LeReader(&fields);
    let again = match chain.layout() {
        LayoutKind::Classic => rdb::load_classic(&mut input, rdb::ENCODING_VERSION, &EAGER),
        LayoutKind::Fast => rdb::load_fast(&mut input, rdb::FAST_ENCODING_VERSION, &EAGER),
    };
    let again = again.expect("a decoded filter does not load from what it saves");
    assert_eq!(&again, chain);
    assert_eq!(saved_bloom(&again), fields);

    // SCANDUMP: the walk covers exactly its bytes, and header plus chunks rebuild it.
    let mut iter = 1;
    let mut walked = Vec::new();
    while let Some((next, data)) = bf_encoding::chunk_at(chain, iter) {
        assert!(!data.is_empty() && data.len() <= bf_encoding::MAX_CHUNK);
        assert_eq!(next, iter + data.len() as i64);
        walked.extend_from_slice(data);
        iter = next;
    }
    assert!(
        walked == flat,
        "the SCANDUMP walk does not cover the filter's bytes"
    );
    if chain.memory_usage() <= LIMIT {
        let header = bf_encoding::encode_header(chain);
        let copy = bf_encoding::decode_header(&header, &bounded());
        take_granted();
        match copy {
            Ok(mut copy) => {
                let mut iter = 1;
                while let Some((next, data)) = bf_encoding::chunk_at(chain, iter) {
                    bf_encoding::load_chunk(&mut copy, next, data)
                        .expect("a filter's own chunk does not load");
                    iter = next;
                }
                assert_eq!(
                    &copy, chain,
                    "SCANDUMP and LOADCHUNK do not rebuild the filter"
                );
            }
            Err(e) => panic!("a decoded filter's own SCANDUMP header is refused: {e:?}"),
        }
    }

    // Adds: whatever is added is found; growth stays within the bound.
    let Ok(mut chain) = chain.try_clone(&EAGER) else {
        return;
    };
    take_granted();
    for item in &items {
        if chain.add(item, &bounded()).is_ok() {
            assert!(chain.contains(item), "a false negative after an add");
        }
    }
    assert!(take_granted() <= LIMIT);
}

// ---------------------------------------------------------------------------------------
// Cuckoo filter: RDB / DUMP payloads.

/// What values of encoding versions 1 to 3 take from the configuration: RedisBloom's defaults
/// (`cf-bucket-size` 2, `cf-max-iterations` 20, `cf-expansion-factor` 1).
const LEGACY: LegacyDefaults = LegacyDefaults {
    bucket_size: 2,
    max_iterations: 20,
    expansion: 1,
};

/// A `DUMP` payload of RedisBloom's Cuckoo-filter type, through `cuckoo::rdb::load`.
pub fn cf_rdb(data: &[u8]) {
    let Some((module, reader)) = dump::open(data) else {
        return;
    };
    if &module.name != b"MBbloomCF" {
        return;
    }
    let mut input = Recording::new(reader);
    let Ok(filter) = cf_rdb::load(&mut input, module.encver, LEGACY, &bounded()) else {
        return;
    };
    // Its size is its bookkeeping and the strings it was read from, nothing else.
    let subs = filter.sub_filters().len() as u64;
    assert_eq!(
        Some(filter.memory_usage()),
        cf_memory_usage(subs, input.string_bytes),
        "memory_usage is not what the payload holds"
    );
    if module.encver == cf_rdb::ENCODING_VERSION {
        assert_eq!(
            saved_cuckoo(&filter),
            input.fields.0,
            "a loaded filter saves other fields than it was loaded from"
        );
    }
    check_cuckoo(&filter, data, false);
}

fn saved_cuckoo(filter: &CuckooFilter) -> Vec<u8> {
    let mut out = FieldWriter::default();
    cf_rdb::save(filter, &mut out);
    out.0
}

// ---------------------------------------------------------------------------------------
// Cuckoo filter: SCANDUMP / LOADCHUNK.

/// CF.LOADCHUNK of a header, then of every chunk of the stream.
pub fn cf_scandump(data: &[u8]) {
    let Some(stream) = stream::parse(data) else {
        return;
    };
    take_granted();
    let decoded = cf_encoding::decode_header(stream.header, MAX_BUCKET_SIZE, &bounded());
    let granted = take_granted();
    let mut filter = match decoded {
        Ok(filter) => filter,
        Err(_) => {
            assert_eq!(granted, 0, "a refused header was given memory");
            return;
        }
    };
    assert_eq!(
        &cf_encoding::encode_header(&filter)[..],
        stream.header,
        "a decoded header does not encode back to itself"
    );
    // Exactly the sub-filters the header describes: numBuckets × expansion^i buckets each.
    let header = filter.saved_header();
    let mut buckets = header.num_buckets;
    for (i, (n, bytes)) in filter.sub_filters().enumerate() {
        if i > 0 {
            buckets *= header.expansion;
        }
        assert_eq!(n, buckets);
        assert_eq!(bytes.len() as u64, n * header.bucket_size);
        assert!(all_zero(bytes));
    }
    assert_eq!(
        Some(filter.memory_usage()),
        cf_memory_usage(header.num_filters, granted)
    );
    assert!(filter.memory_usage() <= LIMIT);

    let mut expected = flat_cuckoo(&filter);
    for &(cursor, data) in &stream.chunks {
        if cf_encoding::load_chunk(&mut filter, cursor, data).is_ok() {
            let start = (cursor - data.len() as i64 - 1) as usize;
            expected
                .get_mut(start..start + data.len())
                .expect("a chunk was accepted outside the filter")
                .copy_from_slice(data);
        }
    }
    assert_eq!(flat_cuckoo(&filter), expected, "chunks wrote elsewhere");
    for &(cursor, data) in &stream.chunks {
        for at in [cursor, cursor.wrapping_sub(data.len() as i64), 0, -1] {
            check_cuckoo_scandump(&filter, at);
        }
    }
    check_cuckoo(&filter, data, true);
}

fn flat_cuckoo(filter: &CuckooFilter) -> Vec<u8> {
    concatenated(filter.sub_filters().map(|(_, bytes)| bytes))
}

/// `CF.SCANDUMP` at `cursor`: nothing for an empty filter, the header at 0, else the whole
/// sub-filter the cursor points into (or 16 MiB of a bigger one from the cursor on).
fn check_cuckoo_scandump(filter: &CuckooFilter, cursor: i64) {
    let dump = cf_encoding::scandump(filter, cursor);
    if filter.items() == 0 {
        assert_eq!(dump, cf_encoding::Dump::End);
        return;
    }
    if cursor == 0 {
        assert_eq!(
            dump,
            cf_encoding::Dump::Header(cf_encoding::encode_header(filter))
        );
        return;
    }
    let mut offset = cursor.checked_sub(1).and_then(|o| u64::try_from(o).ok());
    for (_, bytes) in filter.sub_filters() {
        let Some(at) = offset else { break };
        let len = bytes.len() as u64;
        if at < len {
            let piece = if bytes.len() <= cf_encoding::MAX_CHUNK {
                bytes
            } else {
                &bytes[at as usize..bytes.len().min(at as usize + cf_encoding::MAX_CHUNK)]
            };
            // The very bytes of the live filter (same address and length), which says more
            // than equal contents and costs no comparison of up to a mebibyte.
            let cf_encoding::Dump::Chunk { next, data } = dump else {
                panic!("no chunk at {cursor}: {dump:?}");
            };
            assert_eq!(
                next,
                cursor + piece.len() as i64,
                "wrong next cursor at {cursor}"
            );
            assert!(std::ptr::eq(data, piece), "wrong chunk at {cursor}");
            return;
        }
        offset = Some(at - len);
    }
    assert_eq!(dump, cf_encoding::Dump::End);
}

/// How many chunks from each end of a long SCANDUMP walk are loaded back (each LOADCHUNK
/// looks for its sub-filter from the first: a whole walk of 65535 sub-filters takes seconds).
const SAMPLED_CHUNKS: usize = 16;

/// What every decoded Cuckoo filter must satisfy, however it was decoded (`from_header`: from
/// a SCANDUMP header).
fn check_cuckoo(filter: &CuckooFilter, data: &[u8], from_header: bool) {
    let header = filter.saved_header();
    assert_eq!(header.num_filters, filter.sub_filters().len() as u64);
    assert!(header.check().is_ok());
    let flat = flat_cuckoo(filter);
    for (n, bytes) in filter.sub_filters() {
        assert_eq!(Some(bytes.len() as u64), n.checked_mul(header.bucket_size));
    }
    assert_eq!(
        Some(filter.memory_usage()),
        cf_memory_usage(header.num_filters, flat.len() as u64)
    );

    // Lookups agree with counts.
    let items: Vec<ItemHash> = probe_items(data).iter().map(|i| ItemHash::of(i)).collect();
    for item in &items {
        assert_eq!(filter.contains(item), filter.count(item) > 0);
    }

    // RDB: it saves, and loads back equal, to the same fields.
    let fields = saved_cuckoo(filter);
    let again = cf_rdb::load(&mut LeReader(&fields), cf_rdb::ENCODING_VERSION, LEGACY, &EAGER)
        .expect("a decoded filter does not load from what it saves");
    assert_eq!(&again, filter);
    assert_eq!(saved_cuckoo(&again), fields);

    // SCANDUMP: the walk covers exactly its bytes, a chunk per sub-filter of up to 16 MiB.
    let mut walked = Vec::new();
    let mut subs = filter.sub_filters().map(|(_, b)| b.len()).peekable();
    let mut left_in_sub = 0;
    for (_, chunk) in cf_encoding::chunks(filter) {
        if left_in_sub == 0 {
            left_in_sub = subs.next().expect("a chunk past the last sub-filter");
        }
        assert!(!chunk.is_empty() && chunk.len() <= left_in_sub.min(cf_encoding::MAX_CHUNK));
        left_in_sub -= chunk.len();
        walked.extend_from_slice(chunk);
    }
    assert!(
        walked == flat,
        "the SCANDUMP walk does not cover the filter's bytes"
    );
    // Header plus chunks rebuild it, when its header describes its sub-filters: always for
    // one decoded from a header; an RDB value's sub-filters may have other sizes.
    if filter.memory_usage() <= LIMIT {
        let copy = cf_encoding::decode_header(
            &cf_encoding::encode_header(filter),
            MAX_BUCKET_SIZE,
            &bounded(),
        );
        take_granted();
        match copy {
            Ok(mut copy)
                if copy
                    .sub_filters()
                    .map(|(n, _)| n)
                    .eq(filter.sub_filters().map(|(n, _)| n)) =>
            {
                // LOADCHUNK looks for its sub-filter from the first, so a walk of many
                // sub-filters loads the first and last few, and compares those.
                let count = filter.sub_filters().len();
                let sampled = |i: usize| {
                    count <= 2 * SAMPLED_CHUNKS || i < SAMPLED_CHUNKS || i >= count - SAMPLED_CHUNKS
                };
                let mut loaded = Vec::new();
                for (i, (next, chunk)) in cf_encoding::chunks(filter).enumerate() {
                    if sampled(i) {
                        cf_encoding::load_chunk(&mut copy, next, chunk)
                            .expect("a filter's own chunk does not load");
                        loaded.push((next, chunk));
                    }
                }
                if loaded.len() == count {
                    assert_eq!(
                        &copy, filter,
                        "SCANDUMP and LOADCHUNK do not rebuild the filter"
                    );
                } else {
                    let copied = flat_cuckoo(&copy);
                    for (next, chunk) in loaded {
                        let start = (next - chunk.len() as i64 - 1) as usize;
                        assert_eq!(
                            &copied[start..start + chunk.len()],
                            chunk,
                            "a chunk loaded elsewhere"
                        );
                    }
                }
            }
            _ => assert!(
                !from_header,
                "a decoded filter's own header does not describe it"
            ),
        }
    }

    // Updates: no panics, growth within the bound, no false negatives where the kick loop is
    // exact (power-of-two bucket counts).
    let decoded_usage = filter.memory_usage();
    let Ok(mut filter) = filter.try_clone(&EAGER) else {
        return;
    };
    let bound = LIMIT.max(decoded_usage);
    take_granted();
    for (i, item) in items.iter().enumerate() {
        let added = match i % 3 {
            0 => filter.insert(item, &bounded()).is_ok(),
            1 => filter.insert_if_absent(item, &bounded()).is_ok(),
            _ => {
                filter.delete(item);
                false
            }
        };
        let exact = filter.sub_filters().all(|(n, _)| n.is_power_of_two());
        if added && exact {
            assert!(filter.contains(item), "a false negative after an insert");
        }
        // Within the bound after each step. What was granted is counted per step: a delete
        // may compact a sub-filter away, and the next insert grow one again.
        assert!(filter.memory_usage() <= bound);
        assert!(take_granted() <= LIMIT);
    }
    filter.compact();
    assert!(filter.memory_usage() <= bound);
}

/// Items to look up and add: fixed ones (the seeds' filters hold `item:0`, `item:1`, …) and
/// some from the input.
fn probe_items(data: &[u8]) -> Vec<Vec<u8>> {
    let mut items: Vec<Vec<u8>> = (0..4).map(|i| format!("item:{i}").into_bytes()).collect();
    items.push(Vec::new());
    items.push(data.iter().take(16).copied().collect());
    items.push(data.iter().rev().take(16).copied().collect());
    items
}

// ---------------------------------------------------------------------------------------
// Arguments.

/// One argument through every number parser, each against its reference.
pub fn args_numbers(data: &[u8]) {
    let integer = parse_integer(data);
    assert_eq!(integer, reference::string2ll(data), "parse_integer");
    let double = parse_double(data);
    assert_eq!(
        double.map(f64::to_bits),
        reference::string2d(data).map(f64::to_bits),
        "parse_double"
    );
    let rate = error_rate(data);
    match double {
        None => assert_eq!(rate, Err(Bad::NotANumber)),
        Some(x) if x > 0.0 && x < 1.0 => assert_eq!(rate, Ok(x)),
        Some(_) => assert_eq!(rate, Err(Bad::OutOfRange)),
    }
    for range in [CAPACITY, EXPANSION] {
        let within = integer_in(data, &range);
        match integer {
            None => assert_eq!(within, Err(Bad::NotANumber)),
            Some(n) if range.contains(&n) => assert_eq!(within, Ok(n)),
            Some(_) => assert_eq!(within, Err(Bad::OutOfRange)),
        }
    }
    let layout = if data.eq_ignore_ascii_case(b"classic") {
        Some(LayoutKind::Classic)
    } else if data.eq_ignore_ascii_case(b"fast") {
        Some(LayoutKind::Fast)
    } else {
        None
    };
    assert_eq!(layout_named(data), layout);
}

/// The configurations the command parsers run with: RedisBloom's defaults, and the other
/// extreme (non-scaling, the loosest error rate, the fast layout).
const CONFIGS: [Params; 2] = [
    Params {
        capacity: 100,
        error_rate: 0.01,
        expansion: 2,
        nonscaling: false,
        layout: LayoutKind::Classic,
    },
    Params {
        capacity: 1,
        error_rate: 0.25,
        expansion: 0,
        nonscaling: true,
        layout: LayoutKind::Fast,
    },
];

/// A command line, one argument per line, through BF.RESERVE's and BF.INSERT's parsers.
pub fn bf_args(data: &[u8]) {
    let args: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    for defaults in CONFIGS {
        if (4..=7).contains(&args.len()) {
            check_reserve(&args, defaults);
        }
        if args.len() >= 4 {
            check_insert(&args, defaults);
        }
    }
}

fn check_reserve(args: &[&[u8]], defaults: Params) {
    let Ok(reserve) = parse_reserve(args, defaults) else {
        return;
    };
    let p = reserve.params;
    let asked = parse_double(args[2]).expect("an error rate that does not parse");
    assert!(asked > 0.0 && asked < 1.0);
    assert_eq!(p.error_rate, asked.min(ERROR_RATE_CAP));
    assert_eq!(reserve.capped, asked > ERROR_RATE_CAP);
    assert_eq!(Some(p.capacity as i64), parse_integer(args[3]));
    assert!(CAPACITY.contains(&(p.capacity as i64)));
    let options = &args[4..];
    let find = |word: &str| {
        options
            .iter()
            .position(|a| a.eq_ignore_ascii_case(word.as_bytes()))
    };
    let expansion = find("EXPANSION").map(|at| parse_integer(options[at + 1]).unwrap());
    match expansion {
        None => assert_eq!(p.expansion, defaults.expansion),
        Some(e) => assert_eq!(i64::from(p.expansion), e),
    }
    assert!(EXPANSION.contains(&i64::from(p.expansion)));
    let nonscaling = defaults.nonscaling || find("NONSCALING").is_some() || expansion == Some(0);
    assert_eq!(p.nonscaling, nonscaling);
    match find("LAYOUT") {
        None => assert_eq!(p.layout, defaults.layout),
        Some(at) => assert_eq!(Some(p.layout), layout_named(options[at + 1])),
    }
    check_new_chain(p);
}

fn check_insert(args: &[&[u8]], defaults: Params) {
    let Ok(insert) = parse_insert(args, defaults) else {
        return;
    };
    let p = insert.params;
    assert!(insert.first_item >= 3 && insert.first_item < args.len());
    assert!(args[insert.first_item - 1]
        .first()
        .is_some_and(|c| c.eq_ignore_ascii_case(&b'i')));
    assert!(p.error_rate == defaults.error_rate || (p.error_rate > 0.0 && p.error_rate <= 0.25));
    assert!(p.capacity == defaults.capacity || CAPACITY.contains(&(p.capacity as i64)));
    assert!(EXPANSION.contains(&i64::from(p.expansion)));
    assert!(p.expansion != 0 || p.nonscaling);
    check_new_chain(p);
}

/// A filter made with parsed parameters: made within the bound, or refused before any memory
/// is handed out.
fn check_new_chain(p: Params) {
    take_granted();
    let made = Chain::new(p, &bounded());
    let granted = take_granted();
    match made {
        Ok(mut chain) => {
            assert_eq!(chain.capacity(), p.capacity);
            assert_eq!(Some(chain.memory_usage()), chain::memory_usage(1, granted));
            assert!(chain.memory_usage() <= LIMIT);
            for item in [&b"a"[..], b"b"] {
                if chain.add(item, &bounded()).is_ok() {
                    assert!(chain.contains(item));
                }
            }
            take_granted();
        }
        Err(_) => assert_eq!(granted, 0, "a refused filter was given memory"),
    }
}

// ---------------------------------------------------------------------------------------
// Cuckoo filter: CF.RESERVE and CF.INSERT options.

/// RedisBloom's defaults, and a configuration with the coupled ranges pulled in: bucket sizes
/// up to 5 (`cf-initial-size` 10), capacities from 16 (`cf-bucket-size` 8 for CF.INSERT).
const CF_CONFIGS: [CuckooDefaults; 2] = [
    CuckooDefaults::REDISBLOOM,
    CuckooDefaults {
        initial_size: 10,
        bucket_size: 8,
        max_iterations: 3,
        expansion: 0,
        max_expansions: 1,
    },
];

/// A command line, one argument per line, through CF.RESERVE's and CF.INSERT's parsers.
pub fn cf_args(data: &[u8]) {
    let args: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    for defaults in &CF_CONFIGS {
        if args.len() >= 3 && args.len() % 2 == 1 {
            check_cf_reserve(&args, defaults);
        }
        if args.len() >= 4 {
            check_cf_insert(&args, defaults);
        }
    }
}

fn check_cf_reserve(args: &[&[u8]], defaults: &CuckooDefaults) {
    let Ok(p) = cf::parse_reserve(args, defaults) else {
        return;
    };
    assert_eq!(Some(p.capacity as i64), parse_integer(args[2]));
    assert!(cf_rules::capacities(p.bucket_size).contains(&(p.capacity as i64)));
    // Each option: the first occurrence among the arguments after the capacity, or the config.
    let options = &args[3..];
    let option = |word: &str| {
        let at = options
            .iter()
            .position(|a| a.eq_ignore_ascii_case(word.as_bytes()))?;
        Some(parse_integer(options[at + 1]).expect("an option value that does not parse"))
    };
    let expect =
        |word: &str, default: u16, range: std::ops::RangeInclusive<i64>, got: u16| match option(
            word,
        ) {
            None => assert_eq!(got, default, "{word}"),
            Some(n) => assert!(range.contains(&n) && i64::from(got) == n, "{word}"),
        };
    let bucket_sizes = cf_rules::bucket_sizes(defaults.initial_size);
    expect(
        "BUCKETSIZE",
        defaults.bucket_size,
        bucket_sizes,
        p.bucket_size,
    );
    let iterations = cf_rules::MAX_ITERATIONS;
    expect(
        "MAXITERATIONS",
        defaults.max_iterations,
        iterations,
        p.max_iterations,
    );
    expect(
        "EXPANSION",
        defaults.expansion,
        cf_rules::EXPANSION,
        p.expansion,
    );
    check_new_cuckoo(defaults.params(p.capacity));
    check_new_cuckoo(p);
}

fn check_cf_insert(args: &[&[u8]], defaults: &CuckooDefaults) {
    let Ok(insert) = cf::parse_insert(args, defaults) else {
        return;
    };
    assert!(insert.first_item >= 3 && insert.first_item < args.len());
    // Options are told apart by their first letter; ITEMS ends them.
    let options = &args[2..insert.first_item];
    let initial = |c: u8| move |a: &&[u8]| a.first().is_some_and(|f| f.eq_ignore_ascii_case(&c));
    assert!(options.last().is_some_and(initial(b'i')));
    assert_eq!(insert.nocreate, options.iter().any(initial(b'n')));
    let capacity_given = options.iter().any(initial(b'c'));
    assert!(
        (!capacity_given && insert.capacity == defaults.initial_size)
            || cf_rules::capacities(defaults.bucket_size).contains(&(insert.capacity as i64))
    );
    check_new_cuckoo(defaults.params(insert.capacity));
}

/// A Cuckoo filter made with parsed parameters: made within the bound, or refused before any
/// memory is handed out.
fn check_new_cuckoo(p: CfParams) {
    take_granted();
    let made = CuckooFilter::new(p, &bounded());
    let granted = take_granted();
    match made {
        Ok(mut filter) => {
            assert_eq!(Some(filter.memory_usage()), cf_memory_usage(1, granted));
            let item = ItemHash::of(b"a");
            if filter.insert(&item, &bounded()).is_ok() {
                assert!(filter.contains(&item));
            }
            take_granted();
        }
        Err(_) => assert_eq!(granted, 0, "a refused filter was given memory"),
    }
}

/// Redis's own number parsers, written out from its C source (`util.c`, `object.c`) as the
/// reference the module's parsers are compared with.
pub mod reference {
    /// `string2ll` (`RedisModule_StringToLongLong`).
    pub fn string2ll(s: &[u8]) -> Option<i64> {
        const LONG_STR_SIZE: usize = 21;
        if s.is_empty() || s.len() >= LONG_STR_SIZE {
            return None;
        }
        if s == b"0" {
            return Some(0);
        }
        let (negative, digits) = match s.split_first() {
            Some((b'-', rest)) if !rest.is_empty() => (true, rest),
            Some((b'-', _)) => return None,
            _ => (false, s),
        };
        if !(b'1'..=b'9').contains(&digits[0]) {
            return None;
        }
        let mut v: u64 = 0;
        for &c in digits {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
        }
        if negative {
            if v > (i64::MAX as u64) + 1 {
                return None;
            }
            Some((v as i64).wrapping_neg())
        } else {
            i64::try_from(v).ok()
        }
    }

    /// `getDoubleFromObject` (`RedisModule_StringToDouble`): glibc's `strtod` over the whole
    /// string, no leading space, no NaN, no overflow, no underflow to zero.
    pub fn string2d(s: &[u8]) -> Option<f64> {
        let first = *s.first()?;
        if matches!(first, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
            return None;
        }
        let mut text = s.to_vec();
        text.push(0);
        let mut end: *mut libc::c_char = std::ptr::null_mut();
        // SAFETY: `text` is NUL-terminated and outlives the call; errno is this thread's.
        let (value, errno) = unsafe {
            *libc::__errno_location() = 0;
            let value = libc::strtod(text.as_ptr().cast(), &mut end);
            (value, *libc::__errno_location())
        };
        let consumed = end as usize - text.as_ptr() as usize;
        let range_error = errno == libc::ERANGE && (value.is_infinite() || value == 0.0);
        (consumed == s.len() && !range_error && !value.is_nan()).then_some(value)
    }
}
