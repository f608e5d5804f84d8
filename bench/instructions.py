#!/usr/bin/env python3
"""Instructions per call inside each module command, redis-bf against RedisBloom, counted by
callgrind: unlike time on a shared machine, a count does not move from run to run.

Each module's server runs under `valgrind --tool=callgrind`, collecting only inside
`RedisModuleCommandDispatcher` (the server's entry into every module command: the module's
code and the module API calls it makes, as INFO commandstats times it). The in-command cells
(incommand.py) run on the same fixtures, without the 1 GiB ones: counters zeroed, the probe
run, the counters dumped. Instructions are not time — a cache or TLB miss costs hundreds of
cycles and one instruction — so this judges the work the glue and the hashing add to every
call, not the memory-bound cells. See bench/README.md.

Usage (from the repository root, after `cargo build --release`):
    python3 bench/instructions.py [--cells TEXT[,TEXT]] [--rb-module PATH]

--rb-module loads another build where RedisBloom goes (an earlier redis-bf: what a change adds
to each call, exactly, whatever else the machine is doing).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from harness import (MODULE_SO, REDIS_BENCHMARK, TMP_ROOT, BenchError, Module, Server,
                     fetch_redisbloom, log)
from incommand import CELLS, FIXTURES, SERVERS, TWINS, Cell

CALLS = 5_000  # calls of a single-item probe (×100 probes: a tenth of it)
SLOW_UNDER_CALLGRIND = {"tdeq"}  # fixtures left out unless a cell of theirs is named
CONTROL_TIMEOUT = 120  # seconds for callgrind_control to be answered


def callgrind(pid: int, action: str) -> None:
    """`callgrind_control -z` (zero the counters) or `-d` (dump them to a new file)."""
    subprocess.run(["callgrind_control", action, str(pid)], check=True, capture_output=True,
                   timeout=CONTROL_TIMEOUT)


def dumped_total(out: Path, before: set[Path]) -> int:
    """The instruction total of the one dump file that appeared since `before`."""
    deadline = time.monotonic() + CONTROL_TIMEOUT
    while time.monotonic() < deadline:
        new = set(out.parent.glob(out.name + ".*")) - before
        for path in new:
            match = re.search(r"^(?:summary|totals): (\d+)", path.read_text(), re.M)
            if match:
                return int(match.group(1))
        time.sleep(0.1)
    raise BenchError(f"no callgrind dump appeared next to {out}")


def count(server: Server, out: Path, cell: Cell, name: str) -> float:
    """Instructions per call (per item for ×100 cells) of the cell's probe on `server`."""
    fixture = FIXTURES[cell.key]
    client = server.client()
    try:
        if fixture.refill:
            fixture.refill(client, cell.args(name)[1])
    finally:
        client.close()
    calls = CALLS // (10 if cell.items > 1 else 1)
    before = set(out.parent.glob(out.name + ".*"))
    callgrind(server.proc.pid, "-z")
    subprocess.run([REDIS_BENCHMARK, "-h", "127.0.0.1", "-p", str(server.port), "-c", "4",
                    "-P", "16", "-n", str(calls), "-r", str(cell.keyspace), *cell.args(name)],
                   check=True, capture_output=True, timeout=1800)
    callgrind(server.proc.pid, "-d")
    return dumped_total(out, before) / (calls * cell.items)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", default="", metavar="TEXT[,TEXT]",
                        help="only the cells whose titles contain one of the texts (any case)")
    parser.add_argument("--rb-module", type=Path, default=None, metavar="PATH",
                        help="a module to load where RedisBloom goes (an earlier redis-bf build)")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        print("instructions.py: valgrind not found (Debian: apt-get install valgrind)",
              file=sys.stderr)
        return 2
    wanted = [t.strip().lower() for t in args.cells.split(",") if t.strip()]
    # The equal-values t-digest is built by RedisBloom in quadratic time: minutes natively,
    # hours under callgrind. It is counted only when asked for by name.
    cells = [c for c in CELLS if not c.sanity and not FIXTURES[c.key].big
             and (any(w in c.title.lower() for w in wanted)
                  or not wanted and c.key not in SLOW_UNDER_CALLGRIND)]
    workdir = TMP_ROOT / "instructions"
    shutil.rmtree(workdir, ignore_errors=True)
    other = args.rb_module or fetch_redisbloom()
    modules = {"redis-bf": Module(MODULE_SO), "RedisBloom": Module(other)}
    # Per server and probe (its argument list): a FAST cell's RedisBloom probe is its classic
    # twin's, counted once.
    counts: dict[tuple[str, tuple[str, ...]], float] = {}
    for name in SERVERS:
        out = workdir / name / "callgrind.out"
        server = Server(name, workdir / name, modules[name],
                        prefix=["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                                "--toggle-collect=RedisModuleCommandDispatcher"])
        server.start()
        try:
            client = server.client()
            try:
                for key, twin in dict.fromkeys((c.key, c.twin if name == "redis-bf" else None)
                                               for c in cells):
                    named = key + (f"_{twin}" if twin else "")
                    log(f"instructions: {name}: {named}")
                    FIXTURES[key].build(client, named, TWINS[twin][0] if twin else ())
            finally:
                client.close()
            for cell in cells:
                probe = (name, cell.args(name))
                if probe not in counts:
                    counts[probe] = count(server, out, cell, name)
                    log(f"instructions: {name}: {' '.join(probe[1][:3])}: {counts[probe]:.0f}")
        finally:
            server.stop()

    if args.rb_module:
        print(f"RedisBloom replaced by: {args.rb_module}")
    print(f"{'instructions per call (per item for ×100)':<48} | redis-bf | RedisBloom |  ÷RB")
    print("-" * 49 + "+" + "-" * 10 + "+" + "-" * 12 + "+------")
    for cell in cells:
        ours = counts["redis-bf", cell.args("redis-bf")]
        theirs = counts["RedisBloom", cell.args("RedisBloom")]
        print(f"{cell.title:<48} | {ours:8.0f} | {theirs:10.0f} | {ours / theirs:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
