//! Count-Min sketch helpers that suites of every concern use.

use super::{Conn, Value};

/// Sketches of every shape, built by the same commands on any server (RedisBloom's too):
/// small and saturated, sized by probabilities, wide with many items and binary ones, merged
/// with weights, empty. Their keys.
pub fn build(c: &mut Conn) -> Vec<&'static str> {
    c.cmd("CMS.INITBYDIM small 3 2");
    c.cmd("CMS.INCRBY small a 1 b 5 c 4294967295 d 0");
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
