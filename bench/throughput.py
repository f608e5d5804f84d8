"""The throughput section: redis-benchmark workloads against plain-Redis baselines,
interleaved rounds, medians."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

from harness import (BIG_MEMBERS, BenchError, Client, add_all, info_field, log,
                     make_big_filter, redis_benchmark)
from report import Row, Target, at_least

# Sizes of the data sets (the brief's numbers; --quick shrinks only the 10M filter's prefill).
PREFILL_FULL, PREFILL_QUICK = 5_000_000, 500_000
SET_MEMBERS = 1_000_000  # members of the SMISMEMBER baseline set
CHAIN_MEMBERS = 520_000  # makes s10 (capacity 1000, expansion 2) grow to 10 sub-filters
BITMAP_BITS = 95_850_000  # the Lua SETBIT baseline's bitmap
RANDOM_RANGE = 100_000_000  # -r for commands that add new items

# The go-zero-style baseline: 7 SETBITs per item from a Lua script. h * 2654435761 exceeds 2^53,
# so Lua's double `%` is off by a few units for 16 of the 10^8 possible h, once in a while
# giving a negative offset (SETBIT fails and redis-benchmark stops); the second `%` of the then
# small number puts it back in range, for the cost of one arithmetic operation.
LUA_SETBIT = (
    "local h = tonumber(ARGV[1]) for i = 1, 7 do "
    "redis.call('SETBIT', KEYS[1], (h * 2654435761 + i * 40503) % 95850000 % 95850000, 1) "
    "end return 1"
)


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
