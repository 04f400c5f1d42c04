"""Several ``engram cloud serve`` processes on one database, many clients at once: nothing lost,
nothing duplicated, and how long a pull waits (p50 / p95).

Run alone (it starts its own Postgres unless ``ENGRAM_DATABASE_URL`` is set) or from
``cloud_bench.py``::

    .venv/bin/python bench/cloud_fleet.py --servers 3 --clients 50 --mutations 200

Every client is its own replica (origin) on the same project, talking to server
``index % servers``. It pushes its observations in batches of 50 and after each batch pulls
everything new from its cursor (each pull request is timed). The clients run as threads spread
over a few worker processes, so the client side is not one interpreter's GIL. Afterwards each
client pulls to the end, re-pushes its first batch (a replay must be refused as duplicates) and
the database is checked: as many rows as pushed, each ``(origin, seq)`` once, sequences dense.
A failed check prints ``FAILED`` and exits 1.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import psycopg
from processes import free_port, load_average
from psycopg.rows import dict_row

from engram.cloud.scratch_postgres import ScratchPostgres
from engram.cloud.store.migrate import migrate
from engram.sync.cloud.client import CloudClient
from engram.sync.cloud.config import Remote
from engram.sync.mutation import Mutation

TOKEN = "bench-sync-token-0123456789abcdef0123"
FLEET_BATCH = 50
WORKERS = 5


def observation(origin: str, seq: int, project: str) -> Mutation:
    """One realistic observation upsert of ``project`` from replica ``origin``."""
    key = f"obs-{origin}-{seq:08d}"
    payload = {
        "sync_id": key,
        "session_id": f"session-{origin}",
        "type": "decision",
        "title": f"Decision {seq}: keep the cache warm on deploy",
        "content": "What: warm the cache. Why: cold starts cost 2 s. " * 6,
        "tool_name": None,
        "project": project,
        "scope": "project",
        "topic_key": None,
        "normalized_hash": f"{seq:064x}",
        "revision_count": 1,
        "expires_at": None,
        "created_at": "2026-11-30 12:00:00",
        "updated_at": "2026-11-30 12:00:00",
        "deleted_at": None,
    }
    return Mutation(origin, seq, "observation", key, "upsert", project, payload)


def start_server(url: str) -> tuple[subprocess.Popen[bytes], str]:
    """A real ``engram cloud serve`` on a free loopback port with a sync token."""
    port = free_port()
    env = {
        **os.environ,
        "ENGRAM_DATABASE_URL": url,
        "ENGRAM_CLOUD_TOKEN": TOKEN,
        "ENGRAM_JWT_SECRET": "bench-jwt-secret-" + "j" * 32,
        "ENGRAM_CLOUD_ALLOWED_PROJECTS": "*",
        "ENGRAM_CLOUD_HOST": "127.0.0.1",
        "ENGRAM_PORT": str(port),
    }
    for name in ("ENGRAM_CLOUD_INSECURE_NO_AUTH", "ENGRAM_CLOUD_ADMIN"):
        env.pop(name, None)
    engram = Path(sys.executable).with_name("engram")
    process = subprocess.Popen(
        [str(engram), "cloud", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    server = f"http://127.0.0.1:{port}"
    probe = CloudClient(Remote(server, TOKEN), timeout=2)
    for _ in range(600):
        if process.poll() is not None:
            err = process.stderr.read().decode(errors="replace") if process.stderr else ""
            raise SystemExit(f"engram cloud serve exited: {err[-400:]}")
        try:
            probe.health()
            return process, server
        except Exception:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("engram cloud serve did not start within 60 s")


@dataclass
class ClientRun:
    """What one client saw."""

    origin: str
    server: str
    cursor: int = 0
    accepted: int = 0
    duplicates: int = 0
    seen: Counter[tuple[str, int]] = field(default_factory=Counter)
    pull_ms: list[float] = field(default_factory=list)
    push_ms: list[float] = field(default_factory=list)
    error: str = ""


def pull_to_end(client: CloudClient, project: str, run: ClientRun) -> None:
    """Pull from the client's cursor until the server says there is no more, timing each."""
    while True:
        started = time.perf_counter()
        page = client.pull_mutations(project, run.cursor)
        run.pull_ms.append((time.perf_counter() - started) * 1000)
        run.seen.update((m["origin"], m["seq"]) for m in page["mutations"])
        run.cursor = page["next_since"]
        if not page["has_more"]:
            return


def _one_client(run: ClientRun, project: str, count: int) -> None:
    client = CloudClient(Remote(run.server, TOKEN), timeout=300)
    rows = [observation(run.origin, seq, project) for seq in range(1, count + 1)]
    try:
        for start in range(0, count, FLEET_BATCH):
            started = time.perf_counter()
            result = client.push_mutations(project, rows[start : start + FLEET_BATCH])
            run.push_ms.append((time.perf_counter() - started) * 1000)
            run.accepted += result["accepted"]
            run.duplicates += result["duplicates"]
            pull_to_end(client, project, run)
    except Exception as exc:  # reported, and counted as a failure by the caller
        run.error = f"{type(exc).__name__}: {exc}"


def client_group(
    servers: list[str], project: str, indexes: list[int], count: int
) -> list[ClientRun]:
    """Run the clients ``indexes`` at once, one thread each (a worker process's share)."""
    runs = [ClientRun(f"fleet{i:03d}", servers[i % len(servers)]) for i in indexes]
    threads = [threading.Thread(target=_one_client, args=(r, project, count)) for r in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return runs


def _finish(runs: list[ClientRun], project: str, count: int) -> int:
    """Each client pulls to the end and replays its first batch; returns replays accepted."""
    replay_accepted = 0
    for run in runs:
        client = CloudClient(Remote(run.server, TOKEN), timeout=300)
        pull_to_end(client, project, run)
        first = [
            observation(run.origin, seq, project) for seq in range(1, min(count, FLEET_BATCH) + 1)
        ]
        result = client.push_mutations(project, first)
        replay_accepted += result["accepted"]
        run.duplicates += result["duplicates"]
    return replay_accepted


def _database_check(url: str, project: str) -> tuple[int, int, int, int, int]:
    sql = """
        SELECT count(*), count(DISTINCT (origin, clock)), coalesce(min(seq), 0),
               coalesce(max(seq), 0),
               (SELECT last_seq FROM cloud_projects WHERE name = %(project)s)
        FROM cloud_mutations WHERE project = %(project)s
    """
    with psycopg.connect(url) as conn:
        row = conn.execute(sql, {"project": project}).fetchone()
    assert row is not None
    return tuple(int(v or 0) for v in row)  # type: ignore[return-value]


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def run_fleet(url: str, servers: int, clients: int, count: int) -> bool:
    """Start ``servers`` servers on ``url``, run ``clients`` clients of ``count`` observations
    each, print the figures; True when nothing was lost or duplicated."""
    project = f"fleet-{os.getpid()}-{time.time_ns() % 10**9}"
    print(f"\n### {servers} servers, {clients} clients, one database (load {load_average()})")
    started = [start_server(url) for _ in range(servers)]
    urls = [server for _, server in started]
    try:
        shares = [list(range(clients))[w::WORKERS] for w in range(min(WORKERS, clients))]
        began = time.perf_counter()
        with ProcessPoolExecutor(len(shares), mp_context=get_context("spawn")) as pool:
            futures = [pool.submit(client_group, urls, project, share, count) for share in shares]
            runs = [run for future in futures for run in future.result()]
        elapsed = time.perf_counter() - began
        replay_accepted = _finish(runs, project, count)
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(timeout=20)
    return _report(url, project, runs, count, elapsed, replay_accepted)


def _report(
    url: str, project: str, runs: list[ClientRun], count: int, elapsed: float, replays: int
) -> bool:
    expected = {(run.origin, seq) for run in runs for seq in range(1, count + 1)}
    rows, distinct, low, high, last_seq = _database_check(url, project)
    errors = [f"{run.origin}: {run.error}" for run in runs if run.error]
    accepted = sum(run.accepted for run in runs)
    lost_db = len(expected) - distinct
    dup_db = rows - distinct
    short = sum(1 for run in runs if set(run.seen) != expected)
    twice = sum(1 for run in runs if any(n > 1 for n in run.seen.values()))
    dense = low == (1 if rows else 0) and high == rows == last_seq
    pulls = [ms for run in runs for ms in run.pull_ms]
    pushes = [ms for run in runs for ms in run.push_ms]
    total = len(runs) * count
    print(
        f"- {len(runs)} clients x {count} observations (batches of {FLEET_BATCH}): {total:,}"
        f" pushed and pulled by everyone in {elapsed:.1f} s ({total / elapsed:,.0f} obs/s pushed)"
    )
    print(
        f"- lost {lost_db}, duplicated {dup_db} in the database ({rows:,} rows, {distinct:,}"
        f" distinct ids, sequences {low}..{high}, last_seq {last_seq}, dense: {dense});"
        f" accepted {accepted:,} of {total:,}"
    )
    print(
        f"- clients missing a mutation after pulling to the end: {short}; clients that got one"
        f" twice: {twice}; replayed batches accepted {replays} (must be 0)"
    )
    print(
        f"- pull p50 {statistics.median(pulls):.1f} ms, p95 {_p(pulls, 0.95):.1f} ms, max"
        f" {max(pulls):.1f} ms ({len(pulls):,} pulls); push p50 {statistics.median(pushes):.1f}"
        f" ms, p95 {_p(pushes, 0.95):.1f} ms ({len(pushes):,} pushes)"
    )
    ok = not errors and not lost_db and not dup_db and not short and not twice and dense
    ok = ok and accepted == total and replays == 0
    for line in errors[:5]:
        print(f"  client error: {line}")
    print(f"- {'ok' if ok else 'FAILED'} (load {load_average()})")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--mutations", type=int, default=200, help="per client")
    args = parser.parse_args()
    scratch = None if os.environ.get("ENGRAM_DATABASE_URL") else ScratchPostgres.start()
    url = os.environ.get("ENGRAM_DATABASE_URL") or scratch.dsn  # type: ignore[union-attr]
    try:
        # The schema exists before three servers race to create it.
        with psycopg.connect(url, row_factory=dict_row) as conn:
            migrate(conn)
        ok = run_fleet(url, args.servers, args.clients, args.mutations)
    finally:
        if scratch is not None:
            scratch.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
