//! The Cuckoo filter's targets: RDB/DUMP payloads, SCANDUMP streams, and the CF.RESERVE and
//! CF.INSERT option parsers.

use redis_bf::commands::args::parse_integer;
use redis_bf::commands::cf;
use redis_bf::commands::cf::rules::{self as cf_rules, Defaults as CuckooDefaults};
use redis_bf::core::cf::encoding as cf_encoding;
use redis_bf::core::cf::filter::{memory_usage as cf_memory_usage, MAX_BUCKET_SIZE};
use redis_bf::core::cf::rdb::{self as cf_rdb, LegacyDefaults};
use redis_bf::core::cf::{CuckooFilter, ItemHash, Params as CfParams};
use redis_bf::core::le::LeReader;
use redis_bf::core::rdb::FieldWriter;
use redis_bf::core::EAGER;

use super::shared::{all_zero, concatenated, probe_items};
use crate::dump::{self, Recording};
use crate::memory::{bounded, take_granted, LIMIT};
use crate::stream;

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
    let mut subs = filter.sub_filters();
    while let Some((_, bytes)) = subs.next() {
        let Some(at) = offset else { break };
        let len = bytes.len() as u64;
        if at < len {
            let piece = if bytes.len() <= cf_encoding::MAX_CHUNK {
                bytes
            } else {
                &bytes[at as usize..bytes.len().min(at as usize + cf_encoding::MAX_CHUNK)]
            };
            // A walk passes over chunks of 64 KiB or more that hold only zeros: then either
            // nothing but zeros follows, or a later chunk is sent.
            let skippable = piece.len() >= SMALLEST_SKIPPED_CHUNK && all_zero(piece);
            let cf_encoding::Dump::Chunk { next, data } = dump else {
                let rest = &bytes[(at as usize).min(bytes.len())..];
                assert!(
                    skippable && all_zero(rest) && subs.all(|(_, later)| all_zero(later)),
                    "no chunk at {cursor}: {dump:?}"
                );
                return;
            };
            // The very bytes of the live filter (same address and length), which says more
            // than equal contents and costs no comparison of up to a mebibyte.
            if std::ptr::eq(data, piece) {
                assert_eq!(
                    next,
                    cursor + piece.len() as i64,
                    "wrong next cursor at {cursor}"
                );
            } else {
                assert!(skippable, "wrong chunk at {cursor}");
                assert!(
                    next > cursor + piece.len() as i64,
                    "a chunk behind {cursor}"
                );
            }
            return;
        }
        offset = Some(at - len);
    }
    assert_eq!(dump, cf_encoding::Dump::End);
}

/// The smallest chunk a SCANDUMP walk passes over when it holds only zeros (`core::sparse`).
const SMALLEST_SKIPPED_CHUNK: usize = 64 * 1024;

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
    let again = cf_rdb::load(
        &mut LeReader(&fields),
        cf_rdb::ENCODING_VERSION,
        LEGACY,
        &EAGER,
    )
    .expect("a decoded filter does not load from what it saves");
    assert_eq!(&again, filter);
    assert_eq!(saved_cuckoo(&again), fields);

    // SCANDUMP: the walk's chunks, each put at its cursor's place, rebuild exactly its bytes
    // (the chunks of 64 KiB or more it passes over hold only zeros); at most 16 MiB a chunk.
    let mut walked = vec![0u8; flat.len()];
    for (next, chunk) in cf_encoding::chunks(filter) {
        assert!(!chunk.is_empty() && chunk.len() <= cf_encoding::MAX_CHUNK);
        let end = usize::try_from(next - 1).expect("a cursor before its chunk's end");
        let start = end
            .checked_sub(chunk.len())
            .expect("a chunk before the start");
        walked
            .get_mut(start..end)
            .expect("a chunk past the last sub-filter")
            .copy_from_slice(chunk);
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
    check_cf_merge(&args);
}

/// CF.MERGE's parser: numkeys positive and exactly that many sources after it.
fn check_cf_merge(args: &[&[u8]]) {
    let Ok(sources) = cf::parse_merge(args) else {
        return;
    };
    assert!(sources >= 1);
    assert_eq!(parse_integer(args[2]), Some(sources as i64));
    assert_eq!(args.len(), 3 + sources);
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
