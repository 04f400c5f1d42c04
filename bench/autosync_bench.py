"""Autosync benchmark: is a local save as fast with cloud autosync running as without it?

Run it (not a test)::

    .venv/bin/python bench/autosync_bench.py                 # 8 rounds x 100 saves per mode
    .venv/bin/python bench/autosync_bench.py --rounds 4 --saves 50

It starts a throwaway PostgreSQL and one real ``engram cloud serve`` on a free loopback port
(with the fleet bench's sync token), and two data dirs in this process, both with the project enrolled:

- off: no autosync;
- on: the autosync manager of ``engram serve`` / ``engram-mcp`` (``start_autosync``) running
  against the live server with a 20 ms interval — the worst case: it pushes every save almost
  as soon as it lands, pulls, and writes its cursors and outcome rows into the same SQLite file.

Rounds interleave the two modes (off, on, on, off, ...) so drift hits both. Each save goes
through ``engram.memory.save.save_observation`` (what ``engram save`` and ``mem_save`` call).
It prints the median and p95 save latency per mode and their ratios on/off, and how many of
the "on" saves reached the server (so the worker really was busy).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from cloud_fleet import TOKEN, start_server

from engram.cloud.scratch_postgres import ScratchPostgres
from engram.memory.save import save_observation
from engram.store.db import Store
from engram.sync.cloud.autosync import start_autosync
from engram.sync.cloud.client import CloudClient
from engram.sync.cloud.config import CloudConfig, Remote
from engram.sync.cloud.enrollment import enroll

PROJECT = "bench-autosync"
BODY = "What: warm the cache on deploy. Why: cold starts cost 2 s. Where: deploy.sh. " * 4


def timed_saves(store: Store, count: int, label: str, start: int) -> list[float]:
    """Latency in seconds of ``count`` saves."""
    out = []
    for n in range(start, start + count):
        began = time.perf_counter()
        save_observation(
            store,
            title=f"{label} decision {n}",
            content=f"{BODY} ({label} {n})",
            project=PROJECT,
            type="decision",
            surface_conflicts=False,
        )
        out.append(time.perf_counter() - began)
    return out


def p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95) - 1]


def remote_count(server: str) -> int:
    client = CloudClient(Remote(server, TOKEN), timeout=30)
    since, seen = 0, 0
    while True:
        page = client.pull_mutations(PROJECT, since, 500)
        seen += sum(1 for m in page["mutations"] if m["entity"] == "observation")
        since = page["next_since"]
        if not page["has_more"]:
            return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--saves", type=int, default=100)
    args = parser.parse_args()
    scratch = None if os.environ.get("ENGRAM_DATABASE_URL") else ScratchPostgres.start()
    url = os.environ.get("ENGRAM_DATABASE_URL") or scratch.dsn  # type: ignore[union-attr]
    process, server = start_server(url)
    work = Path(tempfile.mkdtemp(prefix="engram-autosync-bench-"))
    stores = {mode: Store.open(work / mode, env={}) for mode in ("off", "on")}
    for mode, store in stores.items():
        enroll(store, PROJECT)
        CloudConfig(server_url=server, token=TOKEN).save(work / mode)
    env = {
        "ENGRAM_CLOUD_AUTOSYNC": "1",
        "ENGRAM_CLOUD_SERVER": server,
        "ENGRAM_CLOUD_TOKEN": TOKEN,
        "ENGRAM_CLOUD_AUTOSYNC_INTERVAL": "0.02",
    }
    manager = start_autosync(work / "on", env)
    assert manager is not None
    latencies: dict[str, list[float]] = {"off": [], "on": []}
    try:
        for round_no in range(args.rounds):
            order = ("off", "on") if round_no % 2 == 0 else ("on", "off")
            for mode in order:
                start = round_no * args.saves
                latencies[mode] += timed_saves(stores[mode], args.saves, mode, start)
        time.sleep(1.0)  # let the worker push the last saves
        reached = remote_count(server)
    finally:
        manager.stop()
        for store in stores.values():
            store.close()
        process.terminate()
        process.wait(timeout=20)
        if scratch is not None:
            scratch.stop()
        shutil.rmtree(work, ignore_errors=True)
    off, on = latencies["off"], latencies["on"]
    total = args.rounds * args.saves
    print(f"autosync bench: {args.rounds} interleaved rounds x {args.saves} saves per mode")
    for mode, values in latencies.items():
        median_ms = statistics.median(values) * 1000
        print(f"  autosync {mode:3}: median {median_ms:6.2f} ms  p95 {p95(values) * 1000:6.2f} ms")
    print(
        f"  ratio on/off: median {statistics.median(on) / statistics.median(off):.2f}"
        f"  p95 {p95(on) / p95(off):.2f}"
    )
    print(f"  'on' saves that reached the cloud during the run: {reached}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
