"""Drives redis-bf through redis-py's own Bloom API (`r.bf()`), as applications do.

Run by tests/clients.rs with the port of a server it started: python3 redis_py.py PORT MAPS,
MAPS being "maps", or "flat" on servers whose modules cannot send RESP3 maps (Redis 6.x):
there redis-py gets BF.INFO as a flat list under RESP3, as from RedisBloom.
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


def main() -> None:
    port = int(sys.argv[1])
    maps = sys.argv[2] == "maps" if len(sys.argv) > 2 else True
    for protocol in (2, 3):
        check(port, protocol, maps)
    print("redis-py: RESP2 and RESP3 ok")


if __name__ == "__main__":
    main()
