"""HTTP benchmark: ``GET /search`` over loopback against the same search in-process, and a
bounded mixed load of concurrent clients.

Run it (not a test)::

    .venv/bin/python bench/http_bench.py                       # 100k observations, 32 clients
    .venv/bin/python bench/http_bench.py --size 10k --clients 8 --requests 50   # a quick look

1. A store of ``--size`` synthetic observations (``bench/store_bench.py``'s cached build) is
   copied to a temporary data dir, and a real ``engram serve`` is started on a free loopback
   port with it.
2. Search latency: for a very common, a mid-frequency and a rare term, ``--repeats`` calls of
   ``engram.memory.search.search`` in this process (the baseline) and as many
   ``GET /search?q=TERM&limit=10`` over one keep-alive loopback connection, interleaved.
   The figure is the p95 ratio HTTP / in-process.
3. Load: ``--clients`` threads, each with its own connection, send a mix of reads (search,
   recent observations, context, health) and writes (``POST /observations``, each with a
   unique title) — at most ``--requests`` each; no request starts in the last 8 s of
   ``--seconds``, so the run ends within it. Then every acknowledged
   write is read back (lost writes), the server is stopped and ``PRAGMA integrity_check`` runs.

Loopback only; bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import json
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
from store_bench import build, parse_size

from engram.memory import search as search_op
from engram.store.db import Store

TERM_RANKS = {"very common": 1, "mid": 300, "rare": 20_000}
ENGRAM = Path(sys.executable).with_name("engram")
LOAD_PROJECT = "bench-http-load"
# Rounds not counted: both caches (this process's and the server's) warm up on each term.
WARM_UP = 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def p95(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=20, method="inclusive")[18]


def start_server(data_dir: Path, home: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {"HOME": str(home), "ENGRAM_DATA_DIR": str(data_dir), "PATH": "/usr/bin:/bin"}
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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure_search(store: Store, port: int, repeats: int, pid: int) -> list[dict[str, Any]]:
    """p50/p95 of in-process search and GET /search for each term, interleaved; and the CPU
    time each costs (the server's own, read from /proc: waits for a CPU are not in it)."""
    rows = []
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for label, rank in TERM_RANKS.items():
        term = corpus.term_at_rank(rank)
        path = f"/search?q={quote(term)}&limit=10"
        local: list[float] = []
        remote: list[float] = []
        local_cpu = server_cpu = 0.0
        hits = len(search_op.search(store, term, project=None, limit=10))
        for n in range(WARM_UP + repeats):
            started, cpu = time.perf_counter(), time.process_time()
            search_op.search(store, term, project=None, limit=10)
            local.append((time.perf_counter() - started) * 1000)
            if n >= WARM_UP:
                local_cpu += time.process_time() - cpu
            server_before = cpu_seconds(pid)
            started = time.perf_counter()
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read()
            remote.append((time.perf_counter() - started) * 1000)
            if n >= WARM_UP:
                server_cpu += cpu_seconds(pid) - server_before
            assert response.status == 200 and len(json.loads(body)) == hits
        local, remote = local[WARM_UP:], remote[WARM_UP:]
        rows.append(
            {
                "term": f"{label} ({term})",
                "hits": hits,
                "in_process_p50_ms": statistics.median(local),
                "in_process_p95_ms": p95(local),
                "http_p50_ms": statistics.median(remote),
                "http_p95_ms": p95(remote),
                "p95_ratio": p95(remote) / p95(local),
                "in_process_cpu_ms": local_cpu / repeats * 1000,
                "server_cpu_ms": server_cpu / repeats * 1000,
            }
        )
    conn.close()
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
            method, path = "GET", f"/search?q={quote(rng.choice(words))}&limit=10"
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
    cached = build(size)
    with tempfile.TemporaryDirectory(prefix="engram-http-bench-") as tmp:
        data_dir, home = Path(tmp) / "data", Path(tmp) / "home"
        home.mkdir()
        shutil.copytree(cached, data_dir)
        process, port = start_server(data_dir, home)
        try:
            with Store.open(data_dir) as store:
                searches = measure_search(store, port, args.repeats, process.pid)
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
    print(f"\nGET /search over loopback vs in-process search, {size:,} observations")
    print(f"{'term':<28}{'hits':>5}{'in-proc p50/p95':>18}{'http p50/p95':>18}{'p95 ratio':>10}")
    for row in searches:
        local = f"{row['in_process_p50_ms']:.2f}/{row['in_process_p95_ms']:.2f}ms"
        remote = f"{row['http_p50_ms']:.2f}/{row['http_p95_ms']:.2f}ms"
        print(f"{row['term']:<28}{row['hits']:>5}{local:>18}{remote:>18}{row['p95_ratio']:>9.2f}x")
    print("\nCPU time per search (waits for a CPU excluded)")
    for row in searches:
        ratio = row["server_cpu_ms"] / max(row["in_process_cpu_ms"], 1e-9)
        print(
            f"{row['term']:<28} in-process {row['in_process_cpu_ms']:.2f} ms,"
            f" server {row['server_cpu_ms']:.2f} ms, ratio {ratio:.2f}x"
        )
    summary = figures["load"]
    print(f"\nmixed load: {summary}")
    for line in load.errors[:5]:
        print(f"  error: {line}")


if __name__ == "__main__":
    main()
