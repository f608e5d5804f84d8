//! `bf-vector-hashing`: the sketches' row hashes run on the processor's vector unit (AVX2,
//! AVX-512) unless it is `no`; `INFO bf` names the unit. Both paths must count the same: every
//! Count-Min sketch and Top-K of every depth 1–32, fed the same random items of lengths 0–300,
//! holds the same bytes on a server of each.

mod common;

use common::*;

/// The unit the module should find on this machine: the widest x86-64 extension
/// `/proc/cpuinfo` lists, or `no`.
fn expected_unit() -> &'static str {
    if !cfg!(target_arch = "x86_64") {
        return "no";
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find(|line| line.starts_with("flags"))
        .map(|line| line.split_whitespace().collect())
        .unwrap_or_default();
    if flags.contains(&"avx512f") {
        "avx512"
    } else if flags.contains(&"avx2") {
        "avx2"
    } else {
        "no"
    }
}

#[test]
fn info_names_the_unit_and_no_keeps_the_scalar_path() {
    for (setting, expected) in [("yes", expected_unit()), ("no", "no")] {
        let server = Server::with_setting("bf-vector-hashing", setting);
        let mut c = server.conn();
        assert_eq!(
            info_field(&mut c, "bf", "bf_vector_hashing"),
            expected,
            "bf-vector-hashing {setting}"
        );
        if feature::module_configs() {
            // Fixed at load: what it chose stays for the life of the module.
            let name = config_name(&mut c, "bf-vector-hashing");
            assert_eq!(c.call(&["CONFIG", "GET", &name]).array()[1].text(), setting);
            assert!(c.call(&["CONFIG", "SET", &name, "yes"]).is_error());
        }
    }
}

#[test]
fn a_bad_value_fails_the_load() {
    let log = Server::with(Module::RedisBf)
        .setting("bf-vector-hashing", "sometimes")
        .try_start()
        .err()
        .expect("the module must refuse bf-vector-hashing sometimes");
    assert!(log.contains("bf-vector-hashing"), "{log}");
}

#[test]
fn both_paths_count_the_same() {
    let servers = ["yes", "no"].map(|setting| Server::with_setting("bf-vector-hashing", setting));
    let mut conns = servers.each_ref().map(Server::conn);
    for depth in 1..=32 {
        for c in &mut conns {
            let depth = depth.to_string();
            assert_eq!(
                c.call(&["CMS.INITBYDIM", &format!("cms{depth}"), "97", &depth]),
                ok()
            );
            let topk = format!("topk{depth}");
            assert_eq!(
                c.call(&["TOPK.RESERVE", &topk, "5", "89", &depth, "0.9"]),
                ok()
            );
        }
    }
    let mut rng = Rng(50);
    for round in 0..600 {
        let length = round % 301;
        let item: Vec<u8> = (0..length).map(|_| rng.next() as u8).collect();
        let depth = (rng.below(32) + 1).to_string();
        let (cms, topk) = (format!("cms{depth}"), format!("topk{depth}"));
        let replies = conns.each_mut().map(|c| {
            [
                c.call_bytes(&[b"CMS.INCRBY", cms.as_bytes(), &item, b"3"]),
                c.call_bytes(&[b"TOPK.ADD", topk.as_bytes(), &item]),
                c.call_bytes(&[b"TOPK.COUNT", topk.as_bytes(), &item]),
            ]
        });
        assert_eq!(
            replies[0], replies[1],
            "item of length {length}, depth {depth}"
        );
    }
    for depth in 1..=32 {
        for key in [format!("cms{depth}"), format!("topk{depth}")] {
            let dumps = conns.each_mut().map(|c| c.call(&["DUMP", &key]));
            assert_eq!(dumps[0], dumps[1], "{key}");
        }
    }
}
