"""Drives redis-bf on a cluster through redis-py's cluster client (`RedisCluster`): every family
through `rc.bf()`, `rc.cf()`, `rc.cms()`, `rc.topk()` and `rc.tdigest()` on keys spread over
every primary, merges under one hash tag, and merges across slots refused.

Run by tests/clients.rs: python3 redis_py_cluster.py PORT PROTOCOLS, PORT a node of a cluster
it started, PROTOCOLS "2" or "2,3". Exits non-zero, naming the failed check, if any reply is
not the expected one.
"""
import sys

from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException, ResponseError


def check(port: int, protocol: int) -> None:
    rc = RedisCluster(host="127.0.0.1", port=port, protocol=protocol)
    rc.flushall()
    bf, cf, cms, topk, td = rc.bf(), rc.cf(), rc.cms(), rc.topk(), rc.tdigest()
    keys = [f"key{i}" for i in range(12)]
    owners = {rc.get_node_from_key(key).name for key in keys}
    assert len(owners) == len(rc.get_primaries()), f"keys on {owners} only"
    for i, key in enumerate(keys):
        assert bf.add(f"bf:{key}", "a") == 1, "BF.ADD"
        assert bf.mexists(f"bf:{key}", "a", "b") == [1, 0], "BF.MEXISTS"
        assert cf.add(f"cf:{key}", "a") == 1, "CF.ADD"
        assert cf.count(f"cf:{key}", "a") == 1, "CF.COUNT"
        assert cms.initbydim(f"cms:{key}", 100, 3), "CMS.INITBYDIM"
        assert cms.incrby(f"cms:{key}", ["a"], [i + 1]) == [i + 1], "CMS.INCRBY"
        assert topk.reserve(f"topk:{key}", 3, 20, 3, 0.9), "TOPK.RESERVE"
        topk.add(f"topk:{key}", "a", "b", "a")
        assert topk.query(f"topk:{key}", "a") == [1], "TOPK.QUERY"
        assert td.create(f"td:{key}"), "TDIGEST.CREATE"
        assert td.add(f"td:{key}", [1, 2, i + 3]), "TDIGEST.ADD"
        assert td.max(f"td:{key}") == i + 3, "TDIGEST.MAX"

    # One hash tag: the merges run where the tag lives.
    assert cms.initbydim("{t}total", 100, 3)
    assert cms.initbydim("{t}day", 100, 3)
    assert cms.incrby("{t}day", ["x"], [2]) == [2]
    assert cms.merge("{t}total", 2, ["{t}day", "{t}day"], [1, 3]), "CMS.MERGE"
    assert cms.query("{t}total", "x") == [8], "CMS.MERGE's sum"
    assert td.create("{t}minute")
    assert td.add("{t}minute", [5, 6])
    assert td.merge("{t}hour", 1, "{t}minute"), "TDIGEST.MERGE"
    assert td.max("{t}hour") == 6, "TDIGEST.MERGE's digest"

    # Sources of another slot: refused, by the client (COMMAND GETKEYS names every key) or by
    # the server (CROSSSLOT), and nothing changes.
    assert cms.initbydim("{u}day", 100, 3)
    assert td.create("{u}minute")
    for name, merge in [
        ("CMS.MERGE", lambda: cms.merge("{t}total", 2, ["{t}day", "{u}day"])),
        ("TDIGEST.MERGE", lambda: td.merge("{t}hour", 2, "{t}minute", "{u}minute")),
    ]:
        try:
            merge()
        except (RedisClusterException, ResponseError) as error:
            assert "slot" in str(error).lower(), f"{name}: {error}"
        else:
            raise AssertionError(f"{name} across slots ran")
    assert cms.query("{t}total", "x") == [8], "a refused merge changed nothing"
    rc.close()


def main() -> None:
    port = int(sys.argv[1])
    for protocol in sys.argv[2].split(","):
        try:
            check(port, int(protocol))
        except AssertionError as failure:
            sys.exit(f"redis-py cluster, RESP{protocol}: {failure}")


if __name__ == "__main__":
    main()
