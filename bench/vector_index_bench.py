"""The vector index file: what a fresh process pays for its first hybrid search, and after.

Run it on a store the retrieval benchmark has built and backfilled (not a test)::

    .venv/bin/python bench/vector_index_bench.py --size 100k
    .venv/bin/python bench/vector_index_bench.py --size 1m --queries 60

Each mode runs in a fresh child process on the same store, alternately, ``--rounds`` times:

- ``store``: no usable file (the child's index may not write one): the index is read from
  the store's embedding column into memory, as every process did before the file existed;
- ``file``: the index file in ``<data dir>/vectors`` is memory-mapped (written first if it
  is missing).

Printed per mode (medians over the rounds): the first search's CPU and wall time (opening
the index), peak RSS and the resident memory at the end split into anonymous and
file-backed (Linux), then CPU p50 / p95 of the vector part alone (``nearest``) and of the
whole hybrid search (``engram.memory.search.search``), filtered to the store's largest
project and without a filter,
over the labelled set's concept and mixed queries; ratios are ``file`` over ``store``,
measured in this run, with the load average beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))

import retrieval_set
import retrieval_stores

MODES = ("store", "file")


def _child(mode: str, data_dir: Path, count: int) -> dict[str, float]:
    """One fresh process: open the index (timed), then time each query."""
    from engram.memory.search import search
    from engram.store import semantic
    from engram.store.db import Store

    queries = [q for q in retrieval_set.build().queries if q.kind in ("concept", "mixed")]
    texts = [q.text for q in queries][:count]
    with Store.open(data_dir, env={"ENGRAM_SEARCH": "hybrid"}) as store:
        recall = semantic.of(store.connection)
        assert recall is not None
        recall.choice().embedder.embed(["warm up the model"])  # type: ignore[union-attr]
        largest = store.connection.execute(
            "SELECT project FROM observations GROUP BY project ORDER BY count(*) DESC LIMIT 1"
        ).fetchone()[0]
        if mode == "store":
            semantic._new_index = _without_file(semantic._new_index)  # type: ignore[assignment]
        cpu, wall = time.process_time(), time.perf_counter()
        recall.nearest("warm", project=None, type=None, scope=None, limit=50)
        figures = {"first_cpu": time.process_time() - cpu, "first_wall": time.perf_counter() - wall}
        for label, project in (("filtered", largest), ("all", None)):
            near, full = [], []
            for text in texts:
                cpu = time.process_time()
                recall.nearest(text, project=project, type=None, scope=None, limit=50)
                near.append(time.process_time() - cpu)
                cpu = time.process_time()
                search(store, text, project=project, limit=10)
                full.append(time.process_time() - cpu)
            figures |= _percentiles(f"nearest_{label}", near) | _percentiles(
                f"search_{label}", full
            )
    figures["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures | _resident()


def _resident() -> dict[str, float]:
    """Resident memory now, split (Linux): anonymous (the process's own) and file-backed
    (mapped files' pages: the index file's are page cache, shared and reclaimable)."""
    found: dict[str, float] = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "RssFile"):
                found[f"{key.lower().replace('rss', 'rss_')}_mb"] = int(value.split()[0]) / 1024
    return found


def _without_file(make):  # type: ignore[no-untyped-def]
    def build(conn, model, dimension):  # type: ignore[no-untyped-def]
        index = make(conn, model, dimension)
        index.folder = None
        return index

    return build


def _percentiles(name: str, seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        f"{name}_p50": statistics.median(ordered) * 1000,
        f"{name}_p95": ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000,
    }


def _run_child(mode: str, data_dir: Path, count: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, "--data-dir", str(data_dir),
         "--queries", str(count)],
        capture_output=True, text=True, check=True,
        env={**os.environ, "ENGRAM_SEARCH": "hybrid"},
    )  # fmt: skip
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _index_bytes(data_dir: Path) -> int:
    return sum(p.stat().st_size for p in (data_dir / "vectors").glob("*.vec"))


def main(argv: list[str] | None = None) -> int:
    """Parse flags; run the children alternately; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--size",
        default="100k",
        help="5k, 100k or 1m: the retrieval store, built and embedded when not cached",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=120)
    parser.add_argument("--cache", type=Path, default=retrieval_stores.CACHE)
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help="another store's data dir instead")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.data_dir, args.queries)))
        return 0
    data_dir = args.data_dir
    if data_dir is None:
        data_dir = retrieval_stores.embedded_store(
            retrieval_stores.parse_size(args.size), args.cache
        )
    if not (data_dir / "engram.db").is_file():
        parser.error(f"no store at {data_dir}")
    runs: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    _run_child("file", data_dir, 1)  # make sure the file exists before timing it
    for _ in range(args.rounds):
        for mode in MODES:
            runs[mode].append(_run_child(mode, data_dir, args.queries))
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"# vector index at {args.data_dir or args.size} ({args.rounds} rounds x {args.queries} queries,"
          f" load average {load}); index file {_index_bytes(data_dir) / 2**20:.1f} MB")  # fmt: skip
    print("\n| figure | store (no file) | file (mmap) | file / store |\n|---|---:|---:|---:|")
    for key in runs["file"][0]:
        store = statistics.median(r[key] for r in runs["store"])
        mapped = statistics.median(r[key] for r in runs["file"])
        ratio = mapped / store if store else float("nan")
        print(f"| {key} | {store:.2f} | {mapped:.2f} | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
