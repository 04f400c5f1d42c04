"""Cloud benchmark: push and pull throughput (observations/s) through one ``engram cloud
serve``, as a ratio to a plain batched insert of the same rows into the same Postgres.

Run it (not a test)::

    .venv/bin/python bench/cloud_bench.py                  # 5k observations, 3 repeats
    .venv/bin/python bench/cloud_bench.py --size 2000 --repeats 1

It starts a throwaway PostgreSQL (``initdb`` + ``pg_ctl``; or uses ``ENGRAM_DATABASE_URL``)
and one real ``engram cloud serve`` subprocess on a free loopback port (insecure mode). Each
repeat uses a fresh project and times, for the same N observation mutations:

- baseline: ``executemany`` of the rows into a table shaped like ``cloud_mutations``, in
  batches of 500, one transaction per batch (what any server must at least do);
- push: ``POST /sync/mutations/push`` in batches of 500 through the client of
  ``engram sync --cloud`` (validation, dedup, sequencing, chunk materialization, JSON, HTTP);
- pull: ``GET /sync/mutations/pull`` pages of 500 until the end.

It prints medians of observations/s and the ratios push/baseline and pull/baseline.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from psycopg.types.json import Jsonb

from engram.cloud.scratch_postgres import ScratchPostgres
from engram.sync.cloud.client import CloudClient
from engram.sync.cloud.config import Remote
from engram.sync.mutation import Mutation

BATCH = 500

_BASELINE_TABLE = """
    CREATE TABLE IF NOT EXISTS bench_baseline (
        project TEXT NOT NULL, seq BIGINT NOT NULL, origin TEXT NOT NULL, clock BIGINT NOT NULL,
        entity TEXT NOT NULL, entity_key TEXT NOT NULL, op TEXT NOT NULL, payload JSONB NOT NULL,
        PRIMARY KEY (project, seq), UNIQUE (project, origin, clock)
    )
"""
_BASELINE_INSERT = """
    INSERT INTO bench_baseline (project, seq, origin, clock, entity, entity_key, op, payload)
    VALUES (%(project)s, %(seq)s, %(origin)s, %(clock)s, %(entity)s, %(key)s, %(op)s,
            %(payload)s)
"""


def observations(count: int, origin: str) -> list[Mutation]:
    """``count`` realistic observation upserts from one replica."""
    out = []
    for seq in range(1, count + 1):
        key = f"obs-{origin}-{seq:08d}"
        payload = {
            "sync_id": key,
            "session_id": f"session-{origin}",
            "type": "decision",
            "title": f"Decision {seq}: keep the cache warm on deploy",
            "content": "What: warm the cache. Why: cold starts cost 2 s. " * 6,
            "tool_name": None,
            "project": "bench",
            "scope": "project",
            "topic_key": None,
            "normalized_hash": f"{seq:064x}",
            "revision_count": 1,
            "expires_at": None,
            "created_at": "2026-11-30 12:00:00",
            "updated_at": "2026-11-30 12:00:00",
            "deleted_at": None,
        }
        out.append(Mutation(origin, seq, "observation", key, "upsert", "bench", payload))
    return out


def time_baseline(url: str, project: str, rows: list[Mutation]) -> float:
    with psycopg.connect(url) as conn:
        conn.execute(_BASELINE_TABLE)
        conn.commit()
        started = time.perf_counter()
        for start in range(0, len(rows), BATCH):
            params = [
                {
                    "project": project,
                    "seq": start + i + 1,
                    "origin": m.origin,
                    "clock": m.seq,
                    "entity": m.entity,
                    "key": m.key,
                    "op": m.op,
                    "payload": Jsonb(m.payload),
                }
                for i, m in enumerate(rows[start : start + BATCH])
            ]
            with conn.cursor() as cur:
                cur.executemany(_BASELINE_INSERT, params)
            conn.commit()
        return time.perf_counter() - started


def time_push(client: CloudClient, project: str, rows: list[Mutation]) -> float:
    started = time.perf_counter()
    for start in range(0, len(rows), BATCH):
        result = client.push_mutations(project, rows[start : start + BATCH])
        assert result["accepted"] == len(rows[start : start + BATCH]), result
    return time.perf_counter() - started


def time_pull(client: CloudClient, project: str, expected: int) -> float:
    started = time.perf_counter()
    since, seen = 0, 0
    while True:
        page = client.pull_mutations(project, since, BATCH)
        seen += len(page["mutations"])
        since = page["next_since"]
        if not page["has_more"]:
            break
    assert seen == expected, (seen, expected)
    return time.perf_counter() - started


def start_server(url: str) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        **os.environ,
        "ENGRAM_DATABASE_URL": url,
        "ENGRAM_CLOUD_INSECURE_NO_AUTH": "1",
        "ENGRAM_CLOUD_ALLOWED_PROJECTS": "*",
        "ENGRAM_PORT": str(port),
    }
    for name in ("ENGRAM_CLOUD_TOKEN", "ENGRAM_CLOUD_ADMIN"):
        env.pop(name, None)
    engram = Path(sys.executable).with_name("engram")
    process = subprocess.Popen(
        [str(engram), "cloud", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = f"http://127.0.0.1:{port}"
    client = CloudClient(Remote(server, ""), timeout=2)
    for _ in range(300):
        try:
            client.health()
            return process, server
        except Exception:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("engram cloud serve did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    scratch = None if os.environ.get("ENGRAM_DATABASE_URL") else ScratchPostgres.start()
    url = os.environ.get("ENGRAM_DATABASE_URL") or scratch.dsn  # type: ignore[union-attr]
    process, server = start_server(url)
    try:
        client = CloudClient(Remote(server, ""), timeout=120)
        base, push, pull = [], [], []
        for repeat in range(args.repeats):
            project = f"bench-{os.getpid()}-{repeat}"
            rows = observations(args.size, f"dev{repeat}")
            base.append(args.size / time_baseline(url, project, rows))
            push.append(args.size / time_push(client, project, rows))
            pull.append(args.size / time_pull(client, project, args.size))
    finally:
        process.terminate()
        process.wait(timeout=20)
        if scratch is not None:
            scratch.stop()
    b, pu, pl = (statistics.median(x) for x in (base, push, pull))
    print(f"cloud bench: {args.size} observations x {args.repeats} repeats, batches of {BATCH}")
    print(f"  baseline batched insert : {b:10.0f} obs/s")
    print(f"  push via cloud serve    : {pu:10.0f} obs/s   ratio {pu / b:.2f} of baseline")
    print(f"  pull via cloud serve    : {pl:10.0f} obs/s   ratio {pl / b:.2f} of baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main())
