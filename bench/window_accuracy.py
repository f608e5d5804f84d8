#!/usr/bin/env python3
"""Accuracy of the sketches that forget against exact counts of their window, beside what a
user has without them: a classic sketch (which never forgets) and a client-side ring of
classic sketches, one per slot, summed (or merged) by the client.

A Zipf stream (s = 1 over ITEMS items) whose heaviest ranks move to other items every quarter
window ("churn") goes to every structure on one redis-server with redis-bf; count windows, so
that the run is deterministic and the ring rotates exactly once per slot. At checkpoints
spread over the stream it compares, for the Count-Min sketches, every heavy and a sample of
light items' estimates with their exact window counts (undercounts, mean and largest
over-count); for the Top-Ks, the listed items against the window's true top k (recall) and
the reported counts against the exact ones.

    bench/window_accuracy.py [--module target/release/libredis_bf.so] [--window 100000]

Memory is the same for each sketch family's three structures: the windowed sketch's
(SLOTS + 1 counters a cell), S + 1 classic sketches of the same shape, and one classic sketch
S + 1 times as wide. Last, the in-command time of a write that opens a tick, and of the first
after an idle gap. The method and the latest figures are in bench/README.md.
"""

from __future__ import annotations

import argparse
import bisect
import random
import tempfile
import time
from collections import Counter, deque
from pathlib import Path

from harness import Module, Server, log, raise_errors

ITEMS = 200_000
SLOTS = 4
HEAVY = 50  # heavy items checked per checkpoint
LIGHT = 2_000  # random items of the window checked per checkpoint
K = 50
CHECKPOINT_STEP = 30_011  # updates between checkpoints: a prime, so each falls elsewhere in a slot


def zipf_stream(length: int, window: int, seed: int):
    """Item names of a Zipf stream, the heavy ranks moving every quarter window."""
    rng = random.Random(seed)
    harmonic, total = [], 0.0
    for rank in range(1, ITEMS + 1):
        total += 1.0 / rank
        harmonic.append(total)
    for n in range(length):
        rank = bisect.bisect_left(harmonic, rng.random() * total)
        epoch = n // (window // 4)
        # Churn: the 500 heaviest ranks are other items each quarter window.
        yield f"i{rank}-{epoch}" if rank < 500 else f"i{rank}"


def run(module: Path, window: int, width: int, depth: int) -> None:
    server = Server("accuracy", Path(tempfile.mkdtemp(prefix="window-accuracy-")),
                    Module(module), prefix=[]).start()
    c = server.client()
    slot = window // SLOTS
    ring = [f"ring{i}" for i in range(SLOTS + 1)]
    c.call("CMS.INITBYDIM", "win", width, depth, "WINDOW", window, "SLOTS", SLOTS)
    c.call("CMS.INITBYDIM", "classic", width * (SLOTS + 1), depth)
    for key in ring:
        c.call("CMS.INITBYDIM", key, width, depth)
    c.call("TOPK.RESERVE", "twin", K, width, depth, "0.9", "WINDOW", window, "SLOTS", SLOTS)
    c.call("TOPK.RESERVE", "tclassic", K, width * (SLOTS + 1), depth, "0.9")
    for key in ring:
        c.call("TOPK.RESERVE", "t" + key, K, width, depth, "0.9")
    last: deque[str] = deque()
    exact: Counter[str] = Counter()
    cms_rows: dict[str, list[float]] = {n: [] for n in ("window", "classic", "ring")}
    under = Counter()
    recall: dict[str, list[float]] = {n: [] for n in ("window", "classic", "ring")}
    count_error: dict[str, list[float]] = {n: [] for n in ("window", "classic", "ring")}
    length = 5 * window
    batch: list[str] = []
    rng = random.Random(7)

    def flush(position: int) -> None:
        current = ring[(position // slot) % len(ring)]
        pairs = [w for item in batch for w in (item, 1)]
        commands = [["CMS.INCRBY", "win", *pairs], ["CMS.INCRBY", "classic", *pairs],
                    ["CMS.INCRBY", current, *pairs], ["TOPK.ADD", "twin", *batch],
                    ["TOPK.ADD", "tclassic", *batch], ["TOPK.ADD", "t" + current, *batch]]
        for reply in c.pipeline(commands):
            raise_errors(reply)
        batch.clear()

    for n, item in enumerate(zipf_stream(length, window, seed=1)):
        position = n + 1
        if n % slot == 0 and n >= slot * len(ring):
            # The ring's oldest member is reused: emptied first, as a client would do.
            oldest = ring[(n // slot) % len(ring)]
            for key, command in ((oldest, ("CMS.INITBYDIM", oldest, width, depth)),
                                 ("t" + oldest, ("TOPK.RESERVE", "t" + oldest, K, width, depth,
                                                 "0.9"))):
                c.call("DEL", key)
                c.call(*command)
        batch.append(item)
        last.append(item)
        exact[item] += 1
        if len(last) > window:
            gone = last.popleft()
            exact[gone] -= 1
            if not exact[gone]:
                del exact[gone]
        # Checkpoints at phases of a slot that vary (a prime step), never only at its ends.
        at_checkpoint = position >= window * 2 and position % CHECKPOINT_STEP == 0
        if position % slot == 0 or len(batch) >= 1000 or at_checkpoint:
            flush(n)
        if at_checkpoint:
            checkpoint(c, exact, ring, rng, cms_rows, under, recall, count_error)
    c.close()
    server.stop()
    memory = 4 * width * depth * (SLOTS + 1)
    print(f"\nZipf s=1 over {ITEMS} items, churn each quarter window; window {window} updates, "
          f"{SLOTS} slots; {width}×{depth} counters a slot ({memory:,} bytes of counters each)")
    print("\n| CMS | undercounts | mean over-count, 50 heaviest | largest, 50 heaviest | "
          "mean over-count, light items |")
    print("|---|---|---|---|---|")
    for name in cms_rows:
        heavy, light = cms_rows[name][0::2], cms_rows[name][1::2]
        print(f"| {name} | {under[name]} | {mean(heavy):.2%} | {max(heavy):.2%} | "
              f"{mean(light):.1f} |")
    print(f"\n| Top-K (k {K}) | recall of the window's top {K} | median count error |")
    print("|---|---|---|")
    for name in recall:
        print(f"| {name} | {mean(recall[name]):.3f} | {median(count_error[name]):.1%} |")


def checkpoint(c, exact, ring, rng, cms_rows, under, recall, count_error) -> None:
    heaviest = [item for item, _ in exact.most_common(HEAVY)]
    light = rng.sample(sorted(exact), min(LIGHT, len(exact)))
    for items, relative in ((heaviest, True), (light, False)):
        estimates = {
            "window": c.call("CMS.QUERY", "win", *items),
            "classic": c.call("CMS.QUERY", "classic", *items),
            "ring": [sum(column) for column in
                     zip(*(c.call("CMS.QUERY", key, *items) for key in ring))],
        }
        for name, values in estimates.items():
            overs = []
            for item, estimate in zip(items, values):
                truth = exact[item]
                if estimate < truth:
                    under[name] += 1
                overs.append((estimate - truth) / truth if relative else estimate - truth)
            cms_rows[name].append(mean(overs))
    top = {item for item, _ in exact.most_common(K)}
    lists = {"window": flat(c.call("TOPK.LIST", "twin", "WITHCOUNT")),
             "classic": flat(c.call("TOPK.LIST", "tclassic", "WITHCOUNT"))}
    ring_counts: Counter[str] = Counter()
    for key in ring:
        for item, count in flat(c.call("TOPK.LIST", "t" + key, "WITHCOUNT")).items():
            ring_counts[item] += count
    lists["ring"] = dict(ring_counts.most_common(K))
    for name, listed in lists.items():
        recall[name].append(len(top & set(listed)) / K)
        count_error[name].extend(abs(count - exact[item]) / exact[item]
                                 for item, count in listed.items() if item in top)


def flat(reply) -> dict[str, int]:
    names = [x.decode() if isinstance(x, bytes) else x for x in reply[0::2]]
    return dict(zip(names, reply[1::2]))


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def median(values) -> float:
    values = sorted(values)
    return values[len(values) // 2] if values else 0.0


def tick_cost(module: Path, width: int, depth: int, calls: int = 2000) -> None:
    """In-command time of a CMS.INCRBY that opens a tick (a sketch of 64 ticks a 64 ms window:
    one a millisecond, a write every 2 ms) against one that never does (an hour's window),
    and of the first write after an idle gap of more than a window, which clears the whole
    array once; each from INFO commandstats, one call at a time."""
    server = Server("ticks", Path(tempfile.mkdtemp(prefix="window-ticks-")), Module(module),
                    prefix=[]).start()
    c = server.client()
    rows = []
    for key, timespan, pause in (("steady", 3_600_000, 0.002), ("ticking", 64, 0.002)):
        c.call("CMS.INITBYDIM", key, width, depth, "TIMESPAN", timespan, "SLOTS", SLOTS)
        c.call("CONFIG", "RESETSTAT")
        for n in range(calls):
            c.call("CMS.INCRBY", key, f"item{n}", 1)
            time.sleep(pause)
        rows.append((key, commandstats_usec(c)))
    idle = []
    for _ in range(20):
        time.sleep(0.2)  # more than the window and a slot
        c.call("CONFIG", "RESETSTAT")
        c.call("CMS.INCRBY", "ticking", "after-idle", 1)
        idle.append(commandstats_usec(c))
    c.close()
    server.stop()
    print(f"\n| CMS.INCRBY, {width}×{depth}, {SLOTS} slots | µs/call |")
    print("|---|---|")
    print(f"| in the newest tick (TIMESPAN 3600000) | {rows[0][1]:.2f} |")
    print(f"| opening a tick each call (TIMESPAN 64, a write every 2 ms) | {rows[1][1]:.2f} |")
    print(f"| first after an idle gap (whole array cleared), median of 20 | "
          f"{median(idle):.2f} |")


def commandstats_usec(c) -> float:
    stats = c.info("commandstats").get("cmdstat_cms.incrby", "")
    fields = dict(part.split("=") for part in stats.split(",") if "=" in part)
    return float(fields.get("usec_per_call", "nan"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--module", type=Path, default=Path("target/release/libredis_bf.so"))
    parser.add_argument("--window", type=int, default=100_000)
    parser.add_argument("--width", type=int, default=2000)
    parser.add_argument("--depth", type=int, default=5)
    args = parser.parse_args()
    log(f"window accuracy: window {args.window}, {args.width}×{args.depth}")
    run(args.module.resolve(), args.window, args.width, args.depth)
    tick_cost(args.module.resolve(), args.width, 7)


if __name__ == "__main__":
    main()
