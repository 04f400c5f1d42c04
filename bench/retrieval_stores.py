"""Stores for bench/retrieval_bench.py: the labelled journal alone, or embedded in synthetic ones.

A synthetic store (bench/corpus.py observations, built once and cached under
``bench/.cache/retrieval-<size>``) leaves ``SLOTS`` ids free, spread evenly over its id range.
The labelled journal (bench/data/retrieval_set.py) goes into those free ids in the order the
memories were written, so a labelled memory is as old, relative to the synthetic rows around
it, as its own date says — an answer from the first month sits under eleven months of newer
rows. Changing the labelled set only replaces the labelled rows (marker ``labels.json``); the
synthetic rows (a 1M store takes ~15 minutes to build here) are never rebuilt for it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))

import corpus
import retrieval_set

from engram.store.db import Store

CACHE = Path(__file__).resolve().parent / ".cache"
SLOTS = 6000
SYNTHETIC_VERSION = 1
LABEL_PREFIX = "ret-"
SPAN_START = retrieval_set.START
SPAN_DAYS = retrieval_set.DAYS
LEGACY_VERSION = 2
STEMMED_VERSION = 8  # the migration that made the live indexes stemmed
LEGACY_INDEXES = {
    "legacy_text": "title, content, tool_name, type, project, topic_key, search_keys",
    "legacy_titles": "title, search_keys",
}


def slot_ids(synthetic: int) -> list[int]:
    """The ids kept free for labelled memories among ``synthetic`` synthetic rows."""
    total = synthetic + SLOTS
    return [index * total // SLOTS + 1 for index in range(SLOTS)]


def _stamp(fraction: float) -> str:
    moment = SPAN_START + timedelta(days=SPAN_DAYS * fraction)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _synthetic_rows(size: int) -> Iterator[tuple[object, ...]]:
    free = set(slot_ids(size))
    total = size + SLOTS
    ids = (i for i in range(1, total + 1) if i not in free)
    for rowid, item in zip(ids, corpus.observations(size), strict=False):
        stamp = _stamp(rowid / total)
        yield (
            rowid,
            f"obs-syn-{rowid}",
            item.type,
            item.title,
            item.content,
            item.project,
            hashlib.sha256(item.content.encode()).hexdigest(),
            stamp,
            stamp,
            stamp,
        )


def _insert(conn: sqlite3.Connection, rows: list[tuple[object, ...]]) -> None:
    conn.executemany(
        "INSERT INTO observations (id, sync_id, type, title, content, project,"
        " normalized_hash, last_seen_at, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
        rows,
    )


def build_synthetic(size: int, cache: Path = CACHE) -> Path:
    """The data dir of ``size`` synthetic observations with ``SLOTS`` free ids (cached)."""
    data_dir = cache / f"retrieval-{size}"
    marker = data_dir / "built.json"
    expected = {"size": size, "slots": SLOTS, "version": SYNTHETIC_VERSION}
    if marker.is_file() and json.loads(marker.read_text()) == expected:
        return data_dir
    if data_dir.exists():
        for leftover in data_dir.iterdir():
            leftover.unlink()
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    started = time.perf_counter()
    with Store.open(data_dir) as store:
        conn = store.connection
        conn.execute("PRAGMA cache_size = -262144")
        batch: list[tuple[object, ...]] = []
        with store.write():
            for row in _synthetic_rows(size):
                batch.append(row)
                if len(batch) >= 20_000:
                    _insert(conn, batch)
                    batch.clear()
            _insert(conn, batch)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    marker.write_text(json.dumps(expected))
    print(f"  built {size:,} synthetic observations in {time.perf_counter() - started:.0f} s")
    return data_dir


def install_labels(data_dir: Path, data: retrieval_set.RetrievalSet, synthetic: int) -> None:
    """Put the labelled journal into the store's free ids (replacing an older labelled set)."""
    marker = data_dir / "labels.json"
    expected = {
        "digest": hashlib.sha256(data.to_json().encode()).hexdigest(),
        "legacy_indexes": LEGACY_VERSION,
    }
    if marker.is_file() and json.loads(marker.read_text()) == expected:
        return
    slots = slot_ids(synthetic) if synthetic else list(range(1, SLOTS + 1))
    count = len(data.memories)
    if count > SLOTS:
        raise SystemExit(f"the labelled set has {count} memories; at most {SLOTS} fit")
    kept = _keep_v010_indexes(data_dir / "engram.db")
    started = time.perf_counter()
    with Store.open(data_dir) as store:
        print(f"  opened (and migrated) in {time.perf_counter() - started:.1f} s", flush=True)
        conn = store.connection
        if not kept and not _has_table(conn, "legacy_text"):
            with store.write():
                _build_legacy_indexes(conn)
        with store.write():
            _legacy_rows(conn, "delete")
            conn.execute("DELETE FROM memory_relations WHERE sync_id LIKE 'ret-%'")
            conn.execute("DELETE FROM observations WHERE sync_id LIKE 'ret-%'")
            for index, memory in enumerate(data.memories):
                _insert_labelled(conn, slots[index * SLOTS // count], memory)
            for newer, older in data.supersedes:
                conn.execute(
                    "INSERT INTO memory_relations (sync_id, source_id, target_id, relation,"
                    " judgment_status, created_at, updated_at)"
                    " VALUES (?, ?, ?, 'supersedes', 'judged', ?, ?)",
                    (f"ret-rel-{newer}-{older}", LABEL_PREFIX + newer, LABEL_PREFIX + older)
                    + (_now(),) * 2,
                )
            _legacy_rows(conn, "insert")
    marker.write_text(json.dumps(expected))


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
    return found is not None


def _keep_v010_indexes(db: Path) -> bool:
    """On a store built before the stemmed indexes (migration 0008), keep its unstemmed
    indexes as the bench's v0.1.0 copies (renamed; the triggers keep naming the live tables,
    which the migration then rebuilds) instead of indexing a million rows once more."""
    if not db.is_file():
        return False
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] >= STEMMED_VERSION:
            return False
        if _has_table(conn, "legacy_text"):
            return True
        conn.execute("PRAGMA legacy_alter_table = ON")
        conn.execute("BEGIN IMMEDIATE")
        for live, legacy in (
            ("observations_fts", "legacy_text"),
            ("observation_titles", "legacy_titles"),
        ):
            conn.execute(f"ALTER TABLE {live} RENAME TO {legacy}")
            conn.execute(f"CREATE VIRTUAL TABLE {live} USING fts5 (placeholder)")
        conn.execute("COMMIT")
        return True
    finally:
        conn.close()


def _legacy_rows(conn: sqlite3.Connection, action: str) -> None:
    """Add the live labelled rows to (or take them out of) the bench's v0.1.0 indexes."""
    for table, columns in LEGACY_INDEXES.items():
        command = "'delete', " if action == "delete" else ""
        target = f"{table}, rowid, {columns}" if action == "delete" else f"rowid, {columns}"
        conn.execute(
            f"INSERT INTO {table} ({target}) SELECT {command}id, {columns} FROM observations"
            f" WHERE sync_id LIKE '{LABEL_PREFIX}%' AND deleted_at IS NULL"
        )


def _build_legacy_indexes(conn: sqlite3.Connection) -> None:
    """Bench-only copies of the v0.1.0 indexes (unicode61, no stemming) over the live rows,
    so the v0.1.0 ranking and the bm25() baseline run on exactly what v0.1.0 searched."""
    for table, columns in LEGACY_INDEXES.items():
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(
            f"CREATE VIRTUAL TABLE {table} USING fts5 ({columns}, content = 'observations',"
            " content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2')"
        )
        conn.execute(
            f"INSERT INTO {table} (rowid, {columns}) SELECT id, {columns} FROM observations"
            f" WHERE deleted_at IS NULL AND sync_id NOT LIKE '{LABEL_PREFIX}%'"
        )


def _insert_labelled(conn: sqlite3.Connection, rowid: int, memory: retrieval_set.Memory) -> None:
    conn.execute(
        "INSERT INTO observations (id, sync_id, type, title, content, project, topic_key,"
        " normalized_hash, revision_count, last_seen_at, created_at, updated_at, deleted_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            rowid,
            LABEL_PREFIX + memory.id,
            memory.type,
            memory.title,
            memory.content,
            memory.project,
            memory.topic_key,
            hashlib.sha256(memory.content.encode()).hexdigest(),
            memory.revision_count,
            memory.created_at,
            memory.created_at,
            memory.created_at,
            memory.created_at if memory.deleted else None,
        ),
    )


def _now() -> str:
    return datetime(2026, 11, 30).strftime("%Y-%m-%d %H:%M:%S")


def labelled_store(size: int, data: retrieval_set.RetrievalSet, cache: Path = CACHE) -> Path:
    """A store holding the labelled journal, alone (``size`` 0) or among ``size`` synthetic
    observations."""
    if size == 0:
        data_dir = cache / "retrieval-labelled"
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    else:
        data_dir = build_synthetic(size, cache)
    install_labels(data_dir, data, size)
    return data_dir


def parse_size(text: str) -> int:
    """``5k`` (the labelled set alone) -> 0; ``100k`` -> 100000; ``1m`` -> 1000000."""
    import store_bench

    return 0 if text.strip().lower() == "5k" else store_bench.parse_size(text)


def embedded_store(size: int, cache: Path = CACHE) -> Path:
    """The labelled store for ``size`` with every memory embedded by the default embedder:
    built and backfilled when the cache lacks it (minutes at 100k, ~20 at 1M), so the vector
    benches need no earlier run of another bench."""
    from engram.memory import embedding

    data_dir = labelled_store(size, retrieval_set.build(), cache)
    with Store.open(data_dir, env={"ENGRAM_SEARCH": "hybrid"}) as store:
        state = embedding.status(store)
        if not state.on:
            raise SystemExit(f"the vector benches need semantic recall: {state.reason}")
        started = time.perf_counter()
        made = embedding.backfill(store)
        if made:
            print(
                f"  embedded {made:,} memories in {time.perf_counter() - started:.0f} s", flush=True
            )
    return data_dir


if __name__ == "__main__":  # build (or check) the cached stores: retrieval_stores.py 100k 1m
    for arg in sys.argv[1:]:
        scale = {"k": 1_000, "m": 1_000_000}[arg[-1].lower()]
        print(build_synthetic(int(arg[:-1]) * scale), flush=True)
