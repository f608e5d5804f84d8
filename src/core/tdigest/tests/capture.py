#!/usr/bin/env python3
"""Captures the golden runs of src/core/tdigest/tests/ from a real RedisBloom.

Usage: capture.py SOCKET FIRST_SEED LAST_SEED [TRANSCRIPT_DIR]
       capture.py SOCKET scenarios


Connects (RESP3, so doubles keep their bits: Redis 7.0 prints them with %.17g) to a server
that has RedisBloom loaded, runs each seed's random command stream on fresh keys, and prints
`(seed, 0x<FNV-1a 64 of the transcript>),` per seed. With TRANSCRIPT_DIR it also writes each
transcript, to diff against the one the Rust test writes on a mismatch.

The stream is drawn from xorshift64 exactly as `random_run` in runs.rs draws it; the
transcript has one line per command, encoded as `encode` below and `line` in `random_run`.
"""
import os
import socket
import struct
import sys

MASK = (1 << 64) - 1
COMPRESSIONS = [1, 2, 3, 5, 10, 20, 50, 100, 200, 500]
SPECIAL = [0.0, -0.0, 0.0, -0.0, 1.0, -1.0, 5e-324, 2.5]
QUANTILES = [0.0, 1.0, 0.5, 0.25, 0.75, 0.01, 0.99, 0.001, 0.999, 0.1, 0.9]
KEYS = ["a", "b", "c", "d"]
TWO_M53 = 2.0 ** -53


class Rng:
    def __init__(self, seed):
        self.x = ((seed + 1) * 0x9E3779B97F4A7C15) & MASK or 1

    def next(self):
        x = self.x
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
        self.x = x
        return x

    def below(self, n):
        return self.next() % n

    def unit(self):
        return (self.next() >> 11) * TWO_M53


def value(g, kind):
    if kind == 4:
        kind = g.below(4)
    if kind == 0:
        return float(g.below(12)) - 4.0
    if kind == 1:
        return g.unit() * 1000.0 - 500.0
    if kind == 2:
        return g.unit() * g.unit() * g.unit() * 1e6
    return SPECIAL[g.below(len(SPECIAL))]


def probe(g, kind):
    """A CDF or RANK argument: mostly a value, sometimes an infinity."""
    if g.below(10) == 0:
        return [float("inf"), float("-inf")][g.below(2)]
    return value(g, kind)


def fmt(x):
    return repr(x)


def commands(seed):
    """Yields (label, argv) in the order runs.rs generates them."""
    g = Rng(seed)
    exists = []
    for k in KEYS[:3]:
        c = COMPRESSIONS[g.below(len(COMPRESSIONS))]
        exists.append(k)
        yield ("CREATE", ["TDIGEST.CREATE", k, "COMPRESSION", str(c)])
    kind = g.below(5)
    for _ in range(40 + g.below(120)):
        op = g.below(100)
        key = exists[g.below(len(exists))]
        if op < 35:
            n = 1 + g.below(600) if g.below(10) == 0 else 1 + g.below(40)
            yield ("ADD", ["TDIGEST.ADD", key] + [fmt(value(g, kind)) for _ in range(n)])
        elif op < 45:
            qs = []
            for _ in range(1 + g.below(6)):
                if g.below(2) == 0:
                    qs.append(g.below(1001) / 1000)
                else:
                    qs.append(QUANTILES[g.below(len(QUANTILES))])
            yield ("QUANTILE", ["TDIGEST.QUANTILE", key] + [fmt(q) for q in qs])
        elif op < 52:
            yield ("CDF", ["TDIGEST.CDF", key] + [fmt(probe(g, kind)) for _ in range(1 + g.below(5))])
        elif op < 64:
            name = "TDIGEST.RANK" if op < 58 else "TDIGEST.REVRANK"
            yield (name[8:], [name, key] + [fmt(probe(g, kind)) for _ in range(1 + g.below(5))])
        elif op < 75:
            name = "TDIGEST.BYRANK" if op < 70 else "TDIGEST.BYREVRANK"
            ranks = [0 if g.below(4) == 0 else g.below(2000) for _ in range(1 + g.below(5))]
            yield (name[8:], [name, key] + [str(r) for r in ranks])
        elif op < 80:
            lo = g.below(1000)
            hi = lo + 1 + g.below(1000 - lo)
            yield ("TRIMMED_MEAN", ["TDIGEST.TRIMMED_MEAN", key, fmt(lo / 1000), fmt(hi / 1000)])
        elif op < 84:
            yield ("MIN", ["TDIGEST.MIN", key])
            yield ("MAX", ["TDIGEST.MAX", key])
        elif op < 88:
            yield ("INFO", ["TDIGEST.INFO", key])
        elif op < 94:
            dest = KEYS[g.below(len(KEYS))]
            sources = [exists[g.below(len(exists))] for _ in range(1 + g.below(3))]
            argv = ["TDIGEST.MERGE", dest, str(len(sources))] + sources
            option = g.below(4)
            if option & 1:
                argv += ["COMPRESSION", str(COMPRESSIONS[g.below(len(COMPRESSIONS))])]
            if option & 2:
                argv += ["OVERRIDE"]
            if dest not in exists:
                exists.append(dest)
            yield ("MERGE", argv)
        elif op < 97:
            yield ("DUMP", ["DUMP", key])
        else:
            yield ("RESET", ["TDIGEST.RESET", key])


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("rb")

    def call(self, *argv):
        out = b"*%d\r\n" % len(argv)
        for a in argv:
            a = a.encode() if isinstance(a, str) else a
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return self.read()

    def read(self):
        line = self.f.readline()[:-2]
        t, rest = line[:1], line[1:]
        if t in (b"+",):
            return ("simple", rest.decode())
        if t == b"-":
            return ("error", rest.decode())
        if t == b":":
            return ("int", int(rest))
        if t == b",":
            return ("double", float(rest))
        if t == b"_":
            return ("null", None)
        if t == b"$":
            n = int(rest)
            if n < 0:
                return ("null", None)
            data = self.f.read(n + 2)[:-2]
            return ("bulk", data)
        if t == b"*":
            return ("array", [self.read() for _ in range(int(rest))])
        if t == b"%":
            return ("map", [(self.read(), self.read()) for _ in range(int(rest))])
        raise ValueError(line)


def double_bits(x):
    if x != x:
        return "nan"
    return struct.pack(">d", x).hex()


def encode(reply, label):
    kind, v = reply
    if kind == "simple":
        return v
    if kind == "error":
        return "!" + v
    if kind == "int":
        if label == "INFO-Memory usage":
            # RedisBloom 2.8.2 counts a pointer (8 bytes) where 8.x counts the 80-byte struct.
            v += 72
        return str(v)
    if kind == "double":
        return double_bits(v)
    if kind == "array":
        return "[" + ",".join(encode(x, label) for x in v) + "]"
    if kind == "map":
        return "{" + ",".join(k[1] + "=" + encode(x, "INFO-" + k[1]) for k, x in v) + "}"
    if kind == "bulk":
        # DUMP: 0x07, the module id (0x81 + 8 bytes), the module's fields; then EOF (0x00),
        # the RDB version (2 bytes) and the CRC-64 (8 bytes).
        return v[10:-11].hex()
    raise ValueError(reply)


def fnv(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & MASK
    return h


PHANTOM_MERGED = ("07814c3212f9360f1000040000000000005940040000000000001440040000000000001c4002426202"
                  "0202000201040000000000000040040000000000000000040000000000000000040000000000001c40"
                  "04000000000000000004000000000000f03f000a00b2c1fae4b537f474")
PHANTOM_BUFFER = ("07814c3212f9360f10000400000000000059400400000000000000000400000000000000000242620200"
                  "02020200040000000000000000040000000000000000000a004ee0fa4bd33c267c")
HUGE = ["1.7e308", "-1.7e308", "1e308", "-1e308"]


def equal_values(seed, n):
    """n values, each 0.0 or -0.0 (equal to the sort), one in 500 a 1.0, from xorshift64."""
    g = Rng(seed)
    return [["0", "-0", "0", "-0"][g.below(4)] if g.below(500) else "1" for _ in range(n)]


SCENARIOS = [
    ("spec", [["TDIGEST.CREATE", "t", "COMPRESSION", "10"], ["TDIGEST.ADD", "t", "3", "1", "2", "2"],
              ["DUMP", "t"]]),
    ("single", [["TDIGEST.CREATE", "t"], ["TDIGEST.ADD", "t", "5"], ["DUMP", "t"],
                ["TDIGEST.QUANTILE", "t", "0", "0.5", "1"], ["TDIGEST.RANK", "t", "5"],
                ["TDIGEST.CDF", "t", "5"], ["TDIGEST.TRIMMED_MEAN", "t", "0", "1"], ["TDIGEST.MIN", "t"]]),
    # RedisBloom's reload (RESTORE here) of a one-value digest (CREATE t, ADD t 5, DUMP t) leaves
    # a weightless node; after ADD 7 it saves as PHANTOM_MERGED; MERGE w 2 q q of two reloaded
    # copies q saves as PHANTOM_BUFFER.
    ("phantom-merged", [["RESTORE", "p", "0", bytes.fromhex(PHANTOM_MERGED)],
                        ["TDIGEST.QUANTILE", "p", "0", "0.5", "1"], ["TDIGEST.MERGE", "v", "2", "p", "p"],
                        ["TDIGEST.ADD", "v", "1", "2", "3"], ["TDIGEST.QUANTILE", "v", "0", "0.5", "1"],
                        ["TDIGEST.CDF", "v", "0", "2", "7"], ["DUMP", "v"]]),
    ("phantom-buffer", [["RESTORE", "w", "0", bytes.fromhex(PHANTOM_BUFFER)], ["TDIGEST.INFO", "w"],
                        ["TDIGEST.ADD", "w", "1", "2", "3"], ["TDIGEST.QUANTILE", "w", "0", "0.5", "1"],
                        ["TDIGEST.CDF", "w", "0", "2"], ["DUMP", "w"]]),
    ("empty", [["TDIGEST.CREATE", "t", "COMPRESSION", "1"], ["DUMP", "t"], ["TDIGEST.ADD", "t", "1", "2"],
               ["TDIGEST.RESET", "t"], ["DUMP", "t"], ["TDIGEST.INFO", "t"]]),
    ("signed-zero", [["TDIGEST.CREATE", "t"], ["TDIGEST.ADD", "t", "-0", "0"], ["TDIGEST.MIN", "t"],
                     ["TDIGEST.MAX", "t"], ["DUMP", "t"]]),
    ("zero-width", [["TDIGEST.CREATE", "k", "COMPRESSION", "3"],
                    ["TDIGEST.ADD", "k"] + ["5", "6"] * 10, ["TDIGEST.QUANTILE", "k", "0", "0.01", "1"],
                    ["TDIGEST.BYRANK", "k", "0", "1"], ["DUMP", "k"]]),
    ("huge", [["TDIGEST.CREATE", "h", "COMPRESSION", "1"], ["TDIGEST.ADD", "h"] + HUGE * 40,
              ["TDIGEST.QUANTILE", "h", "0", "0.25", "0.5", "0.75", "1"],
              ["TDIGEST.CDF", "h", "-1.7e308", "-1e308", "0", "1e308", "1.7e308"],
              ["TDIGEST.RANK", "h", "-1.7e308", "0", "1.7e308"], ["TDIGEST.TRIMMED_MEAN", "h", "0.1", "0.9"],
              ["TDIGEST.BYRANK", "h", "0", "1", "80", "159"], ["DUMP", "h"]]),
    ("huge-once", [["TDIGEST.CREATE", "h", "COMPRESSION", "1"],
                   ["TDIGEST.ADD", "h", "-1.7e308", "-1e308", "1e308", "1.7e308"],
                   ["TDIGEST.CDF", "h", "0", "-1e308", "1e308"], ["TDIGEST.QUANTILE", "h", "0", "0.5", "1"],
                   ["DUMP", "h"]]),
    ("equal", [["TDIGEST.CREATE", "e", "COMPRESSION", "20000"]]
              + [["TDIGEST.ADD", "e"] + equal_values(i, 10000) for i in range(6)]
              + [["TDIGEST.QUANTILE", "e", "0", "0.1", "0.5", "0.9", "1"], ["TDIGEST.CDF", "e", "0", "1"],
                 ["TDIGEST.INFO", "e"], ["TDIGEST.CREATE", "f", "COMPRESSION", "20000"],
                 ["TDIGEST.ADD", "f"] + equal_values(9, 5000), ["TDIGEST.MERGE", "e", "2", "e", "f"],
                 ["TDIGEST.QUANTILE", "e", "0", "0.5", "1"], ["TDIGEST.RANK", "e", "0", "1"],
                 ["TDIGEST.INFO", "e"], ["DUMP", "e"]]),
]


def scenarios(conn):
    for name, argvs in SCENARIOS:
        conn.call("FLUSHALL")
        lines = []
        for argv in argvs:
            reply = conn.call(*argv)
            label = argv[0][8:] if argv[0].startswith("TDIGEST.") else argv[0]
            if argv[0] == "RESTORE":
                lines.append("RESTORE %s: %s\n" % (argv[1], encode(reply, label)))
                continue
            if argv[0] == "DUMP":
                lines.append("DUMP %s: %s\n" % (argv[1], reply[1].hex()))
            else:
                lines.append("%s %s: %s\n" % (label, argv[1], encode(reply, label)))
        text = "".join(lines)
        if len(text) < 4000:
            print("// %s\n%s" % (name, text))
        else:
            print("// %s: %d lines, 0x%016x" % (name, len(lines), fnv(text.encode())))


def main():
    if sys.argv[2] == "scenarios":
        conn = Conn(sys.argv[1])
        assert conn.call("HELLO", "3")[0] == "map"
        return scenarios(conn)
    path, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    folder = sys.argv[4] if len(sys.argv) > 4 else None
    conn = Conn(path)
    assert conn.call("HELLO", "3")[0] == "map"
    for seed in range(first, last + 1):
        conn.call("FLUSHALL")
        lines = []
        for label, argv in commands(seed):
            reply = conn.call(*argv)
            lines.append("%s %s: %s\n" % (label, argv[1], encode(reply, label)))
        text = "".join(lines).encode()
        if folder:
            with open(os.path.join(folder, "run-%d.txt" % seed), "wb") as out:
                out.write(text)
        print("    (%d, 0x%016x)," % (seed, fnv(text)))


if __name__ == "__main__":
    main()
