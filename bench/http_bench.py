"""HTTP benchmark: ``GET /search`` over loopback against the same search in-process, and a
bounded mixed load of concurrent clients.

Run it (not a test)::

    .venv/bin/python bench/http_bench.py                       # 100k observations, 32 clients
    .venv/bin/python bench/http_bench.py --size 10k --clients 8 --requests 50   # a quick look

1. A store of ``--size`` synthetic observations (``bench/store_bench.py``'s cached build) is
   copied to a temporary data dir, and a real ``engram serve`` is started on a free loopback
   port with it.
2. Search latency: each search is called in this process (``engram.memory.search.search``,
   the baseline) and right after as ``GET /search?q=...&all_projects=true&limit=10`` over one keep-alive loopback
   connection, interleaved call by call. First a mix of ``--mix`` one- to three-word queries
   (word ranks drawn log-uniformly from 1 to 20,000; seeded), three timed passes after a warm-up
   pass: the figure is the route's p95 over loopback / the in-process p95. Then a very common,
   a mid-frequency and a rare term alone, ``--repeats`` times each, to show the fixed cost of
   an HTTP answer (it dominates a search that takes 0.3 ms). The client is a lean keep-alive
   one by default (``--client stdlib`` uses ``http.client``).
3. Load: ``--clients`` threads, each with its own connection, send a mix of reads (search,
   recent observations, context, health) and writes (``POST /observations``, each with a
   unique title) — at most ``--requests`` each; no request starts in the last 8 s of
   ``--seconds``, so the run ends within it. Then every acknowledged
   write is read back (lost writes), the server is stopped and ``PRAGMA integrity_check`` runs.

Loopback only; bounded in count and time.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import math
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus
from processes import free_port, tree_cpu_seconds
from store_bench import CACHE, build, parse_size

from engram.memory import search as search_op
from engram.store.db import Store

TERM_RANKS = {"very common": 1, "mid": 300, "rare": 20_000}
ENGRAM = Path(sys.executable).with_name("engram")
LOAD_PROJECT = "bench-http-load"
# Rounds not counted: both caches (this process's and the server's) warm up on each term.
WARM_UP = 20
# Timed passes over the query mix (after one warm-up pass).
MIX_ROUNDS = 3


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20, method="inclusive")[18]


def start_server(
    data_dir: Path, home: Path, extra_env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {"HOME": str(home), "ENGRAM_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"}
    env.update(extra_env or {})
    process = subprocess.Popen(
        [str(ENGRAM), "serve", str(port)], cwd=home, env=env, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return process, port
        except OSError:
            time.sleep(0.1)
    process.terminate()
    raise SystemExit("engram serve did not start")


class LoopbackClient:
    """A lean HTTP/1.1 keep-alive client: a request line and a Host header out, the answer read
    by its Content-Length. It stands for curl or a runtime's fetch; ``http.client`` parses
    every answer's headers through the ``email`` package, ~0.1 ms of the client's own time per
    request that says nothing about the server (``--client stdlib`` measures with it anyway).
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def get(self, path: str) -> tuple[int, bytes]:
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n\r\n".encode())
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in lines
            if line.lower().startswith(b"content-length:")
        )
        self.buffer = rest
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return int(lines[0].split()[1]), body

    def _fill(self) -> None:
        chunk = self.sock.recv(262_144)
        if not chunk:
            raise ConnectionError("engram serve closed the connection")
        self.buffer += chunk

    def close(self) -> None:
        self.sock.close()


class StdlibClient:
    """The same requests through ``http.client`` (Python's own, slower to parse answers)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def get(self, path: str) -> tuple[int, bytes]:
        self.conn.request("GET", path)
        response = self.conn.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        self.conn.close()


def query_mix(count: int, seed: int = 11) -> list[str]:
    """``count`` search queries of one to three words, as an agent would type them: each word's
    Zipf rank drawn log-uniformly from 1 to 20,000, so very common, mid-frequency and rare
    words are equally likely. Seeded: the same queries every run."""
    rng = random.Random(seed)
    words = corpus.vocabulary()
    queries = []
    for _ in range(count):
        size = rng.choices((1, 2, 3), weights=(4, 4, 2))[0]
        ranks = [int(math.exp(rng.uniform(0, math.log(20_000)))) for _ in range(size)]
        queries.append(" ".join(words[rank - 1] for rank in ranks))
    return queries


@dataclass
class Samples:
    """Interleaved timings of one workload: in-process and over HTTP, wall ms and CPU s."""

    local: list[float] = field(default_factory=list)
    remote: list[float] = field(default_factory=list)
    local_cpu: float = 0.0
    server_cpu: float = 0.0

    def row(self, label: str, hits: int | None) -> dict[str, Any]:
        count = len(self.local)
        return {
            "workload": label,
            "searches": count,
            "hits": hits,
            "in_process_p50_ms": statistics.median(self.local),
            "in_process_p95_ms": p95(self.local),
            "http_p50_ms": statistics.median(self.remote),
            "http_p95_ms": p95(self.remote),
            "p95_ratio": p95(self.remote) / p95(self.local),
            "in_process_cpu_ms": self.local_cpu / count * 1000,
            "server_cpu_ms": self.server_cpu / count * 1000,
        }


def timed_pair(
    store: Store, client: LoopbackClient | StdlibClient, pid: int, query: str, out: Samples | None
) -> int:
    """One in-process search and the same ``GET /search`` right after it; the hit count.
    ``out=None`` is a warm-up round (nothing recorded)."""
    started, cpu = time.perf_counter(), time.process_time()
    hits = search_op.search(store, query, project=None, limit=10)
    local_ms = (time.perf_counter() - started) * 1000
    local_cpu = time.process_time() - cpu
    server_before = tree_cpu_seconds(pid)
    started = time.perf_counter()
    status, body = client.get(f"/search?q={quote(query)}&all_projects=true&limit=10")
    remote_ms = (time.perf_counter() - started) * 1000
    server_cpu = tree_cpu_seconds(pid) - server_before
    if status != 200 or len(json.loads(body)) != len(hits):
        raise SystemExit(f"GET /search?q={query!r} answered {status}, not the in-process hits")
    if out is not None:
        out.local.append(local_ms)
        out.remote.append(remote_ms)
        out.local_cpu += local_cpu
        out.server_cpu += server_cpu
    return len(hits)


def measure_search(
    store: Store, port: int, pid: int, *, repeats: int, mix: int, client_kind: str
) -> list[dict[str, Any]]:
    """p50/p95 of in-process search and GET /search, interleaved call by call: over a mix of
    queries (the route's p95), then for a very common, a mid-frequency and a rare term alone.
    CPU time is the server's own, read from /proc (waits for a CPU are not in it)."""
    client = LoopbackClient(port) if client_kind == "lean" else StdlibClient(port)
    rows = []
    try:
        queries = query_mix(mix)
        for query in queries:  # warm both caches on every query once
            timed_pair(store, client, pid, query, None)
        samples = Samples()
        for _ in range(MIX_ROUNDS):
            for query in queries:
                timed_pair(store, client, pid, query, samples)
        rows.append(samples.row(f"query mix ({mix} queries x {MIX_ROUNDS})", None))
        for label, rank in TERM_RANKS.items():
            term = corpus.term_at_rank(rank)
            samples = Samples()
            for _ in range(WARM_UP):
                hits = timed_pair(store, client, pid, term, None)
            for _ in range(repeats):
                timed_pair(store, client, pid, term, samples)
            rows.append(samples.row(f"{label} ({term})", hits))
    finally:
        client.close()
    return rows


@dataclass
class LoadResult:
    requests: int = 0
    errors: list[str] = field(default_factory=list)
    acknowledged: list[tuple[int, str]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _client(port: int, index: int, requests: int, deadline: float, out: LoadResult) -> None:
    rng = random.Random(index)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    words = [corpus.term_at_rank(r) for r in (5, 50, 500, 5000)]
    for n in range(requests):
        if time.monotonic() > deadline:
            break
        roll = rng.random()
        body = None
        if roll < 0.3:
            title = f"load {index}-{n} {rng.choice(words)}"
            method, path = "POST", "/observations"
            body = json.dumps(
                {"title": title, "content": f"written by client {index}", "project": LOAD_PROJECT}
            )
        elif roll < 0.6:
            method, path = "GET", f"/search?q={quote(rng.choice(words))}&all_projects=true&limit=10"
        elif roll < 0.8:
            method, path = "GET", "/observations/recent?all_projects=true&limit=20"
        elif roll < 0.9:
            method, path = "GET", f"/context?project={corpus.project_names()[0]}"
        else:
            method, path = "GET", "/health"
        started = time.perf_counter()
        try:
            headers = {"Content-Type": "application/json"} if body else {}
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            ok = 200 <= response.status < 300
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            ok, data = False, str(exc).encode()
            response = None
        elapsed = (time.perf_counter() - started) * 1000
        with out.lock:
            out.requests += 1
            out.latencies.append(elapsed)
            if not ok:
                status = response.status if response is not None else "no response"
                out.errors.append(f"{method} {path}: {status} {data[:120]!r}")
            elif method == "POST":
                out.acknowledged.append((int(json.loads(data)["id"]), title))
    conn.close()


# No request starts in the last seconds of the bound, so the ones in flight end within it.
IN_FLIGHT_MARGIN_S = 8.0


def run_load(port: int, clients: int, requests: int, seconds: float) -> tuple[LoadResult, float]:
    out = LoadResult()
    deadline = time.monotonic() + max(seconds - IN_FLIGHT_MARGIN_S, seconds / 2)
    threads = [
        threading.Thread(target=_client, args=(port, i, requests, deadline, out))
        for i in range(clients)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return out, time.perf_counter() - started


def lost_writes(port: int, acknowledged: list[tuple[int, str]]) -> list[int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    lost = []
    for obs_id, title in acknowledged:
        conn.request("GET", f"/observations/{obs_id}")
        response = conn.getresponse()
        data = response.read()
        if response.status != 200 or json.loads(data)["title"] != title:
            lost.append(obs_id)
    conn.close()
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100k", help="observations in the store (10k, 100k)")
    parser.add_argument("--repeats", type=int, default=200, help="searches per term and path")
    parser.add_argument("--cache", type=Path, default=CACHE, help="where built stores are kept")
    parser.add_argument("--mix", type=int, default=300, help="queries in the query mix")
    parser.add_argument(
        "--client",
        choices=("lean", "stdlib"),
        default="lean",
        help="lean: a minimal keep-alive client (the default); stdlib: http.client",
    )
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=150, help="at most, per client")
    parser.add_argument("--seconds", type=float, default=60.0, help="load time bound")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-load", action="store_true", help="measure search latency only")
    parser.add_argument(
        "--nice",
        type=int,
        default=0,
        help="niceness increment for this process and the server it starts (negative needs "
        "root): on a shared, saturated machine it measures HTTP overhead instead of waits for "
        "a CPU",
    )
    args = parser.parse_args()
    if args.nice:
        os.nice(args.nice)
    size = parse_size(args.size)
    with contextlib.redirect_stdout(sys.stderr):  # progress, not figures: --json stays JSON
        cached = build(size, args.cache)
    with tempfile.TemporaryDirectory(prefix="engram-http-bench-") as tmp:
        data_dir, home = Path(tmp) / "data", Path(tmp) / "home"
        home.mkdir()
        shutil.copytree(cached, data_dir)
        process, port = start_server(data_dir, home)
        try:
            with Store.open(data_dir) as store:
                searches = measure_search(
                    store,
                    port,
                    process.pid,
                    repeats=args.repeats,
                    mix=args.mix,
                    client_kind=args.client,
                )
            load, elapsed, lost = LoadResult(), 0.0, []
            if not args.no_load:
                load, elapsed = run_load(port, args.clients, args.requests, args.seconds)
                lost = lost_writes(port, load.acknowledged)
        finally:
            process.terminate()
            process.wait(timeout=30)
        with Store.open(data_dir) as store:
            integrity = store.integrity_check()
    figures = {
        "size": size,
        "search": searches,
        "load": {
            "clients": args.clients,
            "requests": load.requests,
            "seconds": round(elapsed, 1),
            "requests_per_s": round(load.requests / elapsed, 1) if elapsed else None,
            "p95_ms": round(p95(load.latencies), 1) if len(load.latencies) > 1 else None,
            "errors": len(load.errors),
            "writes_acknowledged": len(load.acknowledged),
            "lost_writes": len(lost),
            "integrity_check": integrity,
        },
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(
        f"\nGET /search over loopback ({args.client} client) vs in-process search, {size:,} observations"
    )
    header = (
        f"{'workload':<34}{'hits':>5}{'in-proc p50/p95':>18}{'http p50/p95':>18}{'p95 ratio':>10}"
    )
    print(header)
    for row in searches:
        local = f"{row['in_process_p50_ms']:.2f}/{row['in_process_p95_ms']:.2f}ms"
        remote = f"{row['http_p50_ms']:.2f}/{row['http_p95_ms']:.2f}ms"
        hits = "" if row["hits"] is None else row["hits"]
        print(f"{row['workload']:<34}{hits:>5}{local:>18}{remote:>18}{row['p95_ratio']:>9.2f}x")
    mix = searches[0]
    print(
        f"\nthe route's p95 (query mix): {mix['http_p95_ms']:.2f} ms over loopback,"
        f" {mix['in_process_p95_ms']:.2f} ms in-process: {mix['p95_ratio']:.2f}x (target <= 1.5x)"
    )
    fixed = [row["http_p50_ms"] - row["in_process_p50_ms"] for row in searches[1:]]
    print(
        "fixed cost of one HTTP answer (http p50 - in-process p50 per term): "
        + " / ".join(f"{ms:.2f}" for ms in fixed)
        + " ms"
    )
    print("\nCPU time per search (waits for a CPU excluded)")
    for row in searches:
        ratio = row["server_cpu_ms"] / max(row["in_process_cpu_ms"], 1e-9)
        print(
            f"{row['workload']:<34} in-process {row['in_process_cpu_ms']:.2f} ms,"
            f" server {row['server_cpu_ms']:.2f} ms, ratio {ratio:.2f}x"
        )
    summary = figures["load"]
    print(f"\nmixed load: {summary}")
    for line in load.errors[:5]:
        print(f"  error: {line}")


if __name__ == "__main__":
    main()
