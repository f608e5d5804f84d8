//! Every seed and every regression input through its target (`make fuzz-check`).

use std::fs;
use std::path::Path;

use redis_bf::core::bf::chain::Chain;
use redis_bf::core::bf::{encoding as bf_encoding, rdb};
use redis_bf::core::cf::encoding as cf_encoding;
use redis_bf::core::cf::filter::MAX_BUCKET_SIZE;
use redis_bf::core::cf::rdb::{self as cf_rdb, LegacyDefaults};
use redis_bf::core::cf::ItemHash;
use redis_bf::core::{Error, EAGER};

use crate::memory::bounded;
use crate::{dump, stream, targets};

/// A target's function.
type Target = fn(&[u8]);

/// The targets by name, as `fuzz_targets/` and the corpus folders name them (a test checks this
/// list against those files and `Cargo.toml`'s binaries).
pub const TARGETS: &[(&str, Target)] = &[
    ("bf_rdb_classic", targets::bf_rdb_classic),
    ("bf_rdb_fast", targets::bf_rdb_fast),
    ("bf_scandump", targets::bf_scandump),
    ("bf_window", targets::bf_window),
    ("bf_valkey", targets::bf_valkey),
    ("cf_rdb", targets::cf_rdb),
    ("cf_scandump", targets::cf_scandump),
    ("args_numbers", targets::args_numbers),
    ("bf_args", targets::bf_args),
    ("cf_args", targets::cf_args),
    ("cms_rdb", targets::cms_rdb),
    ("cms_args", targets::cms_args),
    ("cms_window", targets::cms_window),
    ("topk_rdb", targets::topk_rdb),
    ("topk_args", targets::topk_args),
    ("topk_window", targets::topk_window),
    ("tdigest_rdb", targets::tdigest_rdb),
    ("tdigest_args", targets::tdigest_args),
];

/// The files of `fuzz/<folder>/<target>/`, sorted.
fn inputs(folder: &str, target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(folder)
        .join(target);
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.display().to_string(), fs::read(&p).unwrap()))
        .collect()
}

/// The names of `fuzz_targets/*.rs`, sorted.
fn target_files() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz_targets");
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".rs").map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

/// Every file of `fuzz_targets/` is a target of [`TARGETS`] and a `[[bin]]` of Cargo.toml, and
/// nothing else is: a target added in one place and not the others fails here.
#[test]
fn the_targets_are_the_fuzz_target_files() {
    let mut listed: Vec<String> = TARGETS.iter().map(|(name, _)| name.to_string()).collect();
    listed.sort();
    assert_eq!(listed, target_files());
    let manifest = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    let mut bins: Vec<String> = manifest
        .unwrap()
        .lines()
        .filter_map(|line| line.strip_prefix("name = \""))
        .filter_map(|rest| rest.strip_suffix('"'))
        .filter(|name| *name != "redis-bf-fuzz")
        .map(str::to_owned)
        .collect();
    bins.sort();
    assert_eq!(bins, target_files());
}

#[test]
fn every_seed_and_regression_passes_its_target() {
    let mut ran = 0;
    for &(target, run) in TARGETS {
        let seeds = inputs("seeds", target);
        assert!(!seeds.is_empty(), "no seeds for {target}");
        for (name, data) in seeds.iter().chain(&inputs("regressions", target)) {
            eprintln!("{target}: {name}");
            run(data);
            ran += 1;
        }
    }
    assert!(ran > 0);
}

/// The seeds' filters hold `item:0`, `item:1`, …, except those named `empty`.
fn holds_items(name: &str, contains: impl Fn(&[u8]) -> bool) -> bool {
    let any = (0..64).any(|i| contains(format!("item:{i}").as_bytes()));
    any != name.ends_with("empty")
}

#[test]
fn the_seeds_decode_into_filters_holding_what_was_added() {
    type Load = fn(&mut dump::DumpReader, i32) -> Result<Chain, Error>;
    let loads: [(&str, Load); 2] = [
        ("bf_rdb_classic", |r, encver| {
            rdb::load_classic(r, encver, &EAGER)
        }),
        ("bf_rdb_fast", |r, encver| rdb::load_fast(r, encver, &EAGER)),
    ];
    for (target, load) in loads {
        for (name, data) in inputs("seeds", target) {
            let (module, mut reader) = dump::open(&data).expect(&name);
            let chain = load(&mut reader, module.encver).expect(&name);
            reader.finish().expect(&name);
            assert!(holds_items(&name, |item| chain.contains(item)), "{name}");
        }
    }
    for (name, data) in inputs("seeds", "bf_scandump") {
        let stream = stream::parse(&data).expect(&name);
        let mut chain = bf_encoding::decode_header(stream.header, &bounded()).expect(&name);
        for (iter, chunk) in stream.chunks {
            bf_encoding::load_chunk(&mut chain, iter, chunk).expect(&name);
        }
        assert!(holds_items(&name, |item| chain.contains(item)), "{name}");
    }
    for (name, data) in inputs("seeds", "cf_rdb") {
        let (module, mut reader) = dump::open(&data).expect(&name);
        let legacy = LegacyDefaults {
            bucket_size: 2,
            max_iterations: 20,
            expansion: 1,
        };
        let filter = cf_rdb::load(&mut reader, module.encver, legacy, &EAGER).expect(&name);
        reader.finish().expect(&name);
        let holds = holds_items(&name, |item| filter.contains(&ItemHash::of(item)));
        assert!(holds, "{name}");
    }
    for (name, data) in inputs("seeds", "cf_scandump") {
        let stream = stream::parse(&data).expect(&name);
        let header = cf_encoding::decode_header(stream.header, MAX_BUCKET_SIZE, &bounded());
        let mut filter = header.expect(&name);
        for (cursor, chunk) in stream.chunks {
            cf_encoding::load_chunk(&mut filter, cursor, chunk).expect(&name);
        }
        let holds = holds_items(&name, |item| filter.contains(&ItemHash::of(item)));
        assert!(holds, "{name}");
    }
}

#[test]
fn the_argument_seeds_parse() {
    use redis_bf::commands::cf::rules::Defaults;
    use redis_bf::commands::cf::{parse_insert, parse_merge, parse_reserve};
    for (name, data) in inputs("seeds", "cf_args") {
        let args: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        let parsed = if args[0].eq_ignore_ascii_case(b"CF.RESERVE") {
            parse_reserve(&args, &Defaults::REDISBLOOM).is_ok()
        } else if args[0].eq_ignore_ascii_case(b"CF.MERGE") {
            parse_merge(&args).is_ok()
        } else {
            parse_insert(&args, &Defaults::REDISBLOOM).is_ok()
        };
        assert!(parsed, "{name}");
    }
}
