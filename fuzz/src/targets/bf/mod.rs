//! The Bloom filter's targets: RDB/DUMP payloads of both layouts, SCANDUMP streams, and the
//! BF.RESERVE and BF.INSERT option parsers (RedisBloom's; valkey-bloom's in `valkey`); the
//! filters that forget in `window`.

mod valkey;
mod window;

pub use valkey::bf_valkey;
use valkey::check_valkey_args;
pub use window::bf_window;

use redis_bf::commands::args::parse_integer;
use redis_bf::commands::bf::rules::{layout_named, CAPACITY, ERROR_RATE_CAP, EXPANSION};
use redis_bf::commands::bf::{parse_insert, parse_merge, parse_reserve, MergeArgs};
use redis_bf::commands::double::parse_double;
use redis_bf::core::bf::chain::{self, Chain, LayoutKind, Params};
use redis_bf::core::bf::encoding as bf_encoding;
use redis_bf::core::bf::filter::Link;
use redis_bf::core::bf::rdb;
use redis_bf::core::le::LeReader;
use redis_bf::core::rdb::FieldWriter;
use redis_bf::core::{Error, EAGER};

use super::shared::{all_zero, concatenated, probe_items};
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
// Bloom filter: BF.RESERVE and BF.INSERT options.

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
    check_valkey_args(&args);
    check_merge(&args);
}

/// BF.MERGE's parser: numkeys positive and the sources all there, then `OVERFILL` or nothing.
fn check_merge(args: &[&[u8]]) {
    let Ok(MergeArgs { sources, overfill }) = parse_merge(args) else {
        return;
    };
    assert!(sources >= 1);
    assert_eq!(parse_integer(args[2]), Some(sources as i64));
    assert_eq!(args.len(), 3 + sources + usize::from(overfill));
    if overfill {
        assert!(args[3 + sources].eq_ignore_ascii_case(b"OVERFILL"));
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
