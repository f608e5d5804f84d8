//! Top-K helpers that suites of every concern use.

use super::{Conn, Value};

/// Top-Ks of every shape, built by the same commands on any server (RedisBloom's too): the
/// defaults, decay 1 and decay below 1, heavy increments, one slot, untouched. Their keys.
/// Items are C strings (no NUL, not empty), which RedisBloom keeps through a reload.
pub fn build(c: &mut Conn) -> Vec<&'static str> {
    c.cmd("TOPK.RESERVE defaults 5");
    c.cmd("TOPK.RESERVE exact 10 20 4 1");
    c.cmd("TOPK.RESERVE decayed 10 50 5 0.9");
    c.cmd("TOPK.RESERVE heavy 3 8 3 1");
    c.cmd("TOPK.RESERVE one 1 4 2 1");
    c.cmd("TOPK.RESERVE empty 4");
    for i in 0..400u64 {
        let item = format!("item{}", zipf(i));
        for key in ["defaults", "exact", "decayed", "one"] {
            c.call(&["TOPK.ADD", key, &item]);
        }
        c.call(&["TOPK.INCRBY", "heavy", &item, &(i % 300).to_string()]);
    }
    vec!["defaults", "exact", "decayed", "heavy", "one", "empty"]
}

/// A skewed item index: small ones come often.
fn zipf(i: u64) -> u64 {
    let x = (i * 2_654_435_761) % 1000;
    1000 / (x + 1)
}

/// What a Top-K answers: TOPK.INFO, its list with counts, and membership and counts of
/// items and strangers.
pub fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    let probes: Vec<String> = (0..60)
        .map(|i| format!("item{i}"))
        .chain(["stranger".into()])
        .collect();
    let mut seen = vec![
        c.call(&["TOPK.INFO", key]),
        c.call(&["TOPK.LIST", key, "WITHCOUNT"]),
    ];
    for command in ["TOPK.QUERY", "TOPK.COUNT"] {
        let mut args = vec![command, key];
        args.extend(probes.iter().map(String::as_str));
        seen.push(c.call(&args));
    }
    seen
}

/// The fields of a `TopK-TYPE` DUMP payload made with `rdbcompression no`, with the heap
/// slots' item pointers (process addresses in RedisBloom's) zeroed, and without the trailer
/// (RDB version and CRC, which follow from the rest).
pub fn dump_without_pointers(payload: &[u8]) -> Vec<u8> {
    let mut out = payload[..payload.len() - 10].to_vec();
    let mut at = 10; // type byte, 0x81, the 8-byte type id
    let mut strings = 0;
    while at < out.len() - 1 {
        let opcode = out[at];
        at += 1;
        match opcode {
            2 => at += length(&out[at..]).1,
            4 => at += 8,
            5 => {
                let (len, skip) = length(&out[at..]);
                at += skip;
                strings += 1;
                if strings == 2 {
                    for slot in out[at..at + len as usize].chunks_mut(24) {
                        slot[8..16].fill(0);
                    }
                }
                at += len as usize;
            }
            other => panic!("opcode {other} at {at}: compressed, or not a Top-K payload"),
        }
    }
    out
}

/// An RDB length and the bytes it took.
fn length(bytes: &[u8]) -> (u64, usize) {
    match bytes[0] >> 6 {
        0 => (u64::from(bytes[0] & 0x3f), 1),
        1 => ((u64::from(bytes[0] & 0x3f) << 8) | u64::from(bytes[1]), 2),
        _ if bytes[0] == 0x80 => (
            u64::from(u32::from_be_bytes(bytes[1..5].try_into().unwrap())),
            5,
        ),
        _ => (u64::from_be_bytes(bytes[1..9].try_into().unwrap()), 9),
    }
}
