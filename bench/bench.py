#!/usr/bin/env python3
"""Benchmark driver: redis-bf against RedisBloom and against plain Redis commands.

Runs the same redis-server binary three ways (with redis-bf, with RedisBloom, bare), drives
them with redis-benchmark in interleaved rounds, adds one-off measurements (memory, false
positives, main-thread time of big allocations and frees, RDB save/load), prints one table and
writes bench/results/latest.{csv,txt,png}. See bench/README.md.

Usage (from the repository root): python3 bench/bench.py [--quick] [--no-big]
Standard library only, except matplotlib for the chart (installed under target/ on demand).
"""

from __future__ import annotations

import argparse
import atexit
import datetime
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness import (BENCHMARK_PIN, MIB, MODULE_SO, REDIS_BENCHMARK, REDIS_SERVER, RESULTS,
                     SERVER_PIN, TMP_ROOT, BenchError, RespError, Server, command_output,
                     fast_layout_available, fetch_redisbloom, kill_all_servers, log,
                     module_version)
from oneoff import measure_main_thread, measure_memory, measure_rdb
from report import Row, render_table, write_chart, write_csv
from throughput import load_data, measure_throughput, throughput_rows, workloads


def machine_facts() -> dict[str, str]:
    cpu = re.search(r"Model name:\s*(.+)", command_output("lscpu"))
    ram = re.search(r"MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text())
    head = command_output("git", "rev-parse", "--short", "HEAD")
    # The results this script writes do not make the tree dirty; anything else does.
    changes = command_output("git", "status", "--porcelain", "--", ".", ":(exclude)bench/results")
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "CPU": cpu.group(1) if cpu else "unknown",
        "nproc": str(len(os.sched_getaffinity(0))),
        "RAM": f"{int(ram.group(1)) / MIB:.1f} GiB",
        "kernel": os.uname().release,
        "redis-server": command_output(REDIS_SERVER, "--version"),
        "redis-bf commit": head + (" (dirty tree)" if changes else " (clean tree)"),
        "module": f"{MODULE_SO} built {time.ctime(MODULE_SO.stat().st_mtime)}",
        "pinning": (f"servers {' '.join(SERVER_PIN)}, redis-benchmark {' '.join(BENCHMARK_PIN)}"
                    if SERVER_PIN else "none (fewer than 2 CPUs or no taskset)"),
    }


def run(args: argparse.Namespace, workdir: Path) -> None:
    facts = machine_facts()
    # A private copy: the other engineer may rebuild the module while this runs, and every
    # redis-bf server of the run (restarts included) must load the same build.
    module = workdir / "libredis_bf.so"
    shutil.copy2(MODULE_SO, module)
    redisbloom = fetch_redisbloom()

    bf_server = Server("redis-bf", workdir / "redis-bf", module).start()
    rb_server = Server("RedisBloom", workdir / "RedisBloom", redisbloom).start()
    bf, rb = bf_server.client(), rb_server.client()
    facts["redis-bf version"] = module_version(bf, module)
    facts["RedisBloom version"] = module_version(rb, redisbloom)
    fast = fast_layout_available(bf)
    facts["fast layout"] = "available" if fast else "unavailable (n/a)"
    facts["lazyfree-lazy-user-del"] = bf.call("CONFIG", "GET", "lazyfree-lazy-user-del")[1].decode()
    facts["mode"] = ("quick" if args.quick else "full") + (", no big" if not args.big else "")

    setup = load_data(bf, rb, fast, args.quick, args.big)
    work = workloads(setup, fast, args.big)
    medians = measure_throughput(work, {"redis-bf": bf_server.port, "RedisBloom": rb_server.port},
                                 3 if args.quick else 5, args.quick)
    rows = throughput_rows(work, medians)
    rows += measure_memory(bf, rb, fast)
    if args.big:
        rows += measure_main_thread(bf, rb, fast)
    bf.close()
    rb.close()
    bf_server.stop()  # frees its memory before the RDB servers start
    rb_server.stop()
    if args.big:
        rows += measure_rdb(workdir, module, redisbloom, fast)

    report(rows, facts)


def report(rows: list[Row], facts: dict[str, str]) -> None:
    table = render_table(rows)
    print(table)
    RESULTS.mkdir(parents=True, exist_ok=True)
    header = "".join(f"{key}: {value}\n" for key, value in facts.items())
    (RESULTS / "latest.txt").write_text(f"{header}\n{table}\n")
    write_csv(rows, RESULTS / "latest.csv")
    title = (f"redis-bf throughput relative to plain-Redis baselines — {facts['date'][:10]} — "
             f"{facts['CPU']}, {facts['nproc']} CPUs, {facts['mode']}")
    try:
        write_chart(rows, RESULTS / "latest.png", title)
    except (ImportError, subprocess.CalledProcessError) as error:
        log(f"WARNING: PNG skipped, matplotlib unavailable ({error})")
    log(f"wrote {RESULTS}/latest.csv, latest.txt, latest.png")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="3 rounds, a quarter of the requests, 500k-item prefill")
    parser.add_argument("--no-big", dest="big", action="store_false",
                        help="skip everything that needs a ~1 GiB filter")
    args = parser.parse_args()
    for tool in (REDIS_SERVER, REDIS_BENCHMARK):
        if not shutil.which(tool):
            print(f"bench: {tool} not found", file=sys.stderr)
            return 2
    if not MODULE_SO.exists():
        print(f"bench: {MODULE_SO} missing: run cargo build --release", file=sys.stderr)
        return 2

    atexit.register(kill_all_servers)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwind through the finally
    workdir = TMP_ROOT / f"run-{os.getpid()}"
    workdir.mkdir(parents=True)
    failed = True
    try:
        run(args, workdir)
        failed = False
    except (BenchError, RespError, OSError, subprocess.SubprocessError) as error:
        print(f"bench: {type(error).__name__}: {error}", file=sys.stderr)
    finally:
        kill_all_servers()
        if failed:  # keep the logs for a look, not the RDB files of up to a GiB each
            for leftover in workdir.glob("*/dump.rdb"):
                leftover.unlink()
            print(f"bench: server directories kept in {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
