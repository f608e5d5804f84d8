"""Drives redis-bf through redis-py's own Bloom, Cuckoo and t-digest APIs (`r.bf()`, `r.cf()`,
`r.tdigest()`), as applications do.

Run by tests/clients.rs with the port of a server it started: python3 redis_py.py PORT MAPS,
MAPS being "maps", or "flat" on servers whose modules cannot send RESP3 maps (Redis 6.x):
there redis-py gets BF.INFO and CF.INFO as flat lists under RESP3, as from RedisBloom.
Exits non-zero, naming the failed check, if any reply is not what redis-py users get from
RedisBloom.
"""
import sys

import redis


def check(port: int, protocol: int, maps: bool) -> None:
    r = redis.Redis(host="127.0.0.1", port=port, protocol=protocol)
    r.flushall()
    bf = r.bf()
    assert bf.create("seen", 0.01, 1000) is True or bf.info("seen")
    assert bf.add("seen", "user:42") in (1, True)
    assert bf.add("seen", "user:42") in (0, False)
    assert [int(x) for x in bf.madd("seen", "a", "b", "user:42")] == [1, 1, 0]
    assert int(bf.exists("seen", "a")) == 1
    assert int(bf.exists("seen", "zzz")) == 0
    assert [int(x) for x in bf.mexists("seen", "a", "zzz")] == [1, 0]
    assert bf.card("seen") == 3
    assert [int(x) for x in bf.insert("ins", ["x", "y"], capacity=2, noScale=True)] == [1, 1]
    info = bf.info("seen")
    if protocol == 2:  # redis-py parses RESP2 into an object, RESP3 into a dict
        assert (info.capacity, info.insertedNum, info.filterNum, info.expansionRate) == (1000, 3, 1, 2)
    elif maps:
        assert info[b"Capacity"] == 1000 and info[b"Number of items inserted"] == 3, info
    else:
        assert info == [b"Capacity", 1000, b"Size", info[3], b"Number of filters", 1,
                        b"Number of items inserted", 3, b"Expansion rate", 2], info
    # Moving a filter with SCANDUMP/LOADCHUNK, as the redis-py docs show.
    chunks, it = [], 0
    while True:
        it, data = bf.scandump("seen", it)
        if it == 0:
            break
        chunks.append((it, data))
    for it, data in chunks:
        bf.loadchunk("copy", it, data)
    assert [int(x) for x in bf.mexists("copy", "a", "b", "user:42", "zzz")] == [1, 1, 1, 0]
    # BF.MERGE (ours) has no redis-py method: execute_command.
    bf.create("more", 0.01, 1000)
    bf.add("more", "c")
    assert r.execute_command("BF.MERGE", "merged", 2, "seen", "more") in (True, b"OK")
    assert [int(x) for x in bf.mexists("merged", "a", "c", "zzz")] == [1, 1, 0]
    try:
        bf.add("ins", "z")
        raise AssertionError("a full non-scaling filter accepted an item")
    except redis.ResponseError as e:
        assert str(e) == "non scaling filter is full", str(e)


def check_cuckoo(port: int, protocol: int, maps: bool) -> None:
    r = redis.Redis(host="127.0.0.1", port=port, protocol=protocol)
    r.flushall()
    cf = r.cf()
    # redis-py's test_create / test_bf_reserve.
    assert cf.create("cuckoo", 1000)
    assert cf.create("cuckoo_e", 1000, expansion=1)
    assert cf.create("cuckoo_bs", 1000, bucket_size=4)
    assert cf.create("cuckoo_mi", 1000, max_iterations=10)
    assert cf.reserve("cuckoo_r", 1000)
    # test_cf_add_and_insert.
    assert cf.add("cuckoo", "filter") in (1, True)
    assert not cf.addnx("cuckoo", "filter")
    assert cf.addnx("cuckoo", "newItem") in (1, True)
    assert [int(x) for x in cf.insert("captest", ["foo"])] == [1]
    assert [int(x) for x in cf.insert("captest", ["foo"], capacity=1000)] == [1]
    assert [int(x) for x in cf.insertnx("captest", ["bar"])] == [1]
    assert [int(x) for x in cf.insertnx("captest", ["food"], nocreate="1")] == [1]
    assert [int(x) for x in cf.insertnx("captest", ["bar", "food", "baz"])] == [0, 0, 1]
    try:
        cf.insert("nocreate", ["x"], nocreate=True)
        raise AssertionError("NOCREATE created a filter")
    except redis.ResponseError as e:
        assert str(e) == "not found", str(e)
    info = cf.info("captest")
    if protocol == 2:  # redis-py parses RESP2 into an object, RESP3 into a dict
        assert (info.insertedNum, info.deletedNum, info.filterNum) == (5, 0, 1), vars(info)
        assert (info.size, info.bucketNum, info.bucketSize) == (1080, 512, 2)
        assert (info.expansionRate, info.maxIteration) == (1, 20)
    elif maps:
        assert info[b"Number of items inserted"] == 5, info
        assert info[b"Number of items deleted"] == 0 and info[b"Number of filters"] == 1
    else:
        fields = dict(zip(info[::2], info[1::2]))
        assert fields[b"Number of items inserted"] == 5, info
        assert fields[b"Number of items deleted"] == 0 and fields[b"Number of filters"] == 1
    # test_cf_exists_and_del.
    assert int(cf.exists("captest", "foo")) == 1
    assert int(cf.exists("captest", "noexist")) == 0
    assert [int(x) for x in cf.mexists("captest", "foo", "noexist")] == [1, 0]
    assert cf.count("captest", "foo") == 2
    assert cf.count("captest", "bar") == 1
    assert cf.delete("captest", "bar") in (1, True)
    assert cf.count("captest", "bar") == 0
    assert not cf.delete("captest", "bar")
    try:
        cf.delete("missing", "x")
        raise AssertionError("CF.DEL of a missing key succeeded")
    except redis.ResponseError as e:
        assert str(e) == "Not found", str(e)
    # Moving a filter with SCANDUMP/LOADCHUNK.
    chunks, it = [], 0
    while True:
        it, data = cf.scandump("captest", it)
        if it == 0:
            break
        chunks.append((it, data))
    assert len(chunks) == 2
    for it, data in chunks:
        assert cf.loadchunk("copy", it, data) in (b"OK", "OK", True)
    assert [int(x) for x in cf.mexists("copy", "foo", "food", "baz", "bar")] == [1, 1, 1, 0]
    # A full filter.
    cf.create("full", 4, expansion=0)
    for item in ("1", "2", "3", "4"):
        cf.add("full", item)
    # RESP3's false, or RESP2's -1 where modules have no RESP3 replies (`maps` off).
    no_room = [0, 0] if protocol == 3 and maps else [-1, -1]
    assert [int(x) for x in cf.insert("full", ["5", "6"])] == no_room
    assert [int(x) for x in cf.insertnx("full", ["5"])] == [-1]
    try:
        cf.add("full", "5")
        raise AssertionError("a full filter accepted an item")
    except redis.ResponseError as e:
        assert str(e) == "Filter is full", str(e)
    # The doctests (dt_cuckoo.py, home_prob_dts.py).
    assert cf.reserve("bikes:models", 1000000)
    assert cf.add("bikes:models", "Smoky Mountain Striker") in (1, True)
    assert int(cf.exists("bikes:models", "Smoky Mountain Striker")) == 1
    assert int(cf.exists("bikes:models", "Terrible Bike Name")) == 0
    assert cf.delete("bikes:models", "Smoky Mountain Striker") in (1, True)
    # CF.MERGE (ours) has no redis-py method: execute_command.
    assert cf.add("bikes:models", "Hillcraft") in (1, True)
    assert r.execute_command("CF.MERGE", "bikes:all", 2, "bikes:models", "bikes:models") in (True, b"OK")
    assert cf.count("bikes:all", "Hillcraft") == 2


def check_tdigest(port: int, protocol: int, maps: bool) -> None:
    """redis-py's t-digest tests (tests/test_bloom.py), replies as RedisBloom gives them."""
    r = redis.Redis(host="127.0.0.1", port=port, protocol=protocol)
    r.flushall()
    td = r.tdigest()
    assert td.create("tDigest", 100)
    assert td.create("to-reset", 10)
    td.add("to-reset", list(range(10)))
    assert td.reset("to-reset") in (b"OK", "OK", True)
    reset_min = float(td.min("to-reset"))
    assert reset_min != reset_min, reset_min  # NaN: empty
    # test_tdigest_merge.
    td.create("to-tDigest", 10)
    td.create("from-tDigest", 10)
    td.add("from-tDigest", [1.0] * 10)
    assert td.merge("to-tDigest", 1, "from-tDigest") in (b"OK", "OK", True)
    td.add("from-tDigest", [1.0] * 10)
    td.merge("to-tDigest", 1, "from-tDigest")
    assert td.max("to-tDigest") == 1.0 and td.min("to-tDigest") == 1.0
    td.create("from-override", 10)
    td.create("from-override-2", 10)
    td.add("from-override", [3.0] * 10)
    td.add("from-override-2", [4.0] * 10)
    td.merge("to-tDigest", 2, "from-override", "from-override-2", override=True)
    assert td.min("to-tDigest") == 3.0 and td.max("to-tDigest") == 4.0
    td.merge("to-tDigest", 1, "from-override", compression=30)
    info = td.info("to-tDigest")
    if protocol == 2:
        assert (info.compression, info.capacity) == (30, 190), vars(info)
    elif maps:
        assert info[b"Compression"] == 30, info
    # test_tdigest_min_and_max, test_tdigest_quantile, test_tdigest_cdf.
    td.create("q", 100)
    td.add("q", [1, 2, 3, 4, 5])
    assert (td.min("q"), td.max("q")) == (1.0, 5.0)
    assert [float(x) for x in td.quantile("q", 0.5, 0.8)] == [3.0, 5.0]
    td.create("c", 100)
    td.add("c", list(range(1, 10)))
    assert [round(float(x), 1) for x in td.cdf("c", 1.0, 0.0)] == [0.1, 0.0]
    assert [float(x) for x in td.cdf("c", 9.0)] == [1.0 - 0.5 / 9]
    # test_tdigest_trimmed_mean.
    assert float(td.trimmed_mean("c", 0.1, 0.9)) == 5.0
    assert float(td.trimmed_mean("c", 0.4, 0.5)) == 4.5
    # test_tdigest_rank, _revrank, _byrank, _byrevrank.
    td.create("r", 500)
    td.add("r", list(range(0, 20)))
    assert td.rank("r", -1) == [-1] and td.rank("r", 0) == [0] and td.rank("r", 10) == [10]
    assert td.rank("r", 15, 20) == [15, 20]
    assert td.revrank("r", 20) == [-1] and td.revrank("r", 19) == [0]
    assert td.byrank("r", 0) == [0.0] and td.byrank("r", 1) == [1.0]
    assert td.byrank("r", 20) == [float("inf")]
    assert td.byrevrank("r", 0) == [19.0] and td.byrevrank("r", 20) == [float("-inf")]
    empty = float(td.quantile("tDigest", 0.5)[0])
    assert empty != empty, empty  # NaN
    try:
        td.add("missing", [1])
        raise AssertionError("ADD to a missing key succeeded")
    except redis.ResponseError as e:
        assert str(e) == "T-Digest: key does not exist", str(e)


def main() -> None:
    port = int(sys.argv[1])
    maps = sys.argv[2] == "maps" if len(sys.argv) > 2 else True
    for protocol in (2, 3):
        check(port, protocol, maps)
        check_cuckoo(port, protocol, maps)
        check_tdigest(port, protocol, maps)
    print("redis-py: RESP2 and RESP3 ok")


if __name__ == "__main__":
    main()
