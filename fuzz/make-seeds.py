#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/seeds/<target>/) from real artefacts.

The values of RedisBloom's types (MBbloom--, MBbloomCF, CMSk-TYPE, TopK-TYPE, TDIS-TYPE) are
made by RedisBloom itself (Top-Ks with binary items by redis-bf too, which saves them whole), the
fast layout's (bfblocked) by redis-bf, each on a redis-server of its own: their DUMP payloads
seed the RDB targets, their SCANDUMP streams (in fuzz/src/stream.rs's format) the SCANDUMP
targets. The argument targets get a few command lines and numbers written out here.

Usage: fuzz/make-seeds.py REDISBLOOM_SO REDIS_BF_SO   (`make fuzz-seeds` passes both)
The seeds are small on purpose: libFuzzer grows its own corpus from them.
"""

import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "seeds")
SERVER = os.environ.get("SERVER", "redis-server")


class Server:
    """A redis-server on a free loopback port, with one module loaded (and its arguments)."""

    def __init__(self, *module):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.dir = tempfile.mkdtemp(prefix="redis-bf-seeds-")
        self.process = subprocess.Popen(
            [SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.dir, "--loadmodule", *module],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port))
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise SystemExit(f"{SERVER} did not start with {module[0]}")
        self.buffer = b""

    def close(self):
        self.sock.close()
        self.process.terminate()
        self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __call__(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
        self.sock.sendall(b"".join(parts))
        return self.reply()

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise SystemExit("the server closed the connection")
        self.buffer += chunk

    def _read(self, n):
        while len(self.buffer) < n:
            self._fill()
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _line(self):
        while b"\r\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest
        if kind == b"-":
            raise SystemExit(f"server error: {rest.decode()}")
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._read(n + 2)[:-2]
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise SystemExit(f"unexpected reply {line!r}")


def stream(server, family, key):
    """The SCANDUMP stream of a key: header, then every chunk, as fuzz/src/stream.rs reads it;
    None for an empty Cuckoo filter, which RedisBloom does not dump."""
    it, header = server(f"{family}.SCANDUMP", key, 0)
    if header is None:
        return None
    out = struct.pack("<I", len(header)) + header
    while True:
        it, data = server(f"{family}.SCANDUMP", key, it)
        if it == 0:
            return out
        out += struct.pack("<qI", it, len(data)) + data


def write(target, name, data):
    if data is None:
        return
    folder = os.path.join(SEEDS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def add(server, family, key, count, start=0):
    for i in range(start, start + count):
        server(f"{family}.ADD", key, f"item:{i}")


def bloom_filters(server):
    """Assorted Bloom filters, made on `server`: their keys."""
    made = []

    def reserve(name, *args, items=0):
        server("BF.RESERVE", name, *args)
        add(server, "BF", name, items)
        made.append(name)

    reserve("empty", "0.01", 10)
    reserve("small", "0.01", 10, items=5)
    reserve("loose", "0.2", 8, items=8)
    reserve("tight", "0.0001", 4, items=3)
    reserve("scaled", "0.1", 4, items=20)  # several links
    reserve("scaled-x4", "0.05", 4, "EXPANSION", 4, items=30)
    reserve("scaled-x1", "0.1", 4, "EXPANSION", 1, items=12)
    reserve("nonscaling", "0.01", 16, "NONSCALING", items=16)
    return made


def cuckoo_filters(server):
    """Assorted Cuckoo filters, made on `server`: their keys."""
    made = []

    def reserve(name, *args, items=0, deletes=0):
        server("CF.RESERVE", name, *args)
        add(server, "CF", name, items)
        for i in range(deletes):
            server("CF.DEL", name, f"item:{i}")
        made.append(name)

    reserve("empty", 8)
    reserve("small", 8, items=3)
    reserve("deletes", 8, items=6, deletes=2)
    reserve("bucket1", 8, "BUCKETSIZE", 1, items=4)
    reserve("bucket4", 16, "BUCKETSIZE", 4, "MAXITERATIONS", 5, items=10)
    reserve("scaled", 4, "EXPANSION", 2, items=20)  # several sub-filters
    reserve("scaled-x1", 4, "EXPANSION", 1, items=12)
    reserve("nonscaling", 4, "EXPANSION", 0, items=4)
    reserve("odd-buckets", 6, "BUCKETSIZE", 3, items=7)
    return made


def sketches(server):
    """Assorted Count-Min sketches, made on `server`: their keys."""
    server("CMS.INITBYDIM", "small", 3, 2)
    server("CMS.INCRBY", "small", "item:0", 1, "item:1", 4000000000)
    server("CMS.INITBYPROB", "prob", "0.1", "0.05")
    server("CMS.INITBYDIM", "wide", 64, 4)
    for i in range(40):
        for key in ("prob", "wide"):
            server("CMS.INCRBY", key, f"item:{i}", i)
    server("CMS.INITBYDIM", "merged", 64, 4)
    server("CMS.MERGE", "merged", 2, "wide", "merged", "WEIGHTS", 3, 1)
    server("CMS.INITBYDIM", "empty", 5, 5)
    return ["small", "prob", "wide", "merged", "empty"]


def forgetting_sketches(server):
    """Count-Min sketches that forget, by count and by time, made on redis-bf: their keys."""
    server("CMS.INITBYDIM", "count", 16, 3, "WINDOW", 50, "SLOTS", 2)
    server("CMS.INITBYDIM", "time", 16, 3, "TIMESPAN", 60000)
    server("CMS.INITBYDIM", "merged", 16, 3, "TIMESPAN", 60000)
    server("CMS.INITBYDIM", "tiny", 1, 1, "TIMESPAN", 1, "SLOTS", 1)
    for i in range(120):
        for key in ("count", "time", "tiny"):
            server("CMS.INCRBY", key, f"item:{i % 30}", i % 7)
    server("CMS.MERGE", "merged", 2, "time", "merged", "WEIGHTS", 2, 1)
    return ["count", "time", "merged", "tiny"]


def forgetting_top_ks(server):
    """Top-Ks that forget, by count and by time, made on redis-bf: their keys."""
    server("TOPK.RESERVE", "count", 4, 8, 3, "0.9", "WINDOW", 50, "SLOTS", 2)
    server("TOPK.RESERVE", "time", 4, 8, 3, "0.8", "TIMESPAN", 60000)
    server("TOPK.RESERVE", "one", 2, 4, 2, 1, "TIMESPAN", 1, "SLOTS", 1)
    for i in range(120):
        for key in ("count", "time", "one"):
            server("TOPK.INCRBY", key, f"item:{i % 20}", i % 5)
    server("TOPK.INCRBY", "time", "n\0ul", 300, "", 200)
    return ["count", "time", "one"]


def top_ks(server, binary=False):
    """Assorted Top-Ks, made on `server` at decay 1 and below: their keys."""
    server("TOPK.RESERVE", "defaults", 4)
    server("TOPK.RESERVE", "exact", 5, 8, 3, 1)
    server("TOPK.RESERVE", "one", 1, 2, 1, 1)
    server("TOPK.RESERVE", "empty", 3, 4, 2, "0.9")
    for i in range(60):
        for key in ("defaults", "exact", "one"):
            server("TOPK.ADD", key, f"item:{i * i % 11}")
    server("TOPK.INCRBY", "exact", "item:3", 500)
    made = ["defaults", "exact", "one", "empty"]
    if binary:
        server("TOPK.RESERVE", "binary", 3, 8, 7, 1)
        server("TOPK.INCRBY", "binary", b"", 1, b"x\0y", 2, b"item:0", 1)
        made.append("binary")
    return made


ARGS_NUMBERS = [
    b"0", b"1", b"-1", b"100", b"9223372036854775807", b"-9223372036854775808", b"007",
    b"0.01", b"1e-3", b"0.25", b"0.9999", b"1e400", b"-0.0", b"inf", b"nan", b"0x1p-4",
    b" 1", b"1 ", b"classic", b"FAST",
]

BF_ARGS = [
    "BF.RESERVE k 0.01 100",
    "BF.RESERVE k 0.001 1000 EXPANSION 4",
    "BF.RESERVE k 0.5 10 NONSCALING",
    "BF.RESERVE k 0.01 100 LAYOUT fast",
    "BF.RESERVE k 0.01 100 EXPANSION 0",
    "BF.INSERT k ITEMS a b",
    "BF.INSERT k CAPACITY 1000 ERROR 0.001 ITEMS a",
    "BF.INSERT k NOCREATE ITEMS a",
    "BF.INSERT k EXPANSION 3 NONSCALING LAYOUT classic ITEMS a b c",
    "BF.INSERT k ERROR 0.3 CAPACITY 5 ITEMS x",
    # valkey-bloom's options (`bf-flavour valkey-bloom`, or TIGHTENING/SEED/VALIDATESCALETO).
    "BF.INSERT k TIGHTENING 0.5 CAPACITY 10 EXPANSION 3 ITEMS a b",
    "BF.INSERT k VALIDATESCALETO 1000 ERROR 0.001",
    "BF.INSERT k SEED 0123456789abcdef0123456789abcdef NONSCALING ITEMS a",
    "BF.MERGE d 2 a b",
    "BF.MERGE d 1 a OVERFILL",
]

CF_ARGS = [
    "CF.RESERVE k 1000",
    "CF.RESERVE k 1000 BUCKETSIZE 4 MAXITERATIONS 500 EXPANSION 2",
    "CF.RESERVE k 100 expansion 0 bucketsize 1",
    "CF.RESERVE k 4 BUCKETSIZE 2",
    "CF.INSERT k ITEMS a b",
    "CF.INSERT k CAPACITY 1000 NOCREATE ITEMS a",
    "CF.INSERTNX k cap 20 c 40 i x",
    "CF.INSERT k NOCREATE ITEMS a",
    "CF.MERGE d 2 a b",
]


def tdigests(server):
    """Assorted t-digests, made on `server`: their keys. DUMP compresses them, so each payload
    holds centroids only, but for the one of a single observation (RedisBloom keeps it in
    min and max) and the empty ones."""
    shapes = {
        "empty": (100, []),
        "single": (7, [42.5]),
        "small": (10, [3, 1, 2, 2]),
        "zeros": (3, ["-0", 0, "-0", 0, 1, -1]),
        "equal": (5, [7] * 200),
        "spread": (20, [i * 37 % 1000 / 10 for i in range(600)]),
        "wide": (1, [1e300, -1e300, 1e-300, 0, 5]),
    }
    for key, (compression, values) in shapes.items():
        server("TDIGEST.CREATE", key, "COMPRESSION", compression)
        if values:
            server("TDIGEST.ADD", key, *values)
    server("TDIGEST.MERGE", "merged", 3, "small", "spread", "single", "COMPRESSION", 15)
    server("TDIGEST.CREATE", "reset", "COMPRESSION", 2)
    server("TDIGEST.ADD", "reset", 1, 2, 3)
    server("TDIGEST.RESET", "reset")
    return list(shapes) + ["merged", "reset"]


TDIGEST_ARGS = [
    "TDIGEST.CREATE k",
    "TDIGEST.CREATE k COMPRESSION 100",
    "TDIGEST.CREATE k 100 COMPRESSION",
    "TDIGEST.MERGE d 2 a b COMPRESSION 50 OVERRIDE",
    "TDIGEST.MERGE d 1 a override foo",
    "TDIGEST.ADD k 1 2.5 -0 1e308 inf 0x1p3",
    "TDIGEST.QUANTILE k 0 0.5 1 -0",
    "TDIGEST.BYRANK k 0 1 9223372036854775807",
    "TDIGEST.TRIMMED_MEAN k 0.1 0.9",
]


CMS_ARGS = [
    "CMS.INITBYDIM k 10 5",
    "CMS.INITBYDIM k 4294967296 65536",
    "CMS.INITBYPROB k 0.01 0.001",
    "CMS.INITBYPROB k 0.22 0.249999999",
    "CMS.INCRBY k a 1 b 4294967296",
    "CMS.INCRBY k a -1 b x",
    "CMS.MERGE d 2 a b",
    "CMS.MERGE d 2 a b WEIGHTS 2 -1",
    "CMS.MERGE d 1 weights",
    "CMS.INITBYDIM k 10 5 WINDOW 100",
    "CMS.INITBYDIM k 10 5 TIMESPAN 60000 SLOTS 8",
    "CMS.INITBYPROB k 0.01 0.01 TIMESPAN 1 slots 1",
    "CMS.INITBYDIM k 10 5 CELL_SIZE 2 WINDOW 100",
]

TOPK_ARGS = [
    "TOPK.RESERVE k 10",
    "TOPK.RESERVE k 5 8 7 0.9",
    "TOPK.RESERVE k 4294967296 1 1 1",
    "TOPK.INCRBY k a 1 b 100000",
    "TOPK.INCRBY k a 1 b -1",
    "TOPK.LIST k WITHCOUNT",
    "TOPK.LIST k w",
    "TOPK.LIST k",
    "TOPK.RESERVE k 10 WINDOW 100",
    "TOPK.RESERVE k 5 8 7 0.9 TIMESPAN 60000 SLOTS 8",
    "TOPK.RESERVE k 3 timespan 1 slots 1",
    "TOPK.RESERVE k 3 SLOTS 2 WINDOW 5",
]


def sketch_seeds(redisbloom, redis_bf):
    """The CMS and Top-K targets' seeds."""
    server = Server(redisbloom)
    try:
        for key in sketches(server):
            write("cms_rdb", key, server("DUMP", key))
        server("FLUSHALL")
        for key in top_ks(server):
            write("topk_rdb", key, server("DUMP", key))
    finally:
        server.close()
    server = Server(redis_bf)
    try:
        for key in top_ks(server, binary=True):
            write("topk_rdb", f"ours-{key}", server("DUMP", key))
        server("FLUSHALL")
        for key in forgetting_sketches(server):
            write("cms_window", key, server("DUMP", key))
        server("FLUSHALL")
        for key in forgetting_top_ks(server):
            write("topk_window", key, server("DUMP", key))
    finally:
        server.close()
    for i, line in enumerate(CMS_ARGS):
        write("cms_args", f"{i:02}", line.replace(" ", "\n").encode())
    for i, line in enumerate(TOPK_ARGS):
        write("topk_args", f"{i:02}", line.replace(" ", "\n").encode())


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    redisbloom, redis_bf = map(os.path.abspath, sys.argv[1:])
    shutil.rmtree(SEEDS, ignore_errors=True)

    server = Server(redisbloom)
    try:
        for key in bloom_filters(server):
            write("bf_rdb_classic", key, server("DUMP", key))
            write("bf_scandump", key, stream(server, "BF", key))
        server("FLUSHALL")
        for key in cuckoo_filters(server):
            write("cf_rdb", key, server("DUMP", key))
            write("cf_scandump", key, stream(server, "CF", key))
        server("FLUSHALL")
        for key in tdigests(server):
            write("tdigest_rdb", key, server("DUMP", key))
    finally:
        server.close()

    server = Server(redis_bf, "bf-layout", "fast")
    try:
        for key in bloom_filters(server):
            write("bf_rdb_fast", key, server("DUMP", key))
            write("bf_scandump", f"fast-{key}", stream(server, "BF", key))
    finally:
        server.close()

    for i, number in enumerate(ARGS_NUMBERS):
        write("args_numbers", f"{i:02}", number)
    for i, line in enumerate(BF_ARGS):
        write("bf_args", f"{i:02}", line.replace(" ", "\n").encode())
    for i, line in enumerate(CF_ARGS):
        write("cf_args", f"{i:02}", line.replace(" ", "\n").encode())
    for i, line in enumerate(TDIGEST_ARGS):
        write("tdigest_args", f"{i:02}", line.replace(" ", "\n").encode())
    sketch_seeds(redisbloom, redis_bf)


if __name__ == "__main__":
    main()
