"""The bench's plumbing: paths, a minimal RESP client, redis-server processes pinned to one
core, redis-benchmark, INFO parsing, and the loaders that fill filters (including the ~1 GiB
one built from random BF.LOADCHUNK chunks). Standard library only."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
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
BIG_MEMBERS = 1_000_000  # members added to the ~1 GiB filters
BIG_CAPACITY = 896_000_000

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

    def info(self, *sections: str) -> dict[str, str]:
        """INFO of one or more sections (Redis ≥ 7 takes several), as field: value text."""
        text = self.call("INFO", *sections).decode()
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


@dataclass(frozen=True)
class Module:
    """A module to load, and the arguments that follow its path in --loadmodule."""
    path: Path
    args: tuple[str, ...] = ()


class Server:
    """One redis-server process on a free loopback port, with its own directory and log."""

    def __init__(self, name: str, workdir: Path, module: Module | None,
                 prefix: list[str] | None = None):
        """`prefix`: what runs redis-server (default: taskset to the server's core)."""
        self.name, self.dir, self.module = name, workdir, module
        self.prefix = SERVER_PIN if prefix is None else prefix
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.dir.mkdir(parents=True, exist_ok=True)
        self.logfile = self.dir / "redis.log"
        self.module_args_report: list[str] = []  # what check_module_args read back

    def start(self) -> "Server":
        command = [*self.prefix, REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1",
                   "--dir", str(self.dir), "--logfile", str(self.logfile),
                   "--save", "", "--appendonly", "no", "--enable-debug-command", "local"]
        if self.module:
            # A module that refuses its arguments fails to load, and the server exits:
            # wait_ready then raises with the log's last lines.
            command += ["--loadmodule", str(self.module.path), *self.module.args]
        with open(self.dir / "stderr.log", "ab") as stderr:
            self.proc = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=stderr)
        LIVE_SERVERS.append(self)
        self.wait_ready()
        if self.module and self.module.args:
            client = self.client()
            try:
                self.module_args_report = check_module_args(client, self.module)
            finally:
                client.close()
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


def redis_benchmark(port: int, pipeline: int, requests: int, keyspace: int, args,
                    clients: int = 50, timeout: float = 900) -> float:
    """Requests per second of one redis-benchmark run (CSV output: "test","rps",...)."""
    command = [*BENCHMARK_PIN, REDIS_BENCHMARK, "-h", "127.0.0.1", "-p", str(port),
               "-c", str(clients), "--threads", "1", "-P", str(pipeline), "-n", str(requests),
               "-r", str(keyspace), "--csv", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    # An error reply makes redis-benchmark print it and stop with exit code 0 but no data row.
    rows = [row for row in csv.DictReader(io.StringIO(done.stdout)) if row.get("rps")]
    if done.returncode != 0 or len(rows) != 1:
        raise BenchError(f"redis-benchmark failed: {' '.join(command)}\n"
                         f"{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return float(rows[0]["rps"])


# --------------------------------------------------------------------------------------------
# INFO parsing


def command_stats(info: dict[str, str], command: str) -> dict[str, float]:
    """The `cmdstat_<command>` fields of INFO commandstats (calls, usec, usec_per_call,
    rejected_calls, failed_calls), zeros if the command has not run since the last reset. The
    name's case is the registered one (valkey-bloom, and redis-bf's `bf-flavour valkey-bloom`,
    register `BF.ADD`), so it is matched in any case."""
    wanted = f"cmdstat_{command}".lower()
    text = next((value for name, value in info.items() if name.lower() == wanted), "")
    fields = dict(pair.split("=", 1) for pair in text.split(",") if "=" in pair)
    return {name: float(fields.get(name, 0))
            for name in ("calls", "usec", "rejected_calls", "failed_calls")}


def cpu_seconds(info: dict[str, str]) -> tuple[float, float | None]:
    """The server's CPU time from INFO cpu: user + sys of the process (every thread), and of
    the main thread alone where the server reports it (Redis ≥ 7), else None."""
    total = float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    if "used_cpu_user_main_thread" not in info:
        return total, None
    return total, float(info["used_cpu_user_main_thread"]) + float(info["used_cpu_sys_main_thread"])


def command_exists(client: Client, name: str) -> bool:
    """Whether the server knows the command (COMMAND INFO answers nil for an unknown one)."""
    return client.call("COMMAND", "INFO", name)[0] is not None


def config_value(client: Client, name: str) -> str | None:
    reply = client.call("CONFIG", "GET", name)
    return reply[1].decode() if reply else None


def module_name(client: Client, path: Path) -> str | None:
    for entry in client.call("MODULE", "LIST"):
        fields = dict(zip(entry[::2], entry[1::2]))
        if fields.get(b"path", b"").decode() == str(path):
            return fields[b"name"].decode()
    return None


def same_value(given: str, shown: str) -> bool:
    if given.lower() == shown.lower():
        return True
    try:
        return float(given) == float(shown)
    except ValueError:
        return False


def check_module_args(client: Client, module: Module) -> list[str]:
    """Reads back every NAME VALUE module argument that is also a config (as NAME or, on
    servers that prefix module configs, as <module>.NAME) and fails if the server holds
    another value, so that a run never measures a setting other than the one asked for.
    Arguments that are no config (RedisBloom's ERROR_RATE…) are taken as loaded. Returns one
    line per argument for the report."""
    prefix = module_name(client, module.path)
    lines = []
    for name, given in zip(module.args[::2], module.args[1::2]):
        for config in (name, f"{prefix}.{name}"):
            shown = config_value(client, config)
            if shown is not None:
                break
        if shown is None:
            lines.append(f"{name} {given} (no config of that name; accepted at load)")
        elif same_value(given, shown):
            lines.append(f"{name} {given} (CONFIG GET {config}: {shown})")
        else:
            raise BenchError(f"module argument {name} {given!r} did not take: "
                             f"CONFIG GET {config} answers {shown!r}")
    return lines


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


# --------------------------------------------------------------------------------------------
# Environment


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


def fetch_redisbloom() -> Path:
    done = subprocess.run([str(FETCH_ANCHORS)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BenchError(f"{FETCH_ANCHORS} failed:\n{done.stderr}")
    found = re.search(r"^REDISBLOOM_SO=(.+)$", done.stdout, re.MULTILINE)
    if not found:
        raise BenchError(f"no REDISBLOOM_SO= line from {FETCH_ANCHORS}:\n{done.stdout}")
    return Path(found.group(1).strip())
