"""The in-command section: the server's own time inside each command, redis-bf against
RedisBloom on the same redis-server binary.

Each probe (one command line on one server) runs under redis-benchmark. The deltas of
`cmdstat_<command>` (calls, usec) across the run give the time spent inside the command per
call, or per item for multi-item commands. The deltas of INFO cpu give the server's whole CPU
time per call, including reading, parsing and replying. Probes are interleaved and their order
rotates from round to round. Load from neighbours can only add time, so the minimum over the
rounds is the figure to compare. The median and the spread show how noisy the rounds were.

A cell is one line of CELLS. See bench/README.md.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Callable

from harness import (BIG_MEMBERS, BenchError, Client, RespError, Server, add_all, command_exists,
                     command_stats, count_hits, cpu_seconds, log, make_big_filter, members,
                     raise_errors, redis_benchmark)

SERVERS = ("redis-bf", "RedisBloom")
CLIENTS, PIPELINE = 20, 16  # redis-benchmark -c and -P
SINGLE_CALLS = 200_000  # -n of a single-item probe (at least ~100k calls per round)
MULTI_CALLS = 10_000  # -n of a ×100 probe (1M items per round)
WARMUP_SHARE = 4  # the unrecorded warm-up pass runs a quarter of the requests
PROBE_TIMEOUT = 300  # seconds one redis-benchmark run may take
GET_SANITY = 0.05  # GET ÷ GET must be within 1 ± this, or the servers are not equally placed

SMALL_ITEMS = 1_000
F10M_ITEMS = 1_000_000
CF_ITEMS = 1_000_000
SKETCH_ITEMS = 1_000_000  # distinct items counted into the CMS and Top-K fixtures
HEAVY_ITEMS = 1_000  # of which the first this many are counted 10 times more
FRESH_CAPACITY = 20_000_000
RANDOM_RANGE = 100_000_000  # -r for commands that add new items


# The targets, redis-bf ÷ RedisBloom of the minimums: a single-item cell's total, and every
# cell's work above the module-call floor (the server's own part of a module command, which
# is the same in both modules); a ×100 cell's total, per item; the t-digest's reads; the 1 GiB
# filters' single and ×100 cells, bound by memory latency.
SINGLE, ABOVE_FLOOR, BATCH, TDIGEST_READ, BIG_SINGLE, BIG_BATCH = 1.00, 0.75, 0.75, 0.60, 0.85, 0.65
# A Count-Min sketch's ×100 cells: the target set for the vector path at every depth, though
# sketches of 8 rows or fewer hash on the scalar path on either setting (bench/README.md, "Row
# hashes on the vector unit").
VECTOR_BATCH = 0.60
# The depths of the Count-Min and Top-K cells beside RedisBloom's default of 7: `CMS.INITBYDIM
# key 2000 5` in RedisBloom's docs, `CMS.INITBYPROB` gives ⌈log₂(1/probability)⌉ rows.
CMS_DEPTHS, TOPK_DEPTHS = (3, 5, 10, 14), (3, 10)


@dataclass(frozen=True)
class Cell:
    """One row of the table. `command` is redis-benchmark's argument list split on spaces.
    Its second word is the key, which names the fixture (see FIXTURES). Items are
    `__rand_int__` below `keyspace`, which redis-benchmark zero-pads to 12 digits. The
    fixtures hold exactly those strings as members, so a bare `__rand_int__` is a member
    and a prefixed one (`x__rand_int__`) is not."""
    title: str
    command: str
    keyspace: int = 1  # redis-benchmark -r
    items: int = 1  # the last word repeated this many times; times are then per item
    item_words: int = 1  # words per item at the end (2: CMS.INCRBY's item and increment)
    target: float | None = None  # redis-bf ÷ RedisBloom (of the minimums) must be ≤ this
    # and so must the same ratio of each server's time above its own module-call floor
    # (None: not judged there, as for the floor itself and the twins that forget)
    above_target: float | None = ABOVE_FLOOR
    # redis-bf runs it on the key's twin of this kind (TWINS), RedisBloom on the classic key
    twin: str | None = None
    sanity: bool = False  # the GET cell: the ratio must be within 1 ± GET_SANITY
    # the module-call floor (BF.CARD): every cell's work above it is compared too
    floor: bool = False
    # -n of every run, for a cell whose first call does the work measured (its fixture's
    # refill sets that up before each run); None: requests_for's count
    calls: int | None = None

    @property
    def key(self) -> str:
        return self.command.split()[1]

    @property
    def fast(self) -> bool:
        return self.twin == "fast"

    def args(self, server: str) -> tuple[str, ...]:
        words = self.command.split()
        if self.twin and server == "redis-bf":
            words[1] += f"_{self.twin}"
        return (*words, *words[-self.item_words:] * (self.items - 1))

    @property
    def unit(self) -> str:
        return "µs/item" if self.items > 1 else "µs/call"


# The twins of a Bloom fixture on redis-bf: the key's name gains `_<kind>`, its BF.RESERVE these
# words (a filter that forgets is never NONSCALING: it does not grow), and its cells' group
# this label. A window cell's target is against the classic filter (RedisBloom's, whose
# classic layout is redis-bf's bit for bit), as a window filter has no RedisBloom twin.
TWINS = {
    "fast": (("LAYOUT", "FAST"), "FAST"),
    "window": (("WINDOW",), "WINDOW"),
    "timespan": (("TIMESPAN", "3600000"), "TIMESPAN"),
    # Count-Min sketches of Redis 8.12's other cell sizes, against RedisBloom's four bytes.
    "cell2": (("CELL_SIZE", "2"), "CELL_SIZE 2"),
    "cell8": (("CELL_SIZE", "8"), "CELL_SIZE 8"),
    # Count-Min sketches that forget: the last 100M updates (the fixture's million are all
    # inside it), the last hour (the `timespan` twin above).
    "countwindow": (("WINDOW", "100000000"), "WINDOW"),
}
S, F, B, R = SMALL_ITEMS, F10M_ITEMS, BIG_MEMBERS, RANDOM_RANGE
TD_ITEMS = 1_000_000  # values in the t-digests read from
TD_SOURCES = 10  # digests TDIGEST.MERGE merges
TD_BIG_COMPRESSION = 20_000  # the equal-values case: a buffer of 120,010 nodes
TD_BUFFERED = 100_000  # values buffered before each run of a merging QUANTILE
CELLS = [
    Cell("GET (sanity: must be ~1.00)", "GET foo", sanity=True),
    Cell("BF.CARD small filter (module-call floor)", "BF.CARD small", target=SINGLE, floor=True,
         above_target=None),
    Cell("BF.EXISTS small filter, member", "BF.EXISTS small __rand_int__", S, target=SINGLE),
    Cell("BF.EXISTS 10M filter (1M items), member", "BF.EXISTS f10m __rand_int__", F, target=SINGLE),
    Cell("BF.EXISTS 10M filter, non-member", "BF.EXISTS f10m x__rand_int__", F, target=SINGLE),
    Cell("BF.ADD into a fresh 20M filter", "BF.ADD add20m a__rand_int__", R, target=SINGLE),
    Cell("BF.MEXISTS ×100, 10M filter, half members", "BF.MEXISTS f10m __rand_int__", 2 * F,
         items=100, target=BATCH),
    Cell("BF.MADD ×100, fresh 20M filter", "BF.MADD madd20m m__rand_int__", R, 100, target=BATCH),
    Cell("BF.EXISTS 1 GiB filter, member", "BF.EXISTS big __rand_int__", B, target=BIG_SINGLE),
    Cell("BF.MEXISTS ×100, 1 GiB filter, half members", "BF.MEXISTS big __rand_int__", 2 * B,
         items=100, target=BIG_BATCH),
    Cell("BF.ADD 1 GiB filter", "BF.ADD big a__rand_int__", R, target=BIG_SINGLE),
    # redis-bf's LAYOUT FAST twin of the same key, against RedisBloom's (classic) filter.
    Cell("FAST BF.EXISTS 10M filter, member", "BF.EXISTS f10m __rand_int__", F, target=SINGLE,
         twin="fast"),
    Cell("FAST BF.EXISTS 10M filter, non-member", "BF.EXISTS f10m x__rand_int__", F, target=SINGLE,
         twin="fast"),
    Cell("FAST BF.ADD into a fresh 20M filter", "BF.ADD add20m a__rand_int__", R, target=SINGLE,
         twin="fast"),
    Cell("FAST BF.MEXISTS ×100, 10M filter, half members", "BF.MEXISTS f10m __rand_int__", 2 * F,
         items=100, target=BATCH, twin="fast"),
    Cell("FAST BF.MADD ×100, fresh 20M filter", "BF.MADD madd20m m__rand_int__", R, 100,
         target=BATCH, twin="fast"),
    Cell("FAST BF.EXISTS 1 GiB filter, member", "BF.EXISTS big __rand_int__", B, target=BIG_SINGLE,
         twin="fast"),
    Cell("FAST BF.MEXISTS ×100, 1 GiB filter, half members", "BF.MEXISTS big __rand_int__", 2 * B,
         items=100, target=BIG_BATCH, twin="fast"),
    Cell("FAST BF.ADD 1 GiB filter", "BF.ADD big a__rand_int__", R, target=BIG_SINGLE, twin="fast"),
    # Filters that forget, against the classic filter: a count window of the last 10M
    # additions and a time window of the last hour (issue targets: EXISTS ≤ 1.5, ADD ≤ 2).
    Cell("WINDOW BF.EXISTS 10M, member", "BF.EXISTS f10m __rand_int__", F, target=1.5, above_target=None,
         twin="window"),
    Cell("WINDOW BF.EXISTS 10M, non-member", "BF.EXISTS f10m x__rand_int__", F, target=1.5, above_target=None,
         twin="window"),
    Cell("WINDOW BF.ADD 20M", "BF.ADD add20m a__rand_int__", R, target=2.0, above_target=None, twin="window"),
    Cell("TIMESPAN BF.EXISTS 10M, member", "BF.EXISTS f10m __rand_int__", F, target=1.5, above_target=None,
         twin="timespan"),
    Cell("TIMESPAN BF.EXISTS 10M, non-member", "BF.EXISTS f10m x__rand_int__", F, target=1.5, above_target=None,
         twin="timespan"),
    Cell("TIMESPAN BF.ADD 20M", "BF.ADD add20m a__rand_int__", R, target=2.0, above_target=None, twin="timespan"),
    Cell("CF.ADD into a fresh 20M cuckoo filter", "CF.ADD cfadd a__rand_int__", R, target=SINGLE),
    Cell("CF.EXISTS 2M cuckoo filter (1M items), member", "CF.EXISTS cf __rand_int__", CF_ITEMS,
         target=SINGLE),
    Cell("CF.DEL member (refilled before each run)", "CF.DEL cfdel __rand_int__", CF_ITEMS,
         target=SINGLE),
    Cell("CF.MEXISTS ×100, half members", "CF.MEXISTS cf __rand_int__", 2 * CF_ITEMS, 100,
         target=BATCH),
    # A 2000 × 7 sketch (CMS.INITBYPROB 0.001 0.01) that counted 1M items.
    Cell("CMS.INCRBY 2000×7 sketch, 1 item", "CMS.INCRBY cms __rand_int__ 3", 2 * SKETCH_ITEMS,
         target=SINGLE),
    Cell("CMS.INCRBY ×100, 2000×7 sketch", "CMS.INCRBY cms __rand_int__ 3", 2 * SKETCH_ITEMS,
         items=100, item_words=2, target=VECTOR_BATCH),
    Cell("CMS.QUERY 2000×7 sketch, 1 item", "CMS.QUERY cms __rand_int__", 2 * SKETCH_ITEMS,
         target=SINGLE),
    Cell("CMS.QUERY ×100, 2000×7 sketch", "CMS.QUERY cms __rand_int__", 2 * SKETCH_ITEMS,
         items=100, target=VECTOR_BATCH),
    # The same at other depths (CMS.INITBYDIM key 2000 depth).
    *(Cell(f"{command.split()[0]} {'×100, ' if items > 1 else ''}2000×{depth} sketch"
           f"{'' if items > 1 else ', 1 item'}", command.replace(" cms ", f" cms{depth} "),
           2 * SKETCH_ITEMS, items, words, target=target)
      for depth in CMS_DEPTHS
      for command, items, words, target in (
          ("CMS.INCRBY cms __rand_int__ 3", 1, 1, SINGLE),
          ("CMS.INCRBY cms __rand_int__ 3", 100, 2, VECTOR_BATCH),
          ("CMS.QUERY cms __rand_int__", 1, 1, SINGLE),
          ("CMS.QUERY cms __rand_int__", 100, 1, VECTOR_BATCH))),
    # The same on two- and eight-byte cells (one byte cannot hold a million counts in 2000
    # columns); RedisBloom's sketch has four.
    *(Cell(f"{label} {title}", command, 2 * SKETCH_ITEMS, items, words, target=target,
           twin=twin)
      for twin, label in (("cell2", "CELL_SIZE 2"), ("cell8", "CELL_SIZE 8"))
      for title, command, items, words, target in (
          ("CMS.INCRBY 1 item", "CMS.INCRBY cms __rand_int__ 3", 1, 1, SINGLE),
          ("CMS.INCRBY ×100", "CMS.INCRBY cms __rand_int__ 3", 100, 2, BATCH),
          ("CMS.QUERY 1 item", "CMS.QUERY cms __rand_int__", 1, 1, SINGLE),
          ("CMS.QUERY ×100", "CMS.QUERY cms __rand_int__", 100, 1, BATCH))),
    # Sketches that forget (4 slots), against RedisBloom's classic sketch (issue targets:
    # INCRBY ≤ 2, QUERY ≤ 1.5 of a classic sketch's time).
    *(Cell(f"{label} {title}", command, 2 * SKETCH_ITEMS, items, words, target=target,
           above_target=None, twin=twin)
      for twin, label in (("countwindow", "WINDOW"), ("timespan", "TIMESPAN"))
      for title, command, items, words, target in (
          ("CMS.INCRBY 1 item", "CMS.INCRBY cms __rand_int__ 3", 1, 1, 2.0),
          ("CMS.INCRBY ×100", "CMS.INCRBY cms __rand_int__ 3", 100, 2, 2.0),
          ("CMS.QUERY 1 item", "CMS.QUERY cms __rand_int__", 1, 1, 1.5),
          ("CMS.QUERY ×100", "CMS.QUERY cms __rand_int__", 100, 1, 1.5))),
    # TOPK.RESERVE topk 100 2000 7 0.9 that counted 1M items, the first 1000 of them 11 times.
    Cell("TOPK.ADD k=100, 2000×7, decay 0.9", "TOPK.ADD topkadd __rand_int__",
         2 * SKETCH_ITEMS, target=SINGLE),
    *(Cell(f"TOPK.ADD k=100, 2000×{depth}, decay 0.9", f"TOPK.ADD topkadd{depth} __rand_int__",
           2 * SKETCH_ITEMS, target=SINGLE) for depth in TOPK_DEPTHS),
    Cell("TOPK.QUERY k=100, 2000×7", "TOPK.QUERY topk __rand_int__", SKETCH_ITEMS, target=SINGLE),
    Cell("TOPK.LIST k=100 WITHCOUNT", "TOPK.LIST topk WITHCOUNT", target=SINGLE),
    # Top-Ks that forget (4 slots), against RedisBloom's classic Top-K (issue targets: ADD ≤ 2,
    # QUERY and LIST ≤ 1.5 of a classic Top-K's time).
    *(Cell(f"{label} {title}", command, keyspace, target=target, above_target=None, twin=twin)
      for twin, label in (("countwindow", "WINDOW"), ("timespan", "TIMESPAN"))
      for title, command, keyspace, target in (
          ("TOPK.ADD k=100, 2000×7", "TOPK.ADD topkadd __rand_int__", 2 * SKETCH_ITEMS, 2.0),
          ("TOPK.QUERY k=100, 2000×7", "TOPK.QUERY topk __rand_int__", SKETCH_ITEMS, 1.5),
          ("TOPK.LIST k=100 WITHCOUNT", "TOPK.LIST topk WITHCOUNT", 1, 1.5))),
    Cell("TDIGEST.ADD 1 value (compression 100)", "TDIGEST.ADD tdadd __rand_int__", R,
         target=SINGLE),
    Cell("TDIGEST.ADD ×100 values (compression 100)", "TDIGEST.ADD tdadd __rand_int__", R, 100,
         target=BATCH),
    Cell("TDIGEST.QUANTILE, 1M values", "TDIGEST.QUANTILE td 0.5", target=TDIGEST_READ),
    Cell("TDIGEST.CDF, 1M values", "TDIGEST.CDF td __rand_int__", TD_ITEMS, target=TDIGEST_READ),
    Cell("TDIGEST.RANK, 1M values", "TDIGEST.RANK td __rand_int__", TD_ITEMS, target=TDIGEST_READ),
    Cell("TDIGEST.MERGE of 10 digests (OVERRIDE)", f"TDIGEST.MERGE tdm {TD_SOURCES} "
         + " ".join(f"tdm{i}" for i in range(TD_SOURCES)) + " OVERRIDE", target=SINGLE),
    # The first QUANTILE after a buffer of 100,000 values merges it: one pipeline per run, so
    # that call's time is what the row shows (divided by 16). RedisBloom sorts equal values in
    # quadratic time; random values are the control.
    Cell("TDIGEST.QUANTILE merging 100k equal values (1M equal, compression 20000)",
         "TDIGEST.QUANTILE tdeq 0.5", calls=PIPELINE, target=TDIGEST_READ),
    Cell("TDIGEST.QUANTILE merging 100k random values (1M random, compression 20000)",
         "TDIGEST.QUANTILE tdrand 0.5", calls=PIPELINE, target=TDIGEST_READ),
]


# --------------------------------------------------------------------------------------------
# Fixtures: the keys the cells use, built on each server before the rounds


def bloom(capacity: int, items: int = 0, nonscaling: bool = False):
    """BF.RESERVE key 0.01 capacity, then `items` members; checks that they read as members.
    A twin that forgets (WINDOW, TIMESPAN) is reserved without NONSCALING."""
    def build(client: Client, key: str, layout: tuple[str, ...]) -> None:
        fixed = nonscaling and not {"WINDOW", "TIMESPAN"} & set(layout)
        client.call("BF.RESERVE", key, "0.01", capacity, *(("NONSCALING",) * fixed), *layout)
        add_all(client, "BF.MADD", key, items)
        sample = min(items, 10_000)
        if count_hits(client, key, sample, "") != sample:
            raise BenchError(f"{key}: not every prefilled item reads as a member")
    return build


def cf_insert(client: Client, command: str, key: str, count: int) -> None:
    """CF.INSERT or CF.INSERTNX of the first `count` members, pipelined. A full filter answers
    -1 per item rather than an error."""
    batches = ([command, key, "ITEMS", *batch] for batch in members(count))
    for reply in client.pipeline(batches):
        if isinstance(reply, RespError) or -1 in reply:
            problem = reply if isinstance(reply, RespError) else "full"
            raise BenchError(f"{command} {key}: {problem}")


def cuckoo(capacity: int, items: int = 0):
    def build(client: Client, key: str, layout: tuple[str, ...]) -> None:
        client.call("CF.RESERVE", key, capacity)
        cf_insert(client, "CF.INSERT", key, items)
    return build


def sketch(client: Client, key: str, layout: tuple[str, ...]) -> None:
    """CMS.INITBYPROB key 0.001 0.01 [CELL_SIZE n] (2000 × 7), each member counted once,
    pipelined."""
    client.call("CMS.INITBYPROB", key, "0.001", "0.01", *layout)
    count_members(client, key)


def sketch_of_depth(depth: int):
    """CMS.INITBYDIM key 2000 depth, each member counted once."""
    def build(client: Client, key: str, layout: tuple[str, ...]) -> None:
        client.call("CMS.INITBYDIM", key, 2000, depth, *layout)
        count_members(client, key)
    return build


def count_members(client: Client, key: str) -> None:
    """Each of the SKETCH_ITEMS members counted once into the sketch `key`, pipelined."""
    for reply in client.pipeline(["CMS.INCRBY", key, *[w for item in batch for w in (item, 1)]]
                                 for batch in members(SKETCH_ITEMS)):
        raise_errors(reply)


def top_k(depth: int = 7):
    """TOPK.RESERVE key 100 2000 depth 0.9 [WINDOW n | TIMESPAN ms], each member added once,
    the first HEAVY_ITEMS ten times more: a skewed stream, so the heap holds heavy hitters."""
    def build(client: Client, key: str, layout: tuple[str, ...]) -> None:
        client.call("TOPK.RESERVE", key, 100, 2000, depth, "0.9", *layout)
        add_all(client, "TOPK.ADD", key, SKETCH_ITEMS)
        for _ in range(10):
            add_all(client, "TOPK.ADD", key, HEAVY_ITEMS)
    return build


def big(client: Client, key: str, layout: tuple[str, ...]) -> None:
    make_big_filter(client, key, layout)


def tdigest(compression: int, items: int, compressed: bool = True):
    """TDIGEST.CREATE key COMPRESSION c, then the values 0…items−1 (as redis-benchmark's
    __rand_int__ spells them), merged by a first QUANTILE unless `compressed` is false."""
    def build(client: Client, key: str, layout: tuple[str, ...]) -> None:
        client.call("TDIGEST.CREATE", key, "COMPRESSION", compression)
        add_all(client, "TDIGEST.ADD", key, items)
        if compressed:
            client.call("TDIGEST.QUANTILE", key, "0.5")
    return build


def tdigest_sources(client: Client, key: str, layout: tuple[str, ...]) -> None:
    """The digests TDIGEST.MERGE key merges: `key0`… of 10,000 values each, overlapping."""
    for i in range(TD_SOURCES):
        client.call("TDIGEST.CREATE", f"{key}{i}", "COMPRESSION", 100)
        add_all(client, "TDIGEST.ADD", f"{key}{i}", 10_000 * (i + 1))


def tdigest_buffered(value: Callable[[int], str]):
    """A digest of compression 20000 that holds 1,000,000 values `value(i)`, then, before each
    run, 100,000 more in its buffer: what the run's first QUANTILE merges. (RedisBloom takes
    minutes to build the equal-values one: each buffer it fills sorts in quadratic time.)"""
    def pipeline(client: Client, key: str, count: int) -> None:
        batches = (["TDIGEST.ADD", key, *(value(i) for i in range(start, start + 10_000))]
                   for start in range(0, count, 10_000))
        for reply in client.pipeline(batches):
            if isinstance(reply, RespError):
                raise BenchError(f"TDIGEST.ADD {key}: {reply}")

    def build(client: Client, key: str, layout: tuple[str, ...]) -> None:
        client.call("TDIGEST.CREATE", key, "COMPRESSION", TD_BIG_COMPRESSION)
        pipeline(client, key, TD_ITEMS)
        client.call("TDIGEST.QUANTILE", key, "0.5")

    return Fixture(build, refill=lambda client, key: pipeline(client, key, TD_BUFFERED))


@dataclass(frozen=True)
class Fixture:
    build: Callable[[Client, str, tuple[str, ...]], None]  # (client, key, LAYOUT words)
    refill: Callable[[Client, str], None] | None = None  # before every run of a probe on it
    big: bool = False  # ~1 GiB: skipped with --no-big


FIXTURES = {
    "foo": Fixture(lambda client, key, layout: client.call("SET", key, "bar")),
    "small": Fixture(bloom(SMALL_ITEMS, SMALL_ITEMS)),
    "f10m": Fixture(bloom(10_000_000, F10M_ITEMS, nonscaling=True)),
    "add20m": Fixture(bloom(FRESH_CAPACITY)),
    "madd20m": Fixture(bloom(FRESH_CAPACITY)),
    "big": Fixture(big, big=True),
    "cf": Fixture(cuckoo(2 * CF_ITEMS, CF_ITEMS)),
    # Puts back what the last CF.DEL run deleted (INSERTNX skips the items still there).
    "cfdel": Fixture(cuckoo(2 * CF_ITEMS, CF_ITEMS),
                     refill=lambda client, key: cf_insert(client, "CF.INSERTNX", key, CF_ITEMS)),
    "cfadd": Fixture(cuckoo(FRESH_CAPACITY)),
    "cms": Fixture(sketch),
    **{f"cms{depth}": Fixture(sketch_of_depth(depth)) for depth in CMS_DEPTHS},
    "topk": Fixture(top_k()),
    # TOPK.ADD changes its Top-K: its own copy, so that TOPK.QUERY and LIST read the same one
    # whatever order the probes run in.
    "topkadd": Fixture(top_k()),
    **{f"topkadd{depth}": Fixture(top_k(depth)) for depth in TOPK_DEPTHS},
    "tdadd": Fixture(tdigest(100, 0, compressed=False)),
    "td": Fixture(tdigest(100, TD_ITEMS)),
    "tdm": Fixture(tdigest_sources),
    "tdeq": tdigest_buffered(lambda i: "5"),
    "tdrand": tdigest_buffered(lambda i: str(i * 7_919 % 1_000_003)),
}


# --------------------------------------------------------------------------------------------
# Probes and their measurement


@dataclass(frozen=True)
class Probe:
    """One command line on one server. Cells share probes: a twin's cell reuses the
    RedisBloom probe of its classic key."""
    server: str
    args: tuple[str, ...]
    keyspace: int
    items: int
    calls: int | None = None

    @property
    def command(self) -> str:
        return self.args[0]

    @property
    def fixture(self) -> tuple[str, tuple[str, ...]]:
        """The key's fixture name and the words of its twin (TWINS) it is built with."""
        key = self.args[1]
        for twin, (words, _) in TWINS.items():
            if key.endswith(f"_{twin}"):
                return key.removesuffix(f"_{twin}"), words
        return key, ()


@dataclass
class Sample:
    """One run of a probe, per call (per item for multi-item commands)."""
    usec: float  # inside the command: commandstats usec / calls
    cpu: float  # server CPU, every thread: INFO cpu user + sys
    main_cpu: float | None  # the main thread's CPU, where INFO cpu reports it
    calls: int


@dataclass
class Stats:
    samples: list[Sample]

    def values(self, attr: str) -> list[float]:
        return [getattr(s, attr) for s in self.samples if getattr(s, attr) is not None]

    def min(self, attr: str = "usec") -> float | None:
        values = self.values(attr)
        return min(values) if values else None

    def median(self, attr: str = "usec") -> float | None:
        values = self.values(attr)
        return statistics.median(values) if values else None

    def max(self, attr: str = "usec") -> float | None:
        values = self.values(attr)
        return max(values) if values else None

    def spread(self, attr: str = "usec") -> float | None:
        """max ÷ min over the rounds."""
        low, high = self.min(attr), self.max(attr)
        return high / low if low else None


@dataclass
class CellResult:
    cell: Cell
    stats: dict[str, Stats | None]  # by server; None: n/a (command or layout unavailable)
    floor: "CellResult | None" = None  # the run's module-call floor (BF.CARD), once measured

    def ratio(self, stat: str = "min", attr: str = "usec") -> float | None:
        bf, rb = self.stats.get("redis-bf"), self.stats.get("RedisBloom")
        if bf is None or rb is None:
            return None
        a, b = getattr(bf, stat)(attr), getattr(rb, stat)(attr)
        return a / b if a is not None and b else None

    def above_floor_ratio(self) -> float | None:
        """redis-bf's time above the module-call floor ÷ RedisBloom's, both minimums: (cell −
        floor) per call, or (cell − floor ÷ items) per item for a ×100 cell, where the floor is
        each server's own BF.CARD."""
        floor = self.floor
        if floor is None or self.cell.sanity or self.cell.floor:
            return None
        above = {}
        for server in ("redis-bf", "RedisBloom"):
            s, f = self.stats.get(server), floor.stats.get(server)
            value, base = (s.min() if s else None), (f.min() if f else None)
            if value is None or base is None:
                return None
            above[server] = value - base / self.cell.items
        return above["redis-bf"] / above["RedisBloom"] if above["RedisBloom"] > 0 else None

    def target_text(self) -> str:
        if self.cell.sanity:
            return f"1±{GET_SANITY:g}"
        if self.cell.target is None:
            return ""
        above = self.cell.above_target
        return f"≤{self.cell.target:.2f}" + (f", ≤{above:.2f} above" if above else "")

    def above_floor_met(self) -> bool | None:
        """Whether the time above the floor meets the cell's target for it; None where it is
        not judged (no such target, or no floor measured)."""
        above = self.above_floor_ratio() if self.cell.above_target else None
        return None if above is None else above <= self.cell.above_target

    def verdict(self) -> str:
        """PASS when the ratio meets the target and, where the cell has one, the ratio above
        the floor meets its own."""
        if self.cell.target is None and not self.cell.sanity:
            return ""
        measured = self.ratio()
        if measured is None:
            return "n/a"
        if self.cell.sanity:
            return "PASS" if abs(measured - 1) <= GET_SANITY else "MISS"
        met = measured <= self.cell.target and self.above_floor_met() is not False
        return "PASS" if met else "MISS"


def requests_for(items: int, quick: bool, share: int = 1, calls: int | None = None) -> int:
    """-n of a probe with `items` items per call: a multiple of -P, since redis-benchmark
    sends whole pipelines; a quarter if quick; `share` divides it further (the warm-up);
    `calls` if the cell fixes it."""
    if calls is not None:
        return calls
    requests = (SINGLE_CALLS if items == 1 else MULTI_CALLS) // (4 if quick else 1) // share
    return max(PIPELINE, requests // PIPELINE * PIPELINE)


def run_probe(server: Server, control: Client, probe: Probe, requests: int) -> Sample:
    """One redis-benchmark run of the probe, read through INFO deltas on the control
    connection. Every call must have succeeded."""
    key, _ = probe.fixture
    refill = FIXTURES[key].refill
    if refill:
        refill(control, probe.args[1])
    before = control.info("commandstats", "cpu")
    redis_benchmark(server.port, PIPELINE, requests, probe.keyspace, probe.args, CLIENTS,
                    PROBE_TIMEOUT)
    after = control.info("commandstats", "cpu")
    stats_before, stats_after = (command_stats(i, probe.command) for i in (before, after))
    delta = {name: stats_after[name] - stats_before[name] for name in stats_after}
    if delta["calls"] < requests or delta["failed_calls"] or delta["rejected_calls"]:
        raise BenchError(f"{server.name}: {' '.join(probe.args[:3])}…: {delta} for {requests} "
                         f"requests")
    (cpu_before, main_before), (cpu_after, main_after) = cpu_seconds(before), cpu_seconds(after)
    count = delta["calls"] * probe.items  # calls, or items
    main = (main_after - main_before) * 1e6 / count if main_before is not None else None
    return Sample(delta["usec"] / count, (cpu_after - cpu_before) * 1e6 / count, main,
                  int(delta["calls"]))


def available_probes(cells: list[Cell], clients: dict[str, Client],
                     fast: bool) -> dict[tuple[Cell, str], Probe | None]:
    """Every cell's probe on each server; None where the server lacks the command, or (on
    redis-bf) the fast layout is unavailable."""
    known: dict[tuple[str, str], bool] = {}
    probes = {}
    for cell in cells:
        for server in SERVERS:
            args = cell.args(server)
            if (server, args[0]) not in known:
                known[server, args[0]] = command_exists(clients[server], args[0])
            no_layout = cell.fast and server == "redis-bf" and not fast
            usable = known[server, args[0]] and not no_layout
            probes[cell, server] = (Probe(server, args, cell.keyspace, cell.items, cell.calls)
                                    if usable else None)
    return probes


def build_fixtures(probes: list[Probe], clients: dict[str, Client]) -> None:
    """Each fixture that a probe needs, once per server. A failure is an error, not n/a: the
    command exists (or the probe would not be here), so something is broken."""
    for server, (key, layout), name in dict.fromkeys((p.server, p.fixture, p.args[1])
                                                      for p in probes):
        log(f"in-command: {server}: {name}")
        try:
            FIXTURES[key].build(clients[server], name, layout)
        except RespError as error:
            raise BenchError(f"{server}: building {name}: {error}") from error


def check_fill(cells: list[Cell], quick: bool, rounds: int) -> None:
    """The fresh filters must not outgrow their capacity (a scaling filter would gain a
    second link, and the cell would measure something else) over the warm-up and rounds."""
    for cell in cells:
        if cell.key in ("add20m", "madd20m", "cfadd"):
            added = requests_for(cell.items, quick) * cell.items * (rounds + 1)
            if added > FRESH_CAPACITY:
                raise BenchError(f"{rounds} rounds add {added:,} items to {cell.key} "
                                 f"(capacity {FRESH_CAPACITY:,}): use fewer rounds")


def measure_incommand(servers: dict[str, Server], fast: bool, rounds: int, quick: bool,
                      cells: list[Cell]) -> list[CellResult]:
    """The in-command time of each of `cells` on both servers (bench.py chooses the cells, and
    gives the 1 GiB ones servers of their own)."""
    check_fill(cells, quick, rounds)
    clients = {name: server.client() for name, server in servers.items()}
    try:
        probes = available_probes(cells, clients, fast)
        runnable = list(dict.fromkeys(p for p in probes.values() if p is not None))
        for (cell, server), probe in probes.items():
            if probe is None:
                log(f"in-command: {server} lacks {cell.args(server)[0]}"
                    f"{' LAYOUT FAST' if cell.fast else ''}: {cell.title!r} is n/a")
        build_fixtures(runnable, clients)

        def run(probe: Probe, requests: int) -> Sample:
            return run_probe(servers[probe.server], clients[probe.server], probe, requests)

        # Faults in the pages of fresh filters, warms caches; not recorded.
        log(f"in-command: warm-up ({len(runnable)} probes)")
        for probe in runnable:
            run(probe, requests_for(probe.items, quick, WARMUP_SHARE, probe.calls))
        samples: dict[Probe, list[Sample]] = {p: [] for p in runnable}
        for round_no in range(rounds):
            shift = round_no * len(runnable) // rounds
            log(f"in-command round {round_no + 1}/{rounds} ({len(runnable)} probes)")
            for probe in runnable[shift:] + runnable[:shift]:
                samples[probe].append(run(probe, requests_for(probe.items, quick, 1,
                                                              probe.calls)))
    finally:
        for client in clients.values():
            client.close()

    results = []
    for cell in cells:
        stats = {}
        for server in SERVERS:
            probe = probes[cell, server]
            stats[server] = Stats(samples[probe]) if probe else None
        results.append(CellResult(cell, stats))
    floor = next((r for r in results if r.cell.floor), None)
    for r in results:
        r.floor = floor
    get = next((r for r in results if r.cell.sanity), None)
    if get and get.verdict() == "MISS":
        log(f"WARNING: GET ÷ GET = {get.ratio():.3f}, more than {GET_SANITY:.0%} off 1.00: the "
            "two servers are not equally placed, and every ratio of this run is suspect")
    return results
