#!/usr/bin/env python3
"""Benchmark driver: redis-bf against RedisBloom and against plain Redis commands.

Two sections, each on its own servers started from the same redis-server binary:
- in-command (primary): the time each command spends inside the server, from INFO
  commandstats, redis-bf against RedisBloom, minimum over interleaved rounds (incommand.py);
- throughput (secondary): redis-benchmark rates against plain-Redis baselines, plus one-off
  measurements: memory, false positives, main-thread time of big allocations and frees, RDB
  save/load (throughput.py, oneoff.py).
Prints the tables and writes bench/results/latest.{txt,csv,png}. See bench/README.md.

Usage (from the repository root): python3 bench/bench.py [--quick] [--no-big]
    [--only incommand|throughput] [--cells TEXT[,TEXT]] [--rounds N]
    [--bf-args "NAME VALUE ..."] [--note TEXT]
Standard library only, except matplotlib for the chart (installed under target/ on demand).
"""

from __future__ import annotations

import argparse
import atexit
import datetime
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import harness
from harness import (BENCHMARK_PIN, MIB, MODULE_SO, REDIS_BENCHMARK, RESULTS,
                     SERVER_PIN, TMP_ROOT, BenchError, Client, Module, RespError, Server,
                     command_output, fast_layout_available, fetch_redisbloom, kill_all_servers,
                     START, log, module_version)
from incommand import (CELLS, CLIENTS, FIXTURES, PIPELINE, Cell, CellResult, measure_incommand,
                       requests_for)
from oneoff import (measure_filter_merges, measure_main_thread, measure_memory, measure_merges,
                    measure_rdb, measure_sparse_walks)
from report import Row, render_incommand, render_table, write_chart, write_csv
from throughput import load_data, measure_throughput, throughput_rows, workloads


# The results' header line naming the module that --rb-module put where RedisBloom goes.
REPLACED_RB = "RedisBloom replaced by"

def machine_facts() -> dict[str, str]:
    cpu = re.search(r"Model name:\s*(.+)", command_output("lscpu"))
    ram = re.search(r"MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text())
    head = command_output("git", "rev-parse", "--short", "HEAD")
    # The commit that last changed what the module is built from (bench changes do not).
    source = command_output("git", "log", "-1", "--format=%h", "--", "src", "Cargo.toml",
                            "Cargo.lock")
    # The results this script writes do not make the tree dirty; anything else does.
    changes = command_output("git", "status", "--porcelain", "--", ".", ":(exclude)bench/results")
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "CPU": cpu.group(1) if cpu else "unknown",
        "nproc": str(len(os.sched_getaffinity(0))),
        "RAM": f"{int(ram.group(1)) / MIB:.1f} GiB",
        "kernel": os.uname().release,
        "redis-server": command_output(harness.REDIS_SERVER, "--version"),
        "redis-bf commit": head + (" (dirty tree)" if changes else " (clean tree)")
        + f", module source last changed in {source}",
        "module": f"{MODULE_SO} built {time.ctime(MODULE_SO.stat().st_mtime)}",
        "pinning": (f"servers {' '.join(SERVER_PIN)}, redis-benchmark {' '.join(BENCHMARK_PIN)}"
                    if SERVER_PIN else "none (fewer than 2 CPUs or no taskset)"),
    }


SECTIONS = ("incommand", "throughput")


def start_servers(workdir: Path, section: str, module: Module,
                  redisbloom: Module) -> dict[str, Server]:
    return {"redis-bf": Server(f"{section} redis-bf", workdir / f"{section}-redis-bf",
                               module).start(),
            "RedisBloom": Server(f"{section} RedisBloom", workdir / f"{section}-RedisBloom",
                                 redisbloom).start()}


def describe(servers: dict[str, Server], bf: Client, rb: Client, facts: dict[str, str]) -> bool:
    """Versions, module arguments and the fast layout into the facts (once); whether the
    fast layout is available."""
    fast = fast_layout_available(bf)
    for name, client in (("redis-bf", bf), ("RedisBloom", rb)):
        server = servers[name]
        facts.setdefault(f"{name} version", module_version(client, server.module.path))
        facts.setdefault(f"{name} module args", "; ".join(server.module_args_report) or "none")
    facts.setdefault("fast layout", "available" if fast else "unavailable (n/a)")
    # Whether big bit arrays get huge pages (bf-huge-pages, and whether the system allows it).
    facts.setdefault("redis-bf huge pages", bf.info("bf").get("bf_huge_pages", "n/a (no INFO bf)"))
    return fast


def run_incommand(args: argparse.Namespace, workdir: Path, module: Module, redisbloom: Module,
                  facts: dict[str, str]) -> list[CellResult]:
    """The cells on one pair of servers, and the 1 GiB cells on a pair of their own, each
    pair with its GET sanity cell and its BF.CARD floor: a server holding a 1 GiB filter
    answered even GET 7–16% more slowly (RedisBloom's, whose filter lies in 4 KiB pages), which
    voided every other cell of the run."""
    facts["in-command"] = (f"{args.rounds} rounds after a warm-up, redis-benchmark -c {CLIENTS} "
                           f"-P {PIPELINE} --threads 1, -n {requests_for(1, args.quick):,} "
                           f"(×100 commands: {requests_for(100, args.quick):,}) per run")
    small = [c for c in args.cells if not FIXTURES[c.key].big]
    big = [c for c in args.cells if FIXTURES[c.key].big] if args.big else []
    judges = [replace(c, title=f"{c.title}, 1 GiB servers") for c in small
              if c.sanity or c.floor]
    results = []
    for section, cells in (("incommand", small), ("incommand-big", judges + big)):
        if not any(not (c.sanity or c.floor) for c in cells):
            continue
        servers = start_servers(workdir, section, module, redisbloom)
        bf, rb = servers["redis-bf"].client(), servers["RedisBloom"].client()
        try:
            fast = describe(servers, bf, rb, facts)
        finally:
            bf.close()
            rb.close()
        results += measure_incommand(servers, fast, args.rounds, args.quick, cells)
        for server in servers.values():
            server.stop()
    return results


def run_throughput(args: argparse.Namespace, workdir: Path, module: Module, redisbloom: Module,
                   facts: dict[str, str]) -> list[Row]:
    servers = start_servers(workdir, "throughput", module, redisbloom)
    bf_server, rb_server = servers["redis-bf"], servers["RedisBloom"]
    bf, rb = bf_server.client(), rb_server.client()
    fast = describe(servers, bf, rb, facts)
    facts["lazyfree-lazy-user-del"] = bf.call("CONFIG", "GET", "lazyfree-lazy-user-del")[1].decode()

    setup = load_data(bf, rb, fast, args.quick, args.big)
    work = workloads(setup, fast, args.big)
    medians = measure_throughput(work, {"redis-bf": bf_server.port, "RedisBloom": rb_server.port},
                                 3 if args.quick else 5, args.quick)
    rows = throughput_rows(work, medians)
    rows += measure_memory(bf, rb, fast)
    rows += measure_merges(bf, rb, fast)
    rows += measure_filter_merges(bf, fast)
    if args.big:
        rows += measure_main_thread(bf, rb, fast)
        rows += measure_sparse_walks(bf, rb, fast)
    bf.close()
    rb.close()
    bf_server.stop()  # frees its memory before the RDB servers start
    rb_server.stop()
    if args.big:
        rows += measure_rdb(workdir, module, redisbloom, fast)
    return rows


def run(args: argparse.Namespace, workdir: Path) -> None:
    facts = machine_facts()
    if args.note:
        facts["note"] = args.note
    # A private copy: the other engineer may rebuild the module while this runs, and every
    # redis-bf server of the run (restarts included) must load the same build.
    module = Module(workdir / "libredis_bf.so", tuple(args.bf_args))
    shutil.copy2(MODULE_SO, module.path)
    if args.rb_module:
        # Another build stands where RedisBloom goes (see --rb-module); copied for the same
        # reason as ours.
        redisbloom = Module(workdir / "baseline.so", tuple(args.rb_args))
        shutil.copy2(args.rb_module, redisbloom.path)
        facts[REPLACED_RB] = str(args.rb_module)
    else:
        redisbloom = Module(fetch_redisbloom(), tuple(args.rb_args))
    facts["mode"] = (("quick" if args.quick else "full") + (", no big" if not args.big else "")
                     + f", sections: {', '.join(args.only)}")
    facts["load average at start"] = " ".join(f"{x:.2f}" for x in os.getloadavg())

    results = run_incommand(args, workdir, module, redisbloom, facts) \
        if "incommand" in args.only else []
    rows = run_throughput(args, workdir, module, redisbloom, facts) \
        if "throughput" in args.only else []
    facts["load average at end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    facts["duration"] = f"{time.monotonic() - START:.0f} s"
    # A run of chosen cells, or against another module, does not replace the last whole run's
    # results.
    whole = args.cells is CELLS and not args.rb_module
    report(results, rows, facts, "latest" if whole else "cells")


def report(results: list[CellResult], rows: list[Row], facts: dict[str, str], stem: str) -> None:
    parts = []
    if results:
        parts.append("In-command time (primary)\n\n" + render_incommand(results))
    if rows:
        parts.append("Throughput and one-off measurements (secondary)\n\n" + render_table(rows))
    text = "\n\n\n".join(parts)
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    header = "".join(f"{key}: {value}\n" for key, value in facts.items())
    (RESULTS / f"{stem}.txt").write_text(f"{header}\n{text}\n")
    write_csv(results, rows, RESULTS / f"{stem}.csv")
    against = facts.get(REPLACED_RB, "RedisBloom 2.8.2")
    title = (f"redis-bf vs {against}, same redis-server — {facts['date'][:10]} — "
             f"{facts['CPU']}, {facts['nproc']} CPUs, {facts['mode']}")
    try:
        write_chart(results, rows, RESULTS / f"{stem}.png", title)
    except (ImportError, subprocess.CalledProcessError) as error:
        log(f"WARNING: PNG skipped, matplotlib unavailable ({error})")
    log(f"wrote {RESULTS}/{stem}.csv, {stem}.txt, {stem}.png")


def sections(text: str) -> list[str]:
    chosen = [s.strip() for s in text.split(",") if s.strip()]
    unknown = set(chosen) - set(SECTIONS)
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"sections are {', '.join(SECTIONS)}")
    return [s for s in SECTIONS if s in chosen]


def chosen_cells(text: str) -> list[Cell]:
    """The in-command cells whose titles contain one of the comma-separated texts (any case),
    the GET sanity cell, which every run needs to be judged, and the module-call floor
    (BF.CARD), which every cell's target above the floor needs."""
    wanted = [t.strip().lower() for t in text.split(",") if t.strip()]
    chosen = [c for c in CELLS if any(w in c.title.lower() for w in wanted)]
    if not chosen:
        raise argparse.ArgumentTypeError(f"no in-command cell's title contains {text!r}")
    return [c for c in CELLS if c.sanity or c.floor or c in chosen]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="3 rounds instead of 7 (in-command) and 5 (throughput), a quarter "
                             "of the requests, and a 500k-item prefill for throughput")
    parser.add_argument("--no-big", dest="big", action="store_false",
                        help="skip everything that needs a ~1 GiB filter")
    parser.add_argument("--only", type=sections, default=list(SECTIONS),
                        metavar="SECTION[,SECTION]",
                        help="incommand (the primary table) and/or throughput (throughput, "
                             "memory, main thread, RDB); default: both")
    parser.add_argument("--cells", type=chosen_cells, default=CELLS, metavar="TEXT[,TEXT]",
                        help="only the in-command cells whose titles contain one of the texts "
                             "(and the GET cell); implies --only incommand; results go to "
                             "bench/results/cells.*, leaving latest.* to whole runs")
    parser.add_argument("--rounds", type=int, default=None,
                        help="in-command rounds (default 7, or 3 with --quick)")
    parser.add_argument("--bf-args", type=shlex.split,
                        default=shlex.split(os.environ.get("BENCH_BF_ARGS", "")),
                        metavar='"NAME VALUE ..."',
                        help="module arguments for redis-bf (default: $BENCH_BF_ARGS); each "
                             "one that is a config must read back as given, or the run fails")
    parser.add_argument("--rb-args", type=shlex.split,
                        default=shlex.split(os.environ.get("BENCH_RB_ARGS", "")),
                        metavar='"NAME VALUE ..."',
                        help="module arguments for RedisBloom (default: $BENCH_RB_ARGS)")
    parser.add_argument("--rb-module", type=Path, default=None, metavar="PATH",
                        help="load this module where RedisBloom goes: an earlier build of "
                             "redis-bf, to see what a change does, or the same build, to see "
                             "how far apart identical code lands in this run (every ratio "
                             "should be 1.00); results go to bench/results/cells.*")
    parser.add_argument("--server", default=os.environ.get("BENCH_SERVER", harness.REDIS_SERVER),
                        metavar="PATH",
                        help="the server binary of every server of the run (default: "
                             "$BENCH_SERVER or Debian's redis-server), e.g. a valkey-server "
                             "to measure against valkey-bloom with --rb-module")
    parser.add_argument("--note", default="",
                        help="a line for the results' header (e.g. that the machine was shared)")
    args = parser.parse_args()
    if args.cells is not CELLS:
        args.only = ["incommand"]
    if args.rounds is None:
        args.rounds = 3 if args.quick else 7
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    harness.REDIS_SERVER = args.server
    for tool in (harness.REDIS_SERVER, REDIS_BENCHMARK):
        if not shutil.which(tool):
            print(f"bench: {tool} not found", file=sys.stderr)
            return 2
    if args.rb_module and not args.rb_module.is_file():
        parser.error(f"--rb-module: {args.rb_module} is not a file")
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
