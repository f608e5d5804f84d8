"""Drives redis-bf through redis-py's Count-Min sketch and Top-K APIs (`r.cms()`, `r.topk()`),
with redis-py's own expectations (its tests/test_bloom.py: test_cms, test_cms_merge,
test_topk, test_topk_list_with_special_words, test_topk_incrby).

Run by tests/clients.rs: python3 redis_py_sketches.py PORT MAPS (as redis_py.py). Exits
non-zero, naming the failed check, if any reply is not what redis-py users get from RedisBloom.
"""
import sys
import warnings

import redis


def field(info, name: str, maps: bool):
    """A field of CMS.INFO or TOPK.INFO as redis-py hands it over: an object or a dict."""
    if isinstance(info, dict):
        return info[name] if name in info else info[name.encode()]
    if isinstance(info, list):  # RESP3 without module maps: a flat list
        fields = dict(zip(info[::2], info[1::2]))
        return fields[name.encode()]
    return getattr(info, name)


def texts(reply):
    """Items as text: redis-py decodes TOPK replies under RESP2 (`parse_to_list`), not RESP3."""
    return [x.decode() if isinstance(x, bytes) else x for x in reply]


def check(port: int, protocol: int, maps: bool) -> None:
    r = redis.Redis(host="127.0.0.1", port=port, protocol=protocol)
    r.flushall()
    cms, topk = r.cms(), r.topk()
    # test_cms.
    assert cms.initbydim("dim", 1000, 5)
    assert cms.initbyprob("prob", 0.01, 0.01)
    assert cms.incrby("dim", ["foo"], [5])
    assert cms.query("dim", "notexist") == [0]
    assert cms.query("dim", "foo") == [5]
    assert cms.incrby("dim", ["foo", "bar"], [5, 15]) == [10, 15]
    assert cms.query("dim", "foo", "bar") == [10, 15]
    info = cms.info("dim")
    assert (field(info, "width", maps), field(info, "depth", maps)) == (1000, 5), info
    assert field(info, "count", maps) == 25, info
    # test_cms_merge.
    for key in "ABC":
        assert cms.initbydim(key, 1000, 5)
    assert cms.incrby("A", ["foo", "bar", "baz"], [5, 3, 9])
    assert cms.incrby("B", ["foo", "bar", "baz"], [2, 3, 1])
    assert cms.merge("C", 2, ["A", "B"])
    assert cms.query("C", "foo", "bar", "baz") == [7, 6, 10]
    assert cms.merge("C", 2, ["A", "B"], ["1", "2"])
    assert cms.query("C", "foo", "bar", "baz") == [9, 9, 11]
    assert cms.merge("C", 2, ["A", "B"], ["2", "3"])
    assert cms.query("C", "foo", "bar", "baz") == [16, 15, 21]
    # test_topk.
    assert topk.reserve("topk", 3, 50, 4, 0.9)
    stream = "A B C D E A A B C G D B D A E E".split() + [1]
    expelled = [None, None, None, "A", "C", "D", None, None, "E", None, "B", "C", None, None,
                None, "D", None]
    assert texts(topk.add("topk", *stream)) == expelled
    assert [int(x) for x in topk.query("topk", *"ABCDEFG")] == [1, 1, 0, 0, 1, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert topk.count("topk", *"ABCDEFG") == [4, 3, 2, 3, 3, 0, 1]
    assert topk.reserve("topklist", 3, 50, 3, 0.9)
    assert topk.add("topklist", *stream[:-1])
    assert texts(topk.list("topklist")) == ["A", "B", "E"]
    assert texts(topk.list("topklist", withcount=True)) == ["A", 4, "B", 3, "E", 3]
    info = topk.info("topklist")
    assert (field(info, "k", maps), field(info, "width", maps)) == (3, 50), info
    assert field(info, "depth", maps) == 3 and round(float(field(info, "decay", maps)), 1) == 0.9
    # test_topk_list_with_special_words.
    assert topk.reserve("special", 5, 20, 4, 0.9)
    words = ("infinity B nan D -infinity infinity infinity B nan G D B D infinity -infinity "
             "-infinity").split()
    assert topk.add("special", *words)
    listed = ["infinity", "B", "D", "-infinity", "nan"]
    assert texts(topk.list("special")) == listed, topk.list("special")
    # test_topk_incrby.
    assert topk.reserve("inc", 3, 10, 3, 1)
    assert topk.incrby("inc", ["bar", "baz", "42"], [3, 6, 2]) == [None, None, None]
    assert texts(topk.incrby("inc", ["42", "xyzzy"], [8, 4])) == [None, "bar"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert topk.count("inc", "bar", "baz", "42", "xyzzy", 4) == [3, 6, 10, 4, 0]


def main() -> None:
    port = int(sys.argv[1])
    maps = sys.argv[2] == "maps" if len(sys.argv) > 2 else True
    for protocol in (2, 3):
        check(port, protocol, maps)
    print("redis-py: CMS and Top-K, RESP2 and RESP3 ok")


if __name__ == "__main__":
    main()
