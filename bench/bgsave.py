#!/usr/bin/env python3
"""BGSAVE of a ~1 GiB filter under a steady BF.ADD load, with `bf-huge-pages yes` and `no`:
the copy-on-write the child reports (`rdb_last_cow_size`), the fork time, the worst and 99th
percentile BF.ADD latency seen by a client while the child runs (and the BGSAVE call's own
round trip, which includes the fork), the server's RSS and how much
of it is huge pages (AnonHugePages). The two settings alternate, each on a fresh server.

Run it alone (it is not part of `make bench`): python3 bench/bgsave.py [--rounds N]
[--rate ADDS_PER_SECOND]. It prints one line per run and a summary (minimum and median per
setting); see bench/README.md."""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from pathlib import Path

from harness import (MODULE_SO, TMP_ROOT, BenchError, Module, Server, kill_all_servers, log,
                     make_big_filter)

SETTINGS = ("yes", "no")


def smaps_kib(pid: int, field: str) -> int:
    text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.M).group(1))


def one_run(setting: str, workdir: Path, rate: int) -> dict[str, float]:
    module = Module(MODULE_SO, ("bf-huge-pages", setting))
    server = Server(f"bgsave-{setting}", workdir / f"bgsave-{setting}", module).start()
    try:
        client = server.client()
        shown = client.info("bf").get("bf_huge_pages")
        log(f"bf-huge-pages {setting} (INFO bf: {shown}): filling the ~1 GiB filter")
        make_big_filter(client, "big", ())
        pid = server.proc.pid
        huge_mib = smaps_kib(pid, "AnonHugePages") / 1024
        rss_before = int(client.info("memory")["used_memory_rss"]) / (1 << 20)
        # The load: BF.ADD of new random items, paced at `rate` per second, one client,
        # unpipelined, each round trip timed; it runs from just before the fork until the
        # child is done.
        latencies: list[float] = []
        interval = 1.0 / rate
        sent = time.perf_counter()
        client.call("BGSAVE")
        # The fork happens inside the BGSAVE call: every client waits for it.
        bgsave_call_ms = (time.perf_counter() - sent) * 1000
        started = time.monotonic()
        next_at = started
        while True:
            now = time.monotonic()
            if now < next_at:
                time.sleep(next_at - now)
            next_at += interval
            sent = time.perf_counter()
            client.call("BF.ADD", "big", f"new:{random.getrandbits(64)}")
            latencies.append(time.perf_counter() - sent)
            if len(latencies) % 200 == 0:
                if client.info("persistence")["rdb_bgsave_in_progress"] == "0":
                    break
        save_s = time.monotonic() - started
        info = client.info("persistence", "stats", "memory")
        if info["rdb_last_bgsave_status"] != "ok":
            raise BenchError(f"BGSAVE failed\n{server.log_tail()}")
        latencies.sort()
        client.close()
        return {
            "cow_mib": int(info["rdb_last_cow_size"]) / (1 << 20),
            "fork_ms": int(info["latest_fork_usec"]) / 1000,
            "bgsave_call_ms": bgsave_call_ms,
            "save_s": save_s,
            "adds": len(latencies),
            "max_ms": latencies[-1] * 1000,
            "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000,
            "rss_before_mib": rss_before,
            "rss_after_mib": int(info["used_memory_rss"]) / (1 << 20),
            "huge_mib": huge_mib,
        }
    finally:
        server.stop()
        (server.dir / "dump.rdb").unlink(missing_ok=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2, help="runs per setting (default 2)")
    parser.add_argument("--rate", type=int, default=5000,
                        help="BF.ADD per second during the save (default 5000)")
    args = parser.parse_args()
    workdir = TMP_ROOT / "bgsave"
    results: dict[str, list[dict[str, float]]] = {s: [] for s in SETTINGS}
    try:
        for round_no in range(args.rounds):
            for setting in SETTINGS if round_no % 2 == 0 else reversed(SETTINGS):
                run = one_run(setting, workdir, args.rate)
                results[setting].append(run)
                print(f"huge pages {setting:3}: " + ", ".join(
                    f"{name} {value:.1f}" for name, value in run.items()), flush=True)
    finally:
        kill_all_servers()
    for setting, runs in results.items():
        print(f"summary, huge pages {setting} ({len(runs)} runs; min / median): " + ", ".join(
            f"{name} {min(r[name] for r in runs):.1f} / "
            f"{statistics.median(r[name] for r in runs):.1f}" for name in runs[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
