//! Count-Min sketch helpers that suites of every concern use.

use super::{Conn, Value};

/// Sketches of every shape, built by the same commands on any server (RedisBloom's too, 2.8
/// or 8.12: no counter passes 4294967295): small and full, sized by probabilities, wide with
/// many items and binary ones, merged with weights, empty. Their keys.
pub fn build(c: &mut Conn) -> Vec<&'static str> {
    c.cmd("CMS.INITBYDIM small 3 2");
    c.cmd("CMS.INCRBY small a 1 b 5 c 4294967289 d 0");
    c.cmd("CMS.INITBYPROB prob 0.01 0.01");
    c.cmd("CMS.INITBYDIM wide 500 5");
    c.cmd("CMS.INITBYDIM other 500 5");
    for i in 0..300u64 {
        let (item, n) = (format!("item{i}"), (i * 7919 % 97).to_string());
        for key in ["prob", "wide"] {
            c.call(&["CMS.INCRBY", key, &item, &n]);
        }
        c.call(&["CMS.INCRBY", "other", &item, "3"]);
    }
    for key in ["prob", "wide"] {
        c.call_bytes(&[
            b"CMS.INCRBY",
            key.as_bytes(),
            b"",
            b"9",
            b"\x00\xff\r\n",
            b"4",
        ]);
    }
    c.cmd("CMS.INITBYDIM merged 500 5");
    c.cmd("CMS.MERGE merged 3 wide other wide WEIGHTS 2 3 -1");
    c.cmd("CMS.INITBYDIM empty 10 10");
    vec!["small", "prob", "wide", "other", "merged", "empty"]
}

/// Sketches of RedisBloom 8.12's every cell size, full and decremented, merged: their keys.
pub fn build_cell_sizes(c: &mut Conn) -> Vec<&'static str> {
    for (key, bytes) in [("one", "1"), ("two", "2"), ("four", "4"), ("eight", "8")] {
        c.call(&["CMS.INITBYDIM", key, "50", "4", "CELL_SIZE", bytes]);
        for i in 0..100u64 {
            c.call(&["CMS.INCRBY", key, &format!("item{i}"), &(i % 3).to_string()]);
        }
        c.call(&["CMS.INCRBY", key, "item1", "-1", "a", "200"]);
    }
    c.cmd("CMS.INCRBY eight b 9223372036854770000");
    c.cmd("CMS.INITBYPROB probed 0.01 0.01 cell_size 2");
    c.cmd("CMS.INITBYDIM merged2 50 4 CELL_SIZE 2");
    c.cmd("CMS.MERGE merged2 2 two two WEIGHTS 3 -1");
    vec!["one", "two", "four", "eight", "probed", "merged2"]
}

/// What a sketch answers: CMS.INFO and the estimates of its items and of strangers.
pub fn answers(c: &mut Conn, key: &str) -> Vec<Value> {
    let mut query = vec![b"CMS.QUERY".to_vec(), key.as_bytes().to_vec()];
    query.extend((0..300).map(|i| format!("item{i}").into_bytes()));
    query.extend((0..300).map(|i| format!("stranger{i}").into_bytes()));
    query.extend([b"a".to_vec(), b"b".to_vec(), b"c".to_vec(), b"d".to_vec()]);
    query.extend([Vec::new(), b"\x00\xff\r\n".to_vec()]);
    let query: Vec<&[u8]> = query.iter().map(Vec::as_slice).collect();
    vec![c.call(&["CMS.INFO", key]), c.call_bytes(&query)]
}
