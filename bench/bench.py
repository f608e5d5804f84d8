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
import csv
import datetime
import io
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import textwrap
import time
from collections import defaultdict
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TMP_ROOT = ROOT / "target" / "bench-tmp"
PYTHON_DEPS = ROOT / "target" / "bench-python"
MODULE_SO = ROOT / "target" / "release" / "libredis_bf.so"
FETCH_ANCHORS = ROOT / "scripts" / "fetch-anchors.sh"
REDIS_SERVER = "/usr/bin/redis-server"
REDIS_BENCHMARK = "redis-benchmark"

MIB = 1 << 20
CHUNK = 16 * MIB  # the largest BF.LOADCHUNK / SCANDUMP chunk
BATCH = 1000  # items per pipelined BF.MADD / BF.MEXISTS / SADD when loading data

# Sizes of the data sets (the brief's numbers; --quick shrinks only the 10M filter's prefill).
PREFILL_FULL, PREFILL_QUICK = 5_000_000, 500_000
SET_MEMBERS = 1_000_000  # members of the SMISMEMBER baseline set
BIG_MEMBERS = 1_000_000  # members added to the ~1 GiB filters
BIG_CAPACITY = 896_000_000
CHAIN_MEMBERS = 520_000  # makes s10 (capacity 1000, expansion 2) grow to 10 sub-filters
BITMAP_BITS = 95_850_000  # the Lua SETBIT baseline's bitmap
RANDOM_RANGE = 100_000_000  # -r for commands that add new items
FPR_ITEMS, FPR_PROBES = 1_000_000, 2_000_000
STRINGS = 64  # 64 strings of 16 MiB: the plain-Redis RDB baseline

# The go-zero-style baseline: 7 SETBITs per item from a Lua script. h * 2654435761 exceeds 2^53,
# so Lua's double `%` is off by a few units for 16 of the 10^8 possible h, once in a while
# giving a negative offset (SETBIT fails and redis-benchmark stops); the second `%` of the then
# small number puts it back in range, for the cost of one arithmetic operation.
LUA_SETBIT = (
    "local h = tonumber(ARGV[1]) for i = 1, 7 do "
    "redis.call('SETBIT', KEYS[1], (h * 2654435761 + i * 40503) % 95850000 % 95850000, 1) "
    "end return 1"
)

VARIANTS = ("redis-bf", "RedisBloom", "fast")
START = time.monotonic()


def log(message: str) -> None:
    """Progress goes to stderr so that stdout carries only the table."""
    print(f"[{time.monotonic() - START:7.1f}s] {message}", file=sys.stderr, flush=True)


class BenchError(Exception):
    """Something broke (as opposed to a missed target)."""


# --------------------------------------------------------------------------------------------
# A minimal RESP2 client: binary-safe bulk strings, arrays, errors, integers, pipelining.


class RespError(Exception):
    """An error reply. Parsed replies carry it as a value (so a pipeline stays in step);
    Client.call raises it."""


def encode(args) -> bytes:
    parts = [b"*%d\r\n" % len(args)]
    for arg in args:
        if not isinstance(arg, bytes):
            arg = str(arg).encode()
        parts += (b"$%d\r\n" % len(arg), arg, b"\r\n")
    return b"".join(parts)


class Client:
    def __init__(self, port: int, timeout: float = 600.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb", buffering=MIB)

    def close(self) -> None:
        self.reader.close()
        self.sock.close()

    def read_reply(self):
        line = self.reader.readline()
        if not line.endswith(b"\r\n"):
            raise ConnectionError("connection closed by the server")
        kind, body = line[:1], line[1:-2]
        if kind == b"+":
            return body.decode()
        if kind == b"-":
            return RespError(body.decode())
        if kind == b":":
            return int(body)
        if kind == b"$":
            length = int(body)
            return None if length < 0 else self.reader.read(length + 2)[:-2]
        if kind == b"*":
            length = int(body)
            return None if length < 0 else [self.read_reply() for _ in range(length)]
        raise BenchError(f"unexpected RESP line {line[:60]!r}")

    def call(self, *args):
        self.sock.sendall(encode(args))
        reply = self.read_reply()
        if isinstance(reply, RespError):
            raise reply
        return reply

    def pipeline(self, commands, window: int = 64):
        """Yields the replies to `commands` in order. Up to two windows are in flight, so the
        server works on one while the next is encoded and sent. Consume it to the end."""
        in_flight, batch = 0, []
        for command in commands:
            batch.append(encode(command))
            if len(batch) == window:
                self.sock.sendall(b"".join(batch))
                in_flight, batch = in_flight + window, []
                while in_flight > window:
                    yield self.read_reply()
                    in_flight -= 1
        if batch:
            self.sock.sendall(b"".join(batch))
            in_flight += len(batch)
        for _ in range(in_flight):
            yield self.read_reply()

    def info(self, section: str) -> dict[str, str]:
        text = self.call("INFO", section).decode()
        return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def raise_errors(reply):
    """Raises the first error in a reply, including errors nested in an array (BF.MADD answers
    a full non-scaling filter with per-item errors)."""
    for value in reply if isinstance(reply, list) else [reply]:
        if isinstance(value, RespError):
            raise value
    return reply


# --------------------------------------------------------------------------------------------
# Servers and redis-benchmark


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def cpu_pinning() -> tuple[list[str], list[str]]:
    """taskset prefixes for the servers and for redis-benchmark: one core each, so the client
    never steals the server's core. Nothing to pin with fewer than two cores or no taskset."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or not shutil.which("taskset"):
        return [], []
    return ["taskset", "-c", str(cpus[0])], ["taskset", "-c", str(cpus[1])]


SERVER_PIN, BENCHMARK_PIN = cpu_pinning()
LIVE_SERVERS: list["Server"] = []


class Server:
    """One redis-server process on a free loopback port, with its own directory and log."""

    def __init__(self, name: str, workdir: Path, module: Path | None):
        self.name, self.dir, self.module = name, workdir, module
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.dir.mkdir(parents=True, exist_ok=True)
        self.logfile = self.dir / "redis.log"

    def start(self) -> "Server":
        command = [*SERVER_PIN, REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                   "--dir", str(self.dir), "--logfile", str(self.logfile),
                   "--save", "", "--appendonly", "no", "--enable-debug-command", "local"]
        if self.module:
            command += ["--loadmodule", str(self.module)]
        with open(self.dir / "stderr.log", "ab") as stderr:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=stderr)
        LIVE_SERVERS.append(self)
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Waits until the server answers INFO with loading:0 (an RDB load answers -LOADING)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"{self.name} exited with {self.proc.returncode}\n{self.log_tail()}")
            try:
                client = Client(self.port, timeout=5)
                try:
                    if client.info("persistence").get("loading") == "0":
                        return
                finally:
                    client.close()
            except (OSError, RespError):
                pass  # not listening yet, or still loading
            time.sleep(0.05)
        raise BenchError(f"{self.name} not ready after {timeout:.0f}s\n{self.log_tail()}")

    def client(self) -> Client:
        return Client(self.port)

    def stop(self) -> None:
        """SHUTDOWN NOSAVE, as an operator would; kills the process if that does not work."""
        if not self.alive():
            return
        try:
            client = Client(self.port, timeout=30)
            client.sock.sendall(encode(["SHUTDOWN", "NOSAVE"]))
            client.reader.readline()  # the server closes the connection once it is down
            client.close()
            self.proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()
        if self in LIVE_SERVERS:
            LIVE_SERVERS.remove(self)

    def kill(self) -> None:
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        text = ""
        for path in (self.logfile, self.dir / "stderr.log"):
            if path.exists():
                text += "".join(path.read_text(errors="replace").splitlines(True)[-lines:])
        return f"--- log of {self.name} ({self.dir}) ---\n{text}"

    def peak_rss_mib(self) -> float:
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


def kill_all_servers() -> None:
    for server in list(LIVE_SERVERS):
        server.kill()
    LIVE_SERVERS.clear()


def redis_benchmark(port: int, pipeline: int, requests: int, keyspace: int, args) -> float:
    """Requests per second of one redis-benchmark run (CSV output: "test","rps",...)."""
    command = [*BENCHMARK_PIN, REDIS_BENCHMARK, "-h", "127.0.0.1", "-p", str(port), "-c", "50",
               "--threads", "1", "-P", str(pipeline), "-n", str(requests),
               "-r", str(keyspace), "--csv", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    # An error reply makes redis-benchmark print it and stop with exit code 0 but no data row.
    rows = [row for row in csv.DictReader(io.StringIO(done.stdout)) if row.get("rps")]
    if done.returncode != 0 or len(rows) != 1:
        raise BenchError(f"redis-benchmark failed: {' '.join(command)}\n"
                         f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return float(rows[0]["rps"])


# --------------------------------------------------------------------------------------------
# Loading data


def members(count: int, prefix: str = "", size: int = BATCH):
    """Batches of f"{prefix}{i:012d}" for i < count: with prefix "" exactly the values that
    redis-benchmark's __rand_int__ produces with -r count."""
    for start in range(0, count, size):
        yield [f"{prefix}{i:012d}" for i in range(start, min(start + size, count))]


def add_all(client: Client, command: str, key: str, count: int, prefix: str = "") -> None:
    """`command key item…` over every member batch, pipelined; fails on any error."""
    for reply in client.pipeline([command, key, *batch] for batch in members(count, prefix)):
        raise_errors(reply)


def count_hits(client: Client, key: str, count: int, prefix: str) -> int:
    """How many of `count` items BF.MEXISTS reports present."""
    batches = (["BF.MEXISTS", key, *batch] for batch in members(count, prefix))
    return sum(sum(raise_errors(reply)) for reply in client.pipeline(batches))


def info_field(client: Client, key: str, name: str):
    """BF.INFO key FIELD, which answers a one-element array, as RedisBloom does."""
    return client.call("BF.INFO", key, name)[0]


def filter_bytes(client: Client, key: str) -> int:
    """The bit array's byte count: BF.DEBUG's second line, field bytes: (one sub-filter)."""
    return int(re.search(rb"bytes:(\d+)", client.call("BF.DEBUG", key)[1]).group(1))


def make_big_filter(client: Client, key: str, layout: tuple[str, ...]) -> int:
    """A ~1 GiB non-scaling filter whose bits are random (~50% set, as a full filter's are),
    loaded 16 MiB at a time with BF.LOADCHUNK, then BIG_MEMBERS members. Returns its bytes."""
    client.call("BF.RESERVE", key, "0.01", BIG_CAPACITY, "NONSCALING", *layout)
    total = filter_bytes(client, key)
    for offset in range(0, total, CHUNK):
        length = min(CHUNK, total - offset)
        # A chunk's iterator is one past its end offset (what BF.SCANDUMP hands out).
        client.call("BF.LOADCHUNK", key, offset + length + 1, os.urandom(length))
    add_all(client, "BF.MADD", key, BIG_MEMBERS)
    # An empty filter answers no to practically every non-member; a random one, to ~0.5^k.
    if count_hits(client, key, 10_000, "probe") == 0:
        raise BenchError(f"BF.LOADCHUNK did not fill {key}: no false positives at all")
    return total


def fast_layout_available(client: Client) -> bool:
    """Whether redis-bf accepts LAYOUT FAST (both steps must succeed; older builds ignore the
    extra BF.RESERVE words but refuse BF.INFO … LAYOUT)."""
    try:
        client.call("BF.RESERVE", "probe", "0.01", "100", "LAYOUT", "FAST")
        layout = info_field(client, "probe", "LAYOUT")
        log(f"fast layout available (BF.INFO probe LAYOUT: {layout!r})")
        return True
    except RespError as error:
        log(f"fast layout unavailable ({error}): its cells print n/a")
        return False
    finally:
        client.call("DEL", "probe")


@dataclass
class Setup:
    prefill: int
    lua_sha: str


def load_data(bf: Client, rb: Client, fast: bool, quick: bool, big: bool) -> Setup:
    prefill = PREFILL_QUICK if quick else PREFILL_FULL
    filters = [(bf, "redis-bf", ""), (rb, "RedisBloom", "")]
    if fast:
        filters.append((bf, "fast", "_fast"))
    for client, name, suffix in filters:
        layout = ("LAYOUT", "FAST") if suffix else ()
        log(f"{name}: f10m{suffix} with {prefill:,} members")
        client.call("BF.RESERVE", f"f10m{suffix}", "0.01", "10000000", "NONSCALING", *layout)
        add_all(client, "BF.MADD", f"f10m{suffix}", prefill)
        if big:
            log(f"{name}: big{suffix} (~1 GiB of random bits, then {BIG_MEMBERS:,} members)")
            make_big_filter(client, f"big{suffix}", layout)

    for client, name, _ in filters[:2]:
        log(f"{name}: adds, madds, s10 and s1 ({CHAIN_MEMBERS:,} members each)")
        client.call("BF.RESERVE", "adds", "0.01", "10000000")
        client.call("BF.RESERVE", "madds", "0.01", "10000000")
        client.call("BF.RESERVE", "s10", "0.01", "1000", "EXPANSION", "2")
        client.call("BF.RESERVE", "s1", "0.01", "1023000", "NONSCALING")
        add_all(client, "BF.MADD", "s10", CHAIN_MEMBERS)
        add_all(client, "BF.MADD", "s1", CHAIN_MEMBERS)
        links = info_field(client, "s10", "FILTERS")
        log(f"{name}: s10 has {links} sub-filters")
        if links != 10:
            raise BenchError(f"{name}: s10 has {links} sub-filters, not 10")

    log(f"redis-bf: baselines (foo, set s of {SET_MEMBERS:,}, bitmap, Lua script)")
    bf.call("SET", "foo", "bar")
    add_all(bf, "SADD", "s", SET_MEMBERS)
    bf.call("SETBIT", "bits", BITMAP_BITS - 1, 0)
    return Setup(prefill, bf.call("SCRIPT", "LOAD", LUA_SETBIT).decode())


# --------------------------------------------------------------------------------------------
# Targets and result rows


@dataclass
class Target:
    """A requirement on one variant's value, or on its ratio to another entry of the row."""
    subject: str  # the variant judged: "redis-bf" or "fast"
    op: str  # ">=", "<=", "==" or "within" (|ratio - 1| <= limit)
    limit: float
    ref: str | None = None  # when set, the subject's value is divided by this entry's
    label: str = ""

    def measure(self, values: dict) -> float | None:
        value = values.get(self.subject)
        if value is None or self.ref is None:
            return value
        ref = values.get(self.ref)
        return value / ref if ref else None

    def verdict(self, values: dict) -> str:
        measured = self.measure(values)
        if measured is None:
            return "n/a"
        passed = {">=": measured >= self.limit, "<=": measured <= self.limit,
                  "==": measured == self.limit, "within": abs(measured - 1) <= self.limit}
        return "PASS" if passed[self.op] else "MISS"


def who(subject: str) -> str:
    return "" if subject == "redis-bf" else f"{subject} "


def factor_text(factor: float) -> str:
    return f"{factor:.1f}" if factor == int(factor) and factor < 10 else f"{factor:g}"


def at_least(factor: float, ref: str, ref_label: str, subject: str = "redis-bf") -> Target:
    return Target(subject, ">=", factor, ref, f"{who(subject)}≥{factor_text(factor)}×{ref_label}")


def at_most(factor: float, ref: str, ref_label: str, subject: str = "redis-bf") -> Target:
    return Target(subject, "<=", factor, ref, f"{who(subject)}≤{factor_text(factor)}×{ref_label}")


def no_more_than(limit: float, unit: str, subject: str = "redis-bf") -> Target:
    return Target(subject, "<=", limit, None, f"{who(subject)}≤{limit:g}{unit}")


@dataclass
class Row:
    section: str
    title: str
    pipeline: int | None
    unit: str  # how the values read: rps, items/s, ratio, ms, s, MiB, bytes, bits/item, FPR
    values: dict[str, float | None]  # variants and baselines by name
    baselines: list[str] = field(default_factory=list)  # names in values, main one first
    targets: list[Target] = field(default_factory=list)
    raw: dict[str, float] = field(default_factory=dict)  # extra measured rps, for the CSV only

    def verdict(self, targets=None) -> str:
        verdicts = {t.verdict(self.values) for t in (self.targets if targets is None else targets)}
        for verdict in ("MISS", "PASS", "n/a"):
            if verdict in verdicts:
                return verdict
        return ""


# --------------------------------------------------------------------------------------------
# Throughput: workloads, interleaved rounds


@dataclass(frozen=True)
class Cmd:
    server: str  # "redis-bf" or "RedisBloom": which server runs it
    args: tuple[str, ...]
    keyspace: int  # redis-benchmark -r
    items: int = 1  # items per command: the reported value is rps × items


@dataclass
class Workload:
    title: str
    commands: dict[str, Cmd]  # by variant or baseline name
    baselines: list[str]
    targets: dict[int, list[Target]] = field(default_factory=dict)  # by pipeline depth
    compares_fast: bool = False  # has a fast-layout variant (n/a when that is unavailable)
    # s10 vs s1: each variant's value is divided by this command's, on the same server
    per_server_ref: dict[str, str] = field(default_factory=dict)


def workloads(setup: Setup, fast: bool, big: bool) -> list[Workload]:
    def both(*args, keyspace: int, items: int = 1, fast_args=None) -> dict[str, Cmd]:
        cmds = {server: Cmd(server, args, keyspace, items) for server in ("redis-bf", "RedisBloom")}
        if fast and fast_args:
            cmds["fast"] = Cmd("redis-bf", fast_args, keyspace, items)
        return cmds

    rand100 = ("__rand_int__",) * 100
    get = {"GET": Cmd("redis-bf", ("GET", "foo"), 1)}
    smis = {"SMISMEMBER": Cmd("redis-bf", ("SMISMEMBER", "s", *rand100), 2 * SET_MEMBERS, 100)}
    lua = {"Lua SETBIT": Cmd("redis-bf", ("EVALSHA", setup.lua_sha, "1", "bits", "__rand_int__"),
                             RANDOM_RANGE)}
    vs_rb = lambda factor: at_least(factor, "RedisBloom", "RB")  # noqa: E731
    exists_targets = {16: [at_least(0.90, "GET", "GET"), vs_rb(1.3)]}
    both_depths = lambda targets: {1: targets, 16: targets}  # noqa: E731

    found = [
        Workload("BF.EXISTS 10M, members",
                 both("BF.EXISTS", "f10m", "__rand_int__", keyspace=setup.prefill,
                      fast_args=("BF.EXISTS", "f10m_fast", "__rand_int__")) | get,
                 ["GET"], exists_targets, compares_fast=True),
        Workload("BF.EXISTS 10M, non-members",
                 both("BF.EXISTS", "f10m", "x__rand_int__", keyspace=setup.prefill,
                      fast_args=("BF.EXISTS", "f10m_fast", "x__rand_int__")) | get,
                 ["GET"], exists_targets, compares_fast=True),
        Workload("BF.ADD new items",
                 both("BF.ADD", "adds", "a__rand_int__", keyspace=RANDOM_RANGE)
                 | {"SET": Cmd("redis-bf", ("SET", "foo", "__rand_int__"), RANDOM_RANGE)},
                 ["SET"], {16: [at_least(0.85, "SET", "SET"), vs_rb(1.3)]}),
    ]
    if big:
        found.append(Workload(
            "BF.EXISTS ~1 GiB, members",
            both("BF.EXISTS", "big", "__rand_int__", keyspace=BIG_MEMBERS,
                 fast_args=("BF.EXISTS", "big_fast", "__rand_int__")) | get,
            ["GET"], both_depths([vs_rb(1.2), at_least(0.80, "GET", "GET", "fast")]),
            compares_fast=True))
    found += [
        Workload("BF.MEXISTS ×100, items/s",
                 both("BF.MEXISTS", "f10m", *rand100, keyspace=2 * setup.prefill, items=100) | smis,
                 ["SMISMEMBER"], both_depths([at_least(1.0, "SMISMEMBER", "SMISMEMBER"), vs_rb(1.5)])),
        Workload("BF.MADD ×100, items/s",
                 both("BF.MADD", "madds", *(("m__rand_int__",) * 100), keyspace=RANDOM_RANGE,
                      items=100) | smis | lua,
                 ["SMISMEMBER", "Lua SETBIT"],
                 both_depths([at_least(0.8, "SMISMEMBER", "SMISMEMBER"), vs_rb(1.5),
                              at_least(15, "Lua SETBIT", "Lua")])),
        Workload("BF.EXISTS 10-link ÷ 1-link",
                 both("BF.EXISTS", "s10", "__rand_int__", keyspace=CHAIN_MEMBERS)
                 | {f"{server} 1-link": Cmd(server, ("BF.EXISTS", "s1", "__rand_int__"),
                                            CHAIN_MEMBERS)
                    for server in ("redis-bf", "RedisBloom")},
                 ["1-link"], both_depths([at_least(0.75, "1-link", "1-link")]),
                 per_server_ref={"redis-bf": "redis-bf 1-link",
                                 "RedisBloom": "RedisBloom 1-link"}),
    ]
    return found


def requests_for(cmd: Cmd, pipeline: int, quick: bool) -> int:
    """-n: 200k at -P 16, 100k at -P 1; a tenth for 100-item commands; a quarter if quick."""
    requests = 200_000 if pipeline == 16 else 100_000
    if cmd.items > 1:
        requests //= 10
    return requests // 4 if quick else requests


def measure_throughput(work: list[Workload], ports: dict[str, int], rounds: int,
                       quick: bool) -> dict[tuple[Cmd, int], float]:
    """Median value (rps × items) of every distinct (command, depth) cell. A round runs each
    cell once; the order rotates from round to round, so no cell always runs first or right
    after the same neighbour (warm caches, a filter that grew)."""
    cells = list(dict.fromkeys((cmd, depth) for w in work for depth in (1, 16)
                               for cmd in w.commands.values()))
    samples = defaultdict(list)
    for round_no in range(rounds):
        shift = round_no * len(cells) // rounds
        log(f"throughput round {round_no + 1}/{rounds} ({len(cells)} cells)")
        for cmd, depth in cells[shift:] + cells[:shift]:
            rps = redis_benchmark(ports[cmd.server], depth, requests_for(cmd, depth, quick),
                                  cmd.keyspace, cmd.args)
            samples[cmd, depth].append(rps)
    return {cell: statistics.median(rps) * cell[0].items for cell, rps in samples.items()}


def throughput_rows(work: list[Workload], medians) -> list[Row]:
    rows = []
    for w in work:
        unit = "items/s" if any(cmd.items > 1 for cmd in w.commands.values()) else "rps"
        for depth in (1, 16):
            values = {name: medians[cmd, depth] for name, cmd in w.commands.items()}
            row = Row("throughput", w.title, depth, unit, values, list(w.baselines),
                      w.targets.get(depth, []))
            if w.per_server_ref:  # the row shows ratios; the CSV keeps the rps behind them
                row.raw, row.unit = {f"{name} (rps)": rps for name, rps in values.items()}, "ratio"
                row.values = {name: values[name] / values[ref]
                              for name, ref in w.per_server_ref.items()} | {"1-link": 1.0}
            if w.compares_fast:
                row.values.setdefault("fast", None)  # the fast layout is unavailable: n/a
            rows.append(row)
    return rows


# --------------------------------------------------------------------------------------------
# One-off measurements


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


@dataclass
class RdbResult:
    data_mib: float
    save_s: float
    load_s: float
    rss_mib: float


def rdb_round_trip(name: str, workdir: Path, module: Path | None, fill) -> RdbResult:
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


def measure_rdb(workdir: Path, module: Path, redisbloom: Path, fast: bool) -> list[Row]:
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


# --------------------------------------------------------------------------------------------
# Report: table, CSV, chart


def fmt(value: float | None, unit: str, configured: float | None = None) -> str:
    if value is None:
        return "n/a"
    if unit in ("rps", "items/s"):
        return f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value / 1e3:.1f}k"
    if unit == "FPR":
        deviation = f" ({(value / configured - 1) * 100:+.1f}%)" if configured else ""
        return f"{value:.3%}{deviation}"
    if unit == "bytes":
        return f"{value:,.0f} B"
    if unit in ("ratio", "bits/item"):
        return f"{value:.3f}"
    return f"{value:.3f} {unit}" if unit in ("ms", "s") else f"{value:.1f} {unit}"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else ""


def target_text(targets: list[Target], values: dict) -> str:
    parts = []
    for t in targets:
        measured = t.measure(values)
        shown = "n/a" if measured is None else f"{measured:.2f}" if t.ref else f"{measured:.4g}"
        parts.append(f"{t.label} ({shown})")
    return "; ".join(parts)


def table_lines(rows: list[Row]) -> list[list[str]]:
    """One line per row, plus a line per extra baseline (the Lua script next to MADD)."""
    header = ["workload", "-P", "redis-bf", "RedisBloom", "fast", "baseline", "÷RB", "÷base",
              "target (measured)", "verdict"]
    lines, section = [header], None
    for row in rows:
        if row.section != section and section is not None:
            lines.append(None)  # a rule between sections
        section = row.section
        configured = row.values.get("configured")
        for n, base in enumerate(row.baselines or [None]):
            # Targets against RedisBloom or an absolute limit go with the main baseline's line.
            targets = [t for t in row.targets if t.ref == base or (n == 0 and t.ref not in row.baselines)]
            own = [fmt(row.values[v], row.unit, configured) if v in row.values else "-"
                   for v in VARIANTS]
            base_value = row.values.get(base) if base else None
            lines.append([
                row.title if n == 0 else f"  └ vs {base}",
                f"-P{row.pipeline}" if row.pipeline and n == 0 else "",
                *(own if n == 0 else ["", "", ""]),
                f"{base} {fmt(base_value, row.unit)}" if base else "",
                ratio(row.values["redis-bf"], row.values["RedisBloom"]) if n == 0 else "",
                ratio(row.values["redis-bf"], base_value),
                target_text(targets, row.values),
                row.verdict(targets),
            ])
    return lines


def render_table(rows: list[Row]) -> str:
    lines = table_lines(rows)
    widths = [max(len(line[i]) for line in lines if line) for i in range(len(lines[0]))]
    rule = "-+-".join("-" * w for w in widths)
    out = []
    for n, line in enumerate(lines):
        if line is None:
            out.append(rule)
            continue
        # Text columns left-aligned, numbers right-aligned.
        cells = [c.ljust(w) if i in (0, 1, 8, 9) else c.rjust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        out.append(" | ".join(cells).rstrip())
        if n == 0:
            out.append(rule)
    return "\n".join(out)


def csv_records(rows: list[Row]):
    """Every measured value, then every ratio (the table's and the targets'), with the target
    and verdict where one applies."""
    def spec(t: Target) -> str:
        return {"within": "±"}.get(t.op, t.op) + f"{t.limit:g}"

    for row in rows:
        depth = row.pipeline or ""
        absolute = {t.subject: t for t in row.targets if t.ref is None}
        for name, value in row.values.items():
            if value is not None:
                t = absolute.get(name)
                yield [row.title, name, depth, value, row.unit,
                       spec(t) if t else "", t.verdict(row.values) if t else ""]
        for name, value in row.raw.items():
            yield [row.title, name, depth, value, "rps", "", ""]
        relative = {(t.subject, t.ref): t for t in row.targets if t.ref}
        pairs = [("redis-bf", "RedisBloom")] + [(v, b) for b in row.baselines for v in VARIANTS]
        for subject, ref in dict.fromkeys(pairs + list(relative)):
            a, b = row.values.get(subject), row.values.get(ref)
            if a is None or not b:
                continue
            t = relative.get((subject, ref))
            yield [row.title, f"{subject}/{ref}", depth, a / b, "ratio",
                   spec(t) if t else "", t.verdict(row.values) if t else ""]


def write_csv(rows: list[Row], path: Path) -> None:
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["workload", "variant", "pipeline", "value", "unit", "target", "verdict"])
        for record in csv_records(rows):
            writer.writerow([f"{v:.6g}" if isinstance(v, float) else v for v in record])


def import_matplotlib():
    """matplotlib from target/bench-python, installed there with pip on first use."""
    sys.path.insert(0, str(PYTHON_DEPS))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        log(f"installing matplotlib into {PYTHON_DEPS}")
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target",
                        str(PYTHON_DEPS), "matplotlib"], check=True)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


BAR_COLOURS = {"redis-bf": "#c0392b", "RedisBloom": "#2e86c1", "fast": "#f39c12",
               "baseline": "#7f8c8d", "second baseline": "#d5d8dc"}


def target_style(t: Target, row: Row) -> tuple[str, str]:
    """Line style and legend text of a target marker: what the target compares against."""
    if t.ref == "RedisBloom":
        return "dashed", "target vs RedisBloom"
    if t.ref == row.baselines[0]:
        return "solid", "target vs baseline"
    return "dotted", "target vs 2nd baseline"


def write_chart(rows: list[Row], path: Path, title: str) -> None:
    """Grouped bars, one group per throughput row, each bar relative to the row's baseline;
    each target is a short black line across the bar it judges."""
    plt = import_matplotlib()
    groups = [row for row in rows if row.section == "throughput"]
    fig, ax = plt.subplots(figsize=(max(12.0, 1.35 * len(groups)), 7.5), dpi=110)
    width = 0.18
    labelled = set()

    def once(label: str) -> str | None:
        """A legend entry for the first mark of each kind only."""
        if label in labelled:
            return None
        labelled.add(label)
        return label

    for x, row in enumerate(groups):
        base = row.values[row.baselines[0]]
        bars = [(v, v) for v in VARIANTS if row.values.get(v) is not None]
        bars += [(b, "second baseline" if n else "baseline") for n, b in enumerate(row.baselines)]
        offsets = {}
        for n, (name, kind) in enumerate(bars):
            offsets[name] = offset = x + (n - (len(bars) - 1) / 2) * width
            height = row.values[name] / base
            legend = {"baseline": "baseline (named under each group)",
                      "second baseline": f"{name} (2nd baseline)"}.get(kind, kind)
            ax.bar(offset, height, width, color=BAR_COLOURS[kind], edgecolor="black",
                   linewidth=0.4, label=once(legend))
            ax.text(offset, height + 0.02, f"{height:.2f}", ha="center", va="bottom",
                    fontsize=6.5, rotation=90)
        for t in row.targets:
            ref = row.values.get(t.ref)
            if t.subject in offsets and ref is not None:
                style, legend = target_style(t, row)
                ax.hlines(t.limit * ref / base, offsets[t.subject] - width * 0.7,
                          offsets[t.subject] + width * 0.7, colors="black", linewidth=2,
                          linestyles=style, label=once(legend))
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([textwrap.fill(r.title, 16) + f"\n-P{r.pipeline} vs {r.baselines[0]}"
                        for r in groups], fontsize=7.5)
    ax.set_ylabel("throughput relative to the baseline (baseline = 1.0)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", ncol=4)
    ax.margins(x=0.01)
    ax.set_ylim(0, ax.get_ylim()[1] * 1.1)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# --------------------------------------------------------------------------------------------
# Environment and main


def command_output(*command: str) -> str:
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return ""


def module_version(client: Client, path: Path) -> str:
    """MODULE LIST's version of the module at `path`, as major.minor.patch (raw number)."""
    for entry in client.call("MODULE", "LIST"):
        fields = dict(zip(entry[::2], entry[1::2]))
        if fields.get(b"path", b"").decode() == str(path):
            ver = fields[b"ver"]
            return f"{ver // 10000}.{ver // 100 % 100}.{ver % 100} (ver {ver})"
    return "unknown"


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


def fetch_redisbloom() -> Path:
    done = subprocess.run([str(FETCH_ANCHORS)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"{FETCH_ANCHORS} failed:\n{done.stderr}")
    found = re.search(r"^REDISBLOOM_SO=(.+)$", done.stdout, re.MULTILINE)
    if not found:
        raise BenchError(f"no REDISBLOOM_SO= line from {FETCH_ANCHORS}:\n{done.stdout}")
    return Path(found.group(1).strip())


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
