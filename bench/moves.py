#!/usr/bin/env python3
"""Moving a big Bloom filter between the two primaries of a cluster on loopback: by `MIGRATE`
(as `redis-cli --cluster reshard` moves keys: the slot set IMPORTING and MIGRATING, the key's
DUMP sent in one RESTORE, the slot given to the target) and, on Valkey 9, by atomic slot
migration (`CLUSTER MIGRATESLOTS`, the filter sent as BF.LOADCHUNK chunks). For each filter
size and way: how long the move takes, the longest wait a client sending PINGs to the source
and one sending them to the target saw meanwhile, and whether the filter arrived with its bytes
(the SHA-256 of its DUMP payload, before and after). A MIGRATE whose payload is over the
target's `proto-max-bulk-len` (512 MB by default) is refused: that row says so, and the move is
measured again with the limit raised for it.

Run it alone, on an otherwise idle machine (it is not part of `make bench`):
    python3 bench/moves.py [--sizes 100,600] [--redis-server PATH] [--valkey-server PATH]
Defaults: Debian's redis-server, and the valkey-server that scripts/fetch-anchors.sh fetches.
It prints one line per move and a table for bench/README.md."""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from harness import (CHUNK, FETCH_ANCHORS, MIB, MODULE_SO, REDIS_SERVER, TMP_ROOT, BenchError,
                     Client, Module, RespError, Server, filter_bytes, free_port,
                     kill_all_servers, log)

# A key and its slot: the filter moves with this slot alone.
KEY = "{move}filter"


def free_cluster_port() -> int:
    """A free port whose cluster bus port (10,000 above) is free too."""
    while True:
        port = free_port()
        if port + 10_000 <= 65_535:
            try:
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port + 10_000))
                return port
            except OSError:
                pass


class Node(Server):
    """A cluster node of server `binary` with redis-bf loaded, on the servers' core."""

    def __init__(self, name: str, workdir: Path, binary: str):
        super().__init__(name, workdir, Module(MODULE_SO))
        self.binary = binary
        self.port = free_cluster_port()

    def start(self) -> "Node":
        command = [*self.prefix, self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
                   "--dir", str(self.dir), "--logfile", str(self.logfile), "--save", "",
                   "--appendonly", "no", "--cluster-enabled", "yes",
                   "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "15000",
                   "--loadmodule", str(MODULE_SO)]
        self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_ready()
        return self


def start_cluster(workdir: Path, binary: str) -> tuple[Node, Node]:
    """Two primaries: the first serves the key's slot, the second every other slot."""
    source = Node("source", workdir / "source", binary).start()
    target = Node("target", workdir / "target", binary).start()
    s, t = source.client(), target.client()
    slot = s.call("CLUSTER", "KEYSLOT", KEY)
    s.call("CLUSTER", "MEET", "127.0.0.1", str(target.port))
    s.call("CLUSTER", "ADDSLOTS", slot)
    t.call("CLUSTER", "ADDSLOTS", *[n for n in range(16384) if n != slot])
    deadline = time.monotonic() + 60
    while b"cluster_state:ok" not in s.call("CLUSTER", "INFO") or \
            b"cluster_state:ok" not in t.call("CLUSTER", "INFO"):
        if time.monotonic() > deadline:
            raise BenchError("the cluster did not come up")
        time.sleep(0.1)
    return source, target


def make_filter(client: Client, megabytes: int) -> str:
    """A non-scaling filter of about `megabytes` MB of random bits; the SHA-256 of its DUMP."""
    capacity = int(megabytes * 1e6 * 8 / 9.6)  # 1% error: about 9.6 bits an item
    client.call("BF.RESERVE", KEY, "0.01", capacity, "NONSCALING")
    total = filter_bytes(client, KEY)
    for offset in range(0, total, CHUNK):
        length = min(CHUNK, total - offset)
        client.call("BF.LOADCHUNK", KEY, offset + length + 1, os.urandom(length))
    return hashlib.sha256(client.call("DUMP", KEY)).hexdigest()


class Pinger(threading.Thread):
    """Sends PINGs to a server one after another; keeps the longest round trip."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.client = Client(port, timeout=600)
        self.longest = 0.0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            sent = time.perf_counter()
            self.client.call("PING")
            self.longest = max(self.longest, time.perf_counter() - sent)
            time.sleep(0.001)

    def stop(self) -> float:
        self.stopped.set()
        self.join()
        return self.longest * 1000


def move_by_migrate(source: Node, target: Node) -> None:
    s, t = source.client(), target.client()
    slot = s.call("CLUSTER", "KEYSLOT", KEY)
    t.call("CLUSTER", "SETSLOT", slot, "IMPORTING", s.call("CLUSTER", "MYID"))
    s.call("CLUSTER", "SETSLOT", slot, "MIGRATING", t.call("CLUSTER", "MYID"))
    try:
        s.call("MIGRATE", "127.0.0.1", target.port, "", 0, 600_000, "KEYS", KEY)
    except RespError:
        for c in (s, t):
            c.call("CLUSTER", "SETSLOT", slot, "STABLE")
        raise
    for c in (s, t):
        c.call("CLUSTER", "SETSLOT", slot, "NODE", t.call("CLUSTER", "MYID"))


def move_atomically(source: Node, target: Node) -> None:
    s, t = source.client(), target.client()
    slot = s.call("CLUSTER", "KEYSLOT", KEY)
    s.call("CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", slot, slot, "NODE", t.call("CLUSTER", "MYID"))
    while True:
        migrations = s.call("CLUSTER", "GETSLOTMIGRATIONS")
        states = [dict(zip(m[::2], m[1::2]))[b"state"] for m in migrations]
        if any(state in (b"failed", b"cancelled") for state in states):
            raise BenchError(f"the atomic slot migration failed: {migrations}")
        if states and all(state == b"success" for state in states):
            return
        time.sleep(0.01)


def one_move(binary: str, way: str, megabytes: int, raise_limit: bool) -> dict:
    workdir = TMP_ROOT / f"moves-{way}-{megabytes}"
    shutil.rmtree(workdir, ignore_errors=True)  # a node's cluster config of an earlier run
    source, target = start_cluster(workdir, binary)
    try:
        digest = make_filter(source.client(), megabytes)
        size = len(source.client().call("DUMP", KEY))
        if raise_limit:
            target.client().call("CONFIG", "SET", "proto-max-bulk-len", str(2 * size))
        pingers = [Pinger(source.port), Pinger(target.port)]
        for pinger in pingers:
            pinger.start()
        started = time.perf_counter()
        outcome = "moved"
        try:
            (move_atomically if way == "atomic" else move_by_migrate)(source, target)
        except RespError as refused:
            outcome = f"refused: {refused}"
        seconds = time.perf_counter() - started
        waits = [pinger.stop() for pinger in pingers]
        holder = target if outcome == "moved" else source
        intact = hashlib.sha256(holder.client().call("DUMP", KEY)).hexdigest() == digest
        return {"way": way, "mb": megabytes, "payload_mb": size / 1e6, "seconds": seconds,
                "source_wait_ms": waits[0], "target_wait_ms": waits[1], "outcome": outcome,
                "intact": intact, "raised": raise_limit}
    finally:
        source.kill()
        target.kill()


def version(binary: str) -> str:
    """`Redis 7.0.15`, `Valkey 9.1.2`: the name and version `--version` prints."""
    words = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.split()
    return f"{words[0]} {words[2].removeprefix('v=')}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,600", help="filter sizes in MB (default 100,600)")
    parser.add_argument("--redis-server", default=REDIS_SERVER)
    parser.add_argument("--valkey-server", default=None,
                        help="a valkey-server ≥ 9.0 (default: the one fetch-anchors.sh fetches)")
    args = parser.parse_args()
    valkey = args.valkey_server
    if valkey is None:
        fetched = subprocess.run([str(FETCH_ANCHORS)], capture_output=True, text=True, check=True)
        valkey = dict(line.split("=", 1) for line in fetched.stdout.split())["VALKEY_SERVER"]
    sizes = [int(size) for size in args.sizes.split(",")]
    runs = []
    try:
        for binary in (args.redis_server, valkey):
            ways = ["migrate", "atomic"] if binary == valkey else ["migrate"]
            for megabytes in sizes:
                for way in ways:
                    run = one_move(binary, way, megabytes, raise_limit=False)
                    if run["outcome"] != "moved":
                        log(f"{way} {megabytes} MB: {run['outcome']}")
                        runs.append((binary, run))
                        run = one_move(binary, way, megabytes, raise_limit=True)
                    log(f"{version(binary)} {way} {megabytes} MB: {run}")
                    runs.append((binary, run))
    finally:
        kill_all_servers()
    print("| server | way | filter | DUMP | move | longest PING wait, source / target | bytes |")
    print("|---|---|---|---|---|---|---|")
    for binary, run in runs:
        way = {"migrate": "MIGRATE", "atomic": "atomic slot migration"}[run["way"]]
        if run["raised"]:
            way += " (`proto-max-bulk-len` raised)"
        move = f"{run['seconds']:.2f} s" if run["outcome"] == "moved" else run["outcome"]
        intact = "intact" if run["intact"] else "DIFFER"
        print(f"| {version(binary)} | {way} | {run['mb']} MB | {run['payload_mb']:.0f} MB | {move} "
              f"| {run['source_wait_ms']:.0f} / {run['target_wait_ms']:.0f} ms | {intact} |")
    return 0 if all(run["intact"] for _, run in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
