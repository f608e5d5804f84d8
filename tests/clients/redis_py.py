"""Drives redis-bf through redis-py's own Bloom and Cuckoo APIs (`r.bf()`, `r.cf()`), as
applications do.

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


def main() -> None:
    port = int(sys.argv[1])
    maps = sys.argv[2] == "maps" if len(sys.argv) > 2 else True
    for protocol in (2, 3):
        check(port, protocol, maps)
        check_cuckoo(port, protocol, maps)
    print("redis-py: RESP2 and RESP3 ok")


if __name__ == "__main__":
    main()
