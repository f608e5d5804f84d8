"""One-off measurements: memory and false positives, main-thread time of big allocations
and frees, of the walks over huge sparse filters, RDB save/load."""

from __future__ import annotations

import os
import re
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from harness import (BATCH, BIG_CAPACITY, CHUNK, MIB, BenchError, Client, Module, RespError,
                     Server, add_all, count_hits, info_field, log, make_big_filter, members)
from report import VARIANTS, Row, Target, at_most, no_more_than, who

FPR_ITEMS, FPR_PROBES = 1_000_000, 2_000_000
STRINGS = 64  # 64 strings of 16 MiB: the plain-Redis RDB baseline
# Copies of one item into a CAPACITY 1073741824 Cuckoo filter: its two buckets hold four, and
# every fifth copy opens a 1 GiB sub-filter, so 40 copies reserve ~9 GiB holding 40 items
# (issue 21 used 1,900, which reserves the whole machine here and 470 sub-filters there).
SPARSE_COPIES = 40


def measure_memory(bf: Client, rb: Client, fast: bool) -> list[Row]:
    """Bits per item of 1M-capacity filters, and their false-positive rate when full."""
    variants = {"redis-bf": (bf, "", ()), "RedisBloom": (rb, "", ())}
    if fast:
        variants["fast"] = (bf, "_fast", ("LAYOUT", "FAST"))
    rows = []
    for error, key, bits_limit in ((0.01, "m1", 10.0), (0.001, "m01", 15.5)):
        bits, usage, fpr = dict.fromkeys(VARIANTS), dict.fromkeys(VARIANTS), dict.fromkeys(VARIANTS)
        for name, (client, suffix, layout) in variants.items():
            log(f"memory and FPR: {name} {key} (error {error:g})")
            client.call("BF.RESERVE", key + suffix, error, FPR_ITEMS, "NONSCALING", *layout)
            bits[name] = info_field(client, key + suffix, "SIZE") * 8 / FPR_ITEMS
            add_all(client, "BF.MADD", key + suffix, FPR_ITEMS)
            usage[name] = client.call("MEMORY", "USAGE", key + suffix)
            fpr[name] = count_hits(client, key + suffix, FPR_PROBES, "never") / FPR_PROBES
        label = f"error {error:.1%}"
        rows += [
            Row("memory", f"bits/item, {label}", None, "bits/item", bits, [],
                [Target("redis-bf", "==", 1.0, "RedisBloom", "classic = RB"),
                 no_more_than(bits_limit, "", "fast")]),
            Row("memory", f"MEMORY USAGE, {label}", None, "bytes", usage),
            Row("memory", f"FPR when full, {label}", None, "FPR", fpr | {"configured": error},
                ["configured"], [Target("fast", "within", 0.10, "configured", "fast ±10% of cfg")]),
        ]
    return rows


def main_thread_ms(client: Client, command: str, *args) -> float:
    """The command's main-thread time from INFO commandstats, reset just before."""
    client.call("CONFIG", "RESETSTAT")
    client.call(command, *args)
    stats = client.info("commandstats")[f"cmdstat_{command.lower()}"]
    return int(re.search(r"usec=(\d+)", stats).group(1)) / 1000


def measure_main_thread(bf: Client, rb: Client, fast: bool, repeats: int = 3) -> list[Row]:
    """BF.RESERVE, DEL and UNLINK of a ~1 GiB filter (a few items in), median of `repeats`."""
    variants = {"redis-bf": (bf, ()), "RedisBloom": (rb, ())}
    if fast:
        variants["fast"] = (bf, ("LAYOUT", "FAST"))
    times = {op: dict.fromkeys(VARIANTS) for op in ("BF.RESERVE", "DEL", "UNLINK")}
    for name, (client, layout) in variants.items():
        log(f"main-thread time of BF.RESERVE/DEL/UNLINK ~1 GiB: {name}")
        samples = defaultdict(list)
        for _ in range(repeats):
            for free in ("DEL", "UNLINK"):
                reserve = ("mt", "0.01", BIG_CAPACITY, "NONSCALING", *layout)
                samples["BF.RESERVE"].append(main_thread_ms(client, "BF.RESERVE", *reserve))
                add_all(client, "BF.MADD", "mt", BATCH)
                samples[free].append(main_thread_ms(client, free, "mt"))
        for op, values in samples.items():
            times[op][name] = statistics.median(values)
    limits = {"BF.RESERVE": 10.0, "DEL": 5.0, "UNLINK": 5.0}
    return [Row("main thread", f"{op} ~1 GiB filter, main thread", None, "ms", values, [],
                [no_more_than(limits[op], " ms"), no_more_than(limits[op], " ms", "fast")])
            for op, values in times.items()]


def measure_sparse_walks(bf: Client, rb: Client, fast: bool) -> list[Row]:
    """Issue 21's stalls, as the main thread's time in one command: CF.COMPACT of one item
    repeated into a 1 GiB Cuckoo filter, and COPY and DEBUG DIGEST-VALUE of a ~1 GiB Bloom
    filter holding one item. redis-bf visits the blocks that were written; RedisBloom every
    byte of the reservation (or has no callback: n/a)."""
    variants = {"redis-bf": (bf, ()), "RedisBloom": (rb, ())}
    if fast:
        variants["fast"] = (bf, ("LAYOUT", "FAST"))
    ops = ("CF.COMPACT", "COPY", "DEBUG DIGEST-VALUE")
    times = {op: dict.fromkeys(VARIANTS) for op in ops}

    def timed(client: Client, *command) -> float | None:
        try:
            return main_thread_ms(client, *command)
        except RespError:
            return None  # no such callback on this module's type

    for name, (client, layout) in variants.items():
        log(f"walks over huge sparse filters: {name}")
        if not layout:  # the Cuckoo filter has one layout
            client.call("CF.INSERT", "sparse_cf", "CAPACITY", 1073741824, "ITEMS",
                        *["same"] * SPARSE_COPIES)
            times["CF.COMPACT"][name] = timed(client, "CF.COMPACT", "sparse_cf")
            client.call("DEL", "sparse_cf")
        client.call("BF.RESERVE", "sparse_bf", "0.01", BIG_CAPACITY, "NONSCALING", *layout)
        client.call("BF.ADD", "sparse_bf", "one")
        times["COPY"][name] = timed(client, "COPY", "sparse_bf", "sparse_copy")
        times["DEBUG DIGEST-VALUE"][name] = timed(client, "DEBUG", "DIGEST-VALUE", "sparse_bf")
        client.call("DEL", "sparse_bf", "sparse_copy")
    titles = {"CF.COMPACT": f"CF.COMPACT, {SPARSE_COPIES} copies of one item, 1 GiB sub-filters",
              "COPY": "COPY ~1 GiB filter holding one item",
              "DEBUG DIGEST-VALUE": "DEBUG DIGEST-VALUE ~1 GiB filter holding one item"}
    return [Row("main thread", titles[op], None, "ms", values, [],
                [no_more_than(200.0, " ms"), no_more_than(200.0, " ms", "fast")])
            for op, values in times.items()]


MERGE_SOURCES = 200_000


def measure_merges(bf: Client, rb: Client, fast: bool) -> list[Row]:
    """Issue 48's stall: a merge naming 200,000 distinct sources (none of them existing, so the
    command's work is telling the names apart and opening them), as the main thread's time,
    beside `EXISTS` of the same names — a plain Redis command that looks every name up."""
    names = [f"src{i}" for i in range(MERGE_SOURCES)]
    merges = {"TDIGEST.MERGE": ("TDIGEST.MERGE", "mdest", MERGE_SOURCES, *names),
              "CMS.MERGE": ("CMS.MERGE", "mcms", MERGE_SOURCES, *names)}
    rows = []
    for title, command in merges.items():
        values = dict.fromkeys(VARIANTS)
        for name, client in (("redis-bf", bf), ("RedisBloom", rb)):
            log(f"{title} of {MERGE_SOURCES} names: {name}")
            client.call("CMS.INITBYDIM", "mcms", 10, 2)
            client.call("CONFIG", "RESETSTAT")
            try:
                client.call(*command)
            except RespError:
                pass  # the reply expected: `key does not exist`, once the names are told apart
            stats = client.info("commandstats")[f"cmdstat_{title.lower()}"]
            values[name] = int(re.search(r"usec=(\d+)", stats).group(1)) / 1000
            client.call("DEL", "mcms")
        values["EXISTS"] = main_thread_ms(bf, "EXISTS", *names)
        rows.append(Row("main thread", f"{title} of {MERGE_SOURCES:,} distinct names, main thread",
                        None, "ms", values, ["EXISTS"], [no_more_than(50.0, " ms")]))
    return rows


# BF.MERGE of two filters of 10M capacity at 1% holding 2M items each (a union at 40% of its
# capacity), and CF.MERGE of two Cuckoo filters of 1M items each in 4M slots.
MERGED_BLOOM = (10_000_000, 2_000_000)
MERGED_CUCKOO = (4_000_000, 1_000_000)


def copy_ms(client: Client, size: int) -> float:
    """The main-thread time of COPY of a string of `size` bytes: the server's own memory copy
    of that many bytes, the floor of any command that writes them anew."""
    client.call("SETRANGE", "copied", size - 1, "x")
    ms = main_thread_ms(client, "COPY", "copied", "copy")
    client.call("DEL", "copied", "copy")
    return ms


def measure_filter_merges(bf: Client, fast: bool) -> list[Row]:
    """BF.MERGE and CF.MERGE (ours) of two big filters into a missing destination, as the main
    thread's time, beside COPY of a string as large as one source (the machine's copy speed
    inside the server); the union's bytes per second in the title."""
    rows = []
    blooms = [("classic", ())] + ([("fast", ("LAYOUT", "FAST"))] if fast else [])
    for name, layout in blooms:
        capacity, items = MERGED_BLOOM
        for key, prefix in (("ma", "a"), ("mb", "b")):
            bf.call("BF.RESERVE", key, 0.01, capacity, "NONSCALING", *layout)
            add_all(bf, "BF.MADD", key, items, prefix)
        rows.append(merge_row(bf, "BF.MERGE", f"two {capacity // 1_000_000}M-capacity {name} "
                              "filters", bf.call("MEMORY", "USAGE", "ma")))
        bf.call("DEL", "ma", "mb", "mu")
    slots, items = MERGED_CUCKOO
    for key, prefix in (("ma", "a"), ("mb", "b")):
        bf.call("CF.RESERVE", key, slots)
        for reply in bf.pipeline(["CF.INSERT", key, "ITEMS", *batch]
                                 for batch in members(items, prefix)):
            if isinstance(reply, RespError):
                raise BenchError(f"CF.INSERT: {reply}")
    rows.append(merge_row(bf, "CF.MERGE", f"two Cuckoo filters of {items // 1_000_000}M items",
                          bf.call("MEMORY", "USAGE", "ma")))
    bf.call("DEL", "ma", "mb", "mu")
    return rows


def merge_row(bf: Client, command: str, what: str, size: int) -> Row:
    log(f"{command} of {what}")
    values = dict.fromkeys(VARIANTS)
    values["redis-bf"] = main_thread_ms(bf, command, "mu", 2, "ma", "mb")
    values["COPY"] = copy_ms(bf, size)
    rate = 2 * size / values["redis-bf"] / 1e6  # bytes a ms = MB/s ÷ 1000: GB/s
    return Row("main thread", f"{command} of {what} ({size / MIB:.0f} MiB each, "
               f"{rate:.1f} GB/s of sources), vs COPY of one", None, "ms", values, ["COPY"])


@dataclass
class RdbResult:
    data_mib: float
    save_s: float
    load_s: float
    rss_mib: float


def rdb_round_trip(name: str, workdir: Path, module: Module | None, fill) -> RdbResult:
    """SAVE (timed from the client), restart on the same directory, and read the load time
    from the log and the peak RSS after loading."""
    server = Server(f"rdb-{name}", workdir / f"rdb-{name}", module).start()
    try:
        client = server.client()
        data_bytes = fill(client)
        log(f"RDB {name}: SAVE")
        started = time.monotonic()
        client.call("SAVE")
        save_s = time.monotonic() - started
        client.close()
        server.stop()
        log(f"RDB {name}: restart and load")
        server.start()
        loaded = re.findall(r"DB loaded from disk: ([\d.]+) seconds", server.logfile.read_text())
        if not loaded:
            raise BenchError(f"no 'DB loaded from disk' line\n{server.log_tail()}")
        return RdbResult(data_bytes / MIB, save_s, float(loaded[-1]), server.peak_rss_mib())
    finally:
        server.stop()
        (server.dir / "dump.rdb").unlink(missing_ok=True)


def fill_strings(client: Client) -> int:
    for i in range(STRINGS):
        client.call("SET", f"str:{i}", os.urandom(CHUNK))
    return STRINGS * CHUNK


def measure_rdb(workdir: Path, module: Module, redisbloom: Module, fast: bool) -> list[Row]:
    cases = {"redis-bf": (module, ()), "RedisBloom": (redisbloom, ())}
    if fast:
        cases["fast"] = (module, ("LAYOUT", "FAST"))
    results = {name: rdb_round_trip(name, workdir, so, partial(make_big_filter, key="big", layout=layout))
               for name, (so, layout) in cases.items()}
    results["strings"] = rdb_round_trip("strings", workdir, None, fill_strings)

    def row(title, unit, attr, targets=()):
        values = dict.fromkeys(VARIANTS) | {k: getattr(r, attr) for k, r in results.items()}
        return Row("RDB", title, None, unit, values, ["strings"], list(targets))

    rss_limits = []
    for name in ("redis-bf", "fast"):
        if name in results:
            limit = 1.05 * results[name].data_mib + 64
            rss_limits.append(Target(name, "<=", limit, None,
                                     f"{who(name)}≤1.05×data+64MiB={limit:.0f}"))
    headroom = {k: r.rss_mib / (r.data_mib + 64) for k, r in results.items()}
    return [
        row("RDB data size", "MiB", "data_mib"),
        row("RDB SAVE (client-timed)", "s", "save_s"),
        row("RDB load (server log)", "s", "load_s",
            [at_most(1.25, "strings", "strings"), at_most(1.25, "strings", "strings", "fast")]),
        row("peak RSS after load", "MiB", "rss_mib", rss_limits),
        Row("RDB", "peak RSS ÷ (data + 64 MiB)", None, "ratio",
            dict.fromkeys(VARIANTS) | headroom, ["strings"]),
    ]
