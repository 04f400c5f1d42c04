"""Store benchmark: save throughput and search latency at 10k, 100k and 1M observations.

Run it (not a test; it takes minutes at 1M)::

    .venv/bin/python bench/store_bench.py                  # all three sizes
    .venv/bin/python bench/store_bench.py --sizes 10k,100k

For each size it builds (once; cached under bench/.cache) a store of synthetic observations
from bench/corpus.py — bulk-loaded with executemany in one transaction through the store's
own schema and FTS triggers — then measures, in the same process and on the same database:

- save throughput through Engram's real save operation, against raw single-row INSERTs
  (each in its own transaction, firing the same FTS triggers);
- search latency p50/p95 through Engram's search for a very common, a mid-frequency and a
  rare term, with and without a project filter, against raw sqlite3 FTS5 queries of the same
  terms: ``MATCH ? ORDER BY rank LIMIT 10`` (the ranked baseline the targets are stated
  against) and ``MATCH ? LIMIT 10`` (unranked: the cheapest possible answer).

Ratios are Engram / raw; a ratio below 1 means Engram is faster than the raw query.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus

from engram.store.db import Store

CACHE = Path(__file__).resolve().parent / ".cache"
CORPUS_VERSION = 1
SAVE_PROJECT = "bench-save"
TERM_RANKS = {"very common": 1, "mid": 300, "rare": 20_000}
FILTER_PROJECT = corpus.project_names()[0]
RANKED_SQL = (
    "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? ORDER BY rank LIMIT 10"
)
FIRST_SQL = "SELECT rowid FROM observations_fts WHERE observations_fts MATCH ? LIMIT 10"
DEFAULT_SIZES = "10k,100k,1m"


def parse_size(text: str) -> int:
    """``10k`` -> 10000, ``1m`` -> 1000000, ``2500`` -> 2500."""
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    if not number.isdigit() or int(number) <= 0:
        raise ValueError(f"not a size: {text!r} (use e.g. 10k, 100k, 1m)")
    return int(number) * scale


def build(size: int, cache: Path = CACHE) -> Path:
    """The data dir of a store holding ``size`` synthetic observations (built once, cached)."""
    data_dir = cache / f"store-{size}"
    marker = data_dir / "built.json"
    expected = {"size": size, "corpus": CORPUS_VERSION}
    if marker.is_file() and json.loads(marker.read_text()) == expected:
        return data_dir
    if data_dir.exists():
        for leftover in data_dir.iterdir():
            leftover.unlink()
    data_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with Store.open(data_dir) as store:
        conn = store.connection
        conn.execute("PRAGMA cache_size = -262144")
        with store.write():
            _bulk_load(conn, size)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    marker.write_text(json.dumps(expected))
    print(f"  built {size:,} observations in {time.perf_counter() - started:.0f} s", flush=True)
    return data_dir


def _bulk_load(conn: sqlite3.Connection, size: int) -> None:
    """Sessions of ~250 observations per project; timestamps rising over one year.

    The dedup hash of bulk rows is a plain sha256: no measured save ever duplicates them.
    """
    start = time.time() - 365 * 86400
    step = 365 * 86400 / max(size, 1)
    per_project: dict[str, int] = {}
    sessions: list[tuple[str, str, str]] = []
    batch: list[tuple[object, ...]] = []
    for index, item in enumerate(corpus.observations(size)):
        seen = per_project.get(item.project, 0)
        per_project[item.project] = seen + 1
        session_id = f"bench-{item.project}-{seen // 250}"
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(start + index * step))
        if seen % 250 == 0:
            sessions.append((session_id, item.project, stamp))
        batch.append(
            (
                f"obs-bench-{index}",
                session_id,
                item.type,
                item.title,
                item.content,
                item.project,
                hashlib.sha256(item.content.encode()).hexdigest(),
                stamp,
                stamp,
                stamp,
            )
        )
        if len(batch) >= 20_000:
            _flush(conn, sessions, batch)
    _flush(conn, sessions, batch)


def _flush(
    conn: sqlite3.Connection, sessions: list[tuple[str, str, str]], batch: list[tuple[object, ...]]
) -> None:
    conn.executemany(
        "INSERT INTO sessions (id, project, directory, started_at) VALUES (?, ?, '/bench', ?)",
        sessions,
    )
    conn.executemany(
        "INSERT INTO observations (sync_id, session_id, type, title, content, project,"
        " normalized_hash, last_seen_at, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
        batch,
    )
    sessions.clear()
    batch.clear()


def timed(action: Callable[[], object], repeats: int, budget_s: float = 20.0) -> list[float]:
    """Wall times in milliseconds of up to ``repeats`` runs after one warm-up run.

    Slow baselines (a ranked raw query over a million matches takes seconds) stop after
    ``budget_s`` seconds, but never with fewer than 5 samples.
    """
    action()
    samples: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(samples) < repeats and (len(samples) < 5 or time.perf_counter() < deadline):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def p50_p95(samples: list[float]) -> tuple[float, float]:
    """Median and 95th percentile."""
    cuts = statistics.quantiles(samples, n=20, method="inclusive")
    return statistics.median(samples), cuts[18]


RAW_INSERT = (
    "INSERT INTO observations (sync_id, type, title, content, project,"
    " normalized_hash, created_at, updated_at)"
    " VALUES (?, 'manual', ?, ?, ?, 'x', '2026-01-01', '2026-01-01')"
)


def measure_saves(data_dir: Path, count: int) -> tuple[float, float, float]:
    """(Engram saves/s, raw INSERT transactions/s, CPU-time ratio); the rows are removed
    afterwards.

    Engram saves and raw inserts alternate one by one, so bursts of load from other processes
    and the FTS index's periodic segment merges land on both sides instead of skewing the
    ratio. The CPU-time ratio (this process's CPU, not waits for the disk or for a core) is the
    steadier figure on a shared machine.
    """
    from engram.memory.save import save_observation

    spent = {"engram": [0.0, 0.0], "raw": [0.0, 0.0]}  # wall, CPU
    with Store.open(data_dir) as store:
        conn = store.connection
        for index in range(count):
            started, cpu = time.perf_counter(), time.process_time()
            save_observation(
                store,
                title=f"Bench save {index}",
                content=f"measured save number {index} of the real path {os.getpid()}",
                project=SAVE_PROJECT,
            )
            _add(spent["engram"], started, cpu)
            started, cpu = time.perf_counter(), time.process_time()
            with store.write():
                raw = (f"obs-raw-{os.getpid()}-{index}", f"Raw {index}", "raw body", SAVE_PROJECT)
                conn.execute(RAW_INSERT, raw)
            _add(spent["raw"], started, cpu)
        with store.write():
            conn.execute(
                "DELETE FROM memory_relations WHERE source_id IN"
                " (SELECT sync_id FROM observations WHERE project = ?)",
                (SAVE_PROJECT,),
            )
            conn.execute("DELETE FROM observations WHERE project = ?", (SAVE_PROJECT,))
            conn.execute("DELETE FROM sessions WHERE project = ?", (SAVE_PROJECT,))
    (engram_wall, engram_cpu), (raw_wall, raw_cpu) = spent["engram"], spent["raw"]
    return count / engram_wall, count / raw_wall, engram_cpu / raw_cpu


def _add(totals: list[float], started: float, cpu: float) -> None:
    totals[0] += time.perf_counter() - started
    totals[1] += time.process_time() - cpu


def measure_searches(data_dir: Path, repeats: int) -> list[dict[str, object]]:
    """Latency of Engram's search vs raw FTS5 for each term, without and with a project filter."""
    from engram.memory import search as search_op

    rows: list[dict[str, object]] = []
    with Store.open(data_dir) as store:
        conn = store.connection
        for label, rank in TERM_RANKS.items():
            term = corpus.term_at_rank(rank)
            for project in (None, FILTER_PROJECT):
                expression = f'"{term}"' + (f' AND project : "{project}"' if project else "")
                matches = conn.execute(
                    "SELECT count(*) FROM observations_fts WHERE observations_fts MATCH ?",
                    (expression,),
                ).fetchone()[0]
                ours = timed(
                    lambda t=term, p=project: search_op.search(store, t, project=p, limit=10),
                    repeats,
                )
                ranked = timed(
                    lambda e=expression: conn.execute(RANKED_SQL, (e,)).fetchall(), repeats
                )
                first = timed(
                    lambda e=expression: conn.execute(FIRST_SQL, (e,)).fetchall(), repeats
                )
                rows.append(
                    {
                        "term": f"{label} ({term})",
                        "filter": project or "-",
                        "matches": matches,
                        "engram": p50_p95(ours),
                        "ranked": p50_p95(ranked),
                        "first": p50_p95(first),
                    }
                )
    return rows


def report(size: int, saves: tuple[float, float, float], searches: list[dict[str, object]]) -> None:
    """Print one size's figures as a Markdown table (pasted into docs/performance.md)."""
    engram_rate, raw_rate, cpu_ratio = saves
    print(f"\n### {size:,} observations\n")
    print(
        f"save: {engram_rate:,.0f} obs/s through Engram's save, {raw_rate:,.0f} raw INSERT"
        f" transactions/s (ratio {raw_rate / engram_rate:.2f}x slower; CPU time"
        f" {cpu_ratio:.2f}x)\n"
    )
    print(
        "| term | project filter | matches | Engram p50 / p95 ms | raw ranked p50 / p95 ms"
        " | ratio vs ranked p50 / p95 | raw first-10 p50 / p95 ms | ratio vs first-10 p50 / p95 |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for row in searches:
        ours, ranked, first = row["engram"], row["ranked"], row["first"]
        assert isinstance(ours, tuple) and isinstance(ranked, tuple) and isinstance(first, tuple)
        print(
            f"| {row['term']} | {row['filter']} | {row['matches']:,} |"
            f" {ours[0]:.2f} / {ours[1]:.2f} | {ranked[0]:.2f} / {ranked[1]:.2f} |"
            f" {ours[0] / ranked[0]:.2f} / {ours[1] / ranked[1]:.2f} |"
            f" {first[0]:.2f} / {first[1]:.2f} | {ours[0] / first[0]:.1f} / {ours[1] / first[1]:.1f} |"
        )
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    """Parse flags, then build and measure each requested size."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="comma list, e.g. 10k,100k,1m")
    parser.add_argument("--cache", type=Path, default=CACHE, help="where built stores are kept")
    parser.add_argument("--repeats", type=int, default=40, help="timed runs per query")
    parser.add_argument("--saves", type=int, default=1000, help="saves timed per size")
    args = parser.parse_args(argv)
    try:
        sizes = [parse_size(part) for part in args.sizes.split(",") if part.strip()]
    except ValueError as exc:
        parser.error(str(exc))
    # Engram's data dir must never be the user's real one, even for the save measurement.
    os.environ["ENGRAM_DATA_DIR"] = tempfile.mkdtemp(prefix="engram-bench-")
    print(
        f"# Engram store benchmark (sqlite {sqlite3.sqlite_version}, python {sys.version.split()[0]})"
    )
    for size in sizes:
        print(f"\nbuilding / loading {size:,} observations ...", flush=True)
        data_dir = build(size, args.cache)
        report(size, measure_saves(data_dir, args.saves), measure_searches(data_dir, args.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
