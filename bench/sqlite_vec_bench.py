"""sqlite-vec against Engram's int8 scan of the memory-mapped index file, on one store.

Needs ``sqlite-vec`` and an SQLite binding that can load extensions: this Python's
``sqlite3`` when it can, else ``pysqlite3`` (both pinned in the ``bench`` extra, which
``dev`` includes; without them it says so and exits 0). Not a test; the figures are in
docs/search.md::

    .venv/bin/python bench/sqlite_vec_bench.py                 # the 100k retrieval store
    .venv/bin/python bench/sqlite_vec_bench.py --size 1m
    .venv/bin/python bench/sqlite_vec_bench.py --data-dir ~/.engram

The retrieval store is built and embedded when the cache lacks it (bench/retrieval_stores.py).

Timed, CPU per query (median and p95 of ``--queries`` random unit vectors), with a project
filter (the store's largest project) and without, 50 nearest each:

- ``engram``: :func:`engram.store.vector_index._similarities` over the index file's span plus
  the top-50 selection (the file is written first when missing);
- ``vec_distance_cosine``: sqlite-vec's scalar function over ``observations.embedding``
  (the store's own column, no copy), ``ORDER BY`` distance ``LIMIT 50``;
- ``vec0``: a ``vec0`` virtual table (``int8[dim]``, cosine, ``project`` as partition key)
  built from the column into a scratch file (its build time and size printed), ``MATCH``
  with ``k = 50``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _loader() -> tuple[Any, str] | str:
    """An extension-loading ``connect`` and its name, or why there is none."""
    try:
        import sqlite_vec  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return "sqlite-vec is not installed (pip install sqlite-vec)"
    import sqlite3

    if hasattr(sqlite3.connect(":memory:"), "enable_load_extension"):
        return sqlite3, f"sqlite3 (SQLite {sqlite3.sqlite_version}), sqlite-vec {sqlite_vec}"
    try:
        from pysqlite3 import dbapi2  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError:
        return "this Python's sqlite3 cannot load extensions and pysqlite3 is not installed"
    return dbapi2, f"pysqlite3 (SQLite {dbapi2.sqlite_version})"


def _connect(module: Any, path: str, read_only: bool) -> Any:
    import sqlite_vec  # type: ignore[import-untyped, import-not-found, unused-ignore]

    conn = module.connect(f"file:{path}?mode=ro" if read_only else path, uri=read_only)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    return conn


def _time(action: Any, queries: list[Any]) -> str:
    seconds = []
    for query in queries:
        started = time.process_time()
        action(query)
        seconds.append(time.process_time() - started)
    seconds.sort()
    p95 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.95))]
    return f"{statistics.median(seconds) * 1000:.2f} / {p95 * 1000:.2f}"


def _engram_file(data_dir: Path, model: str, dimension: int) -> Any:
    from engram.store import vector_file
    from engram.store.db import Store
    from engram.store.semantic import of

    with Store.open(data_dir, env={"ENGRAM_SEARCH": "hybrid"}) as store:
        recall = of(store.connection)
        assert recall is not None
        recall.nearest("warm", project=None, type=None, scope=None, limit=1)  # writes the file
        database = vector_file.database_identity(store.path)
    path = vector_file.path_for(data_dir / vector_file.FOLDER, model)
    return vector_file.open_file(path, model=model, dimension=dimension, database=database)


def main(argv: list[str] | None = None) -> int:
    """Parse flags, measure the three ways, print a table."""
    import numpy as np

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="100k", help="5k, 100k or 1m: the retrieval store")
    parser.add_argument("--data-dir", type=Path, help="another store's data dir instead")
    parser.add_argument("--queries", type=int, default=40)
    args = parser.parse_args(argv)
    found = _loader()
    if isinstance(found, str):
        print(f"sqlite-vec not measurable here: {found}")
        return 0
    module, name = found
    if args.data_dir is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
        import retrieval_stores

        args.data_dir = retrieval_stores.embedded_store(retrieval_stores.parse_size(args.size))
    db = str(args.data_dir / "engram.db")
    conn = _connect(module, db, read_only=True)
    model, dimension, project = conn.execute(
        "SELECT embedding_model, length(embedding), project FROM observations"
        " WHERE embedding IS NOT NULL GROUP BY project ORDER BY count(*) DESC LIMIT 1"
    ).fetchone()
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((args.queries, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    packed = [np.rint(v * 127).astype(np.int8).tobytes() for v in vectors]

    from engram.store import vector_index

    base = _engram_file(args.data_dir, model, dimension)

    def engram(at: int, filtered: bool) -> None:
        start, end = base.spans[project] if filtered else (0, len(base))
        sims = vector_index._similarities(base, start, end, vectors[at])
        np.argpartition(-sims, min(49, len(sims) - 1))[:50]  # a small store has fewer

    where = "embedding_model = ? AND deleted_at IS NULL"
    scalar = (
        "SELECT id, vec_distance_cosine(vec_int8(embedding), vec_int8(?)) AS d FROM observations"
        f" WHERE {where} {{}} ORDER BY d LIMIT 50"
    )
    scratch = Path(tempfile.mkdtemp(prefix="engram-vec0-")) / "vec0.db"
    vec0 = _connect(module, str(scratch), read_only=False)
    vec0.execute(
        f"CREATE VIRTUAL TABLE v USING vec0(id INTEGER PRIMARY KEY, project TEXT partition key,"
        f" e int8[{dimension}] distance_metric=cosine)"
    )
    started = time.perf_counter()
    rows = conn.execute(f"SELECT id, project, embedding FROM observations WHERE {where}", (model,))
    vec0.executemany("INSERT INTO v (id, project, e) VALUES (?, ?, vec_int8(?))", rows)
    vec0.commit()
    built = time.perf_counter() - started
    knn = "SELECT id, distance FROM v WHERE e MATCH vec_int8(?) AND k = 50 {}"
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"# sqlite-vec vs the int8 file scan: {len(base):,} vectors, {name}, load {load}")
    print(f"vec0 table built in {built:.1f} s wall, {scratch.stat().st_size / 2**20:.1f} MB")
    print("\n| way | CPU p50 / p95 ms, project filter | CPU p50 / p95 ms, no filter |")
    print("|---|---:|---:|")
    indexes = list(range(args.queries))
    for label, run in (
        ("engram int8 file scan", lambda i, f: engram(i, f)),
        ("vec_distance_cosine over the column", lambda i, f: conn.execute(
            scalar.format("AND project = ?" if f else ""),
            (packed[i], model, *((project,) if f else ())),
        ).fetchall()),
        ("vec0 virtual table", lambda i, f: vec0.execute(
            knn.format("AND project = ?" if f else ""), (packed[i], *((project,) if f else ()))
        ).fetchall()),
    ):  # fmt: skip
        run(0, True)
        filtered = _time(lambda i, run=run: run(i, True), indexes)
        unfiltered = _time(lambda i, run=run: run(i, False), indexes)
        print(f"| {label} | {filtered} | {unfiltered} |")
    scratch.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
