"""Nearest vectors under the search filters: an exact int8 scan of a memory-mapped file.

The index of one embedding model is the file :mod:`engram.store.vector_file` keeps in
``<data dir>/vectors/`` (held in memory instead when that folder cannot be written), plus
the rows embedded since the file's watermark, read from the store into a small ``fresh``
table. The database is authoritative; the file is a cache, trusted only as far as it checks
out:

- opening it checks its header, size, model, database file and small arrays, and compares
  ``SAMPLES`` of its rows with the database; a matrix chunk's crc is checked the first time
  a process scans it;
- every row a search returns is re-read from the database and scored from its stored
  vector, so a returned similarity is always the true one; a row that differs although the
  database says it has not changed since the file was written makes the file untrusted;
- any of these failing rebuilds the file from the store, and the search runs again.

Past ``REWRITE_SHARE`` of fresh rows the file is rewritten (from itself, the fresh rows and,
for the rest, the store). What a search may return is asked of SQLite every time
(:func:`engram.store.vectors.candidate_ids`: live, this model, project, type, scope), so a
deleted or re-filed memory is out of the candidates before any ranking; an allowed row the
file does not place under the project (re-filed since) is scored all the same.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from engram.store import vector_file, vectors
from engram.store.vector_file import CHUNK_ROWS, BadFile, VectorFile

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# Rows embedded since the file was written are scanned from ``fresh``; past this share of
# the file (or this many rows) the file is rewritten.
REWRITE_SHARE = 0.05
REWRITE_MIN = 2000
# Rows stamped this long before the watermark are read again: a transaction stamps its rows
# before it commits, so a slow one can commit rows older than what a reader already saw.
MARGIN = timedelta(seconds=10)
REBUILD_SHARE = 4  # more fresh rows than 4x the threshold: rebuilt from the store alone
SAMPLES = 16  # rows compared with the database when a file is opened
MAX_CACHED_FILTERS = 16  # candidate sets kept per (project, type, scope), until a commit
ATTEMPTS = 3
SCAN_ROWS = 1024  # rows converted to float32 at a time (1 MB at 256 dimensions)


@dataclass(frozen=True, slots=True)
class Nearest:
    """A candidate rowid and its cosine similarity to the query."""

    rowid: int
    similarity: float


@dataclass
class VectorIndex:
    """One model's vectors for one connection (see the module docstring)."""

    model: str
    dimension: int
    folder: Path | None = None  # where the file lives; None: in memory only
    database: list[int] = field(default_factory=list)
    base: VectorFile | None = None
    watermark: str = ""
    fresh: dict[int, tuple[str, bytes]] = field(default_factory=dict)
    # per (project, type, scope): the commit state they were read at, the allowed ids, and
    # which rows of the file's span for that project they allow
    candidates: dict[
        tuple[str | None, str | None, str | None],
        tuple[tuple[int, int], npt.NDArray[np.int64], npt.NDArray[np.bool_]],
    ] = field(default_factory=dict)
    refreshed_at: tuple[int, int] | None = None
    rebuilt_because: str = ""  # why the last file was not used (tests, doctor)
    _fresh_arrays: (
        tuple[npt.NDArray[np.int64], list[str], npt.NDArray[np.float32], npt.NDArray[np.int64]]
        | None
    ) = None

    @property
    def path(self) -> Path | None:
        """The index file of this model (None: memory only, also when the folder is a
        symbolic link: the index is never written or read elsewhere)."""
        if self.folder is None or self.folder.is_symlink():
            return None
        return vector_file.path_for(self.folder, self.model)

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Open (or build) the file on first use; afterwards read what was embedded since."""
        if self.base is None:
            self._open(conn)
        else:
            self._read_fresh(conn)
        if len(self.fresh) > self._rewrite_at():
            self.rebuild(conn)

    def _open(self, conn: sqlite3.Connection) -> None:
        path = self.path
        try:
            if path is None:
                raise BadFile("no folder for it")
            base = vector_file.open_file(
                path, model=self.model, dimension=self.dimension, database=self.database
            )
            if base.watermark > vectors.newest_stamp(conn):
                raise BadFile("its watermark is newer than anything in the database")
            self._check_samples(conn, base)
        except BadFile as exc:
            self.rebuilt_because = str(exc)
            self.rebuild(conn)
            return
        self.base, self.watermark, self.fresh, self._fresh_arrays = base, base.watermark, {}, None
        self._read_fresh(conn)

    def _check_samples(self, conn: sqlite3.Connection, base: VectorFile) -> None:
        positions = sorted({p * (len(base) - 1) // max(SAMPLES - 1, 1) for p in range(SAMPLES)})
        ids = [int(base.ids[p]) for p in positions]
        stored = vectors.blobs_of(conn, self.model, ids, self.dimension)
        for position, rowid in zip(positions, ids, strict=True):
            if rowid in stored and _settled(stored[rowid][2], base.watermark):
                base.verify(position, position + 1)
                if stored[rowid][1] != base.matrix[position].tobytes():
                    raise BadFile(f"row {rowid} differs from the database")

    def _rewrite_at(self) -> float:
        return max(REWRITE_MIN, REWRITE_SHARE * (len(self.base) if self.base else 0))

    def _read_fresh(self, conn: sqlite3.Connection, share: float = 1.0) -> bool:
        """Rows embedded since the watermark (less ``MARGIN``) that the file lacks; False
        when it stopped early, past ``share`` times the rewrite threshold (memory stays
        bounded after a large backfill: the rewrite then reads every row from the store)."""
        import numpy as np

        for page in vectors.vectors_of(conn, self.model, since=_minus(self.watermark, MARGIN)):
            if self.base is not None and len(self.base):
                where = self.base.positions(np.array([r[0] for r in page], dtype=np.int64))
            else:
                where = np.full(len(page), -1, dtype=np.int64)
            for (rowid, project, blob, stamp), position in zip(page, where, strict=True):
                self.watermark = max(self.watermark, stamp)
                if len(blob) != self.dimension:
                    continue  # not a vector of this model's size: never scored
                if position >= 0 and self._same(int(position), blob):
                    self.fresh.pop(rowid, None)
                    continue
                self.fresh[rowid] = (project, blob)
                self._fresh_arrays = None
            if len(self.fresh) > share * self._rewrite_at():
                return False
        return True

    def _same(self, position: int, blob: bytes) -> bool:
        assert self.base is not None
        try:
            self.base.verify(position, position + 1)
        except BadFile:
            return False
        return bool(self.base.matrix[position].tobytes() == blob)

    def rebuild(self, conn: sqlite3.Connection) -> None:
        """Write the file anew from one snapshot: from the current file and the fresh rows
        where they hold a row, from the store for the rest; memory only when it cannot be
        written (a read-only data dir)."""
        from engram.store import vector_build

        conn.execute("SAVEPOINT vector_index_build")
        try:
            if self.base is not None and not self._read_fresh(conn, REBUILD_SHARE):
                # too much changed to tell which rows of the file are stale: all from the store
                self.base, self.fresh, self._fresh_arrays = None, {}, None
            built = vector_build.build(conn, self, self.path)
        finally:
            conn.execute("RELEASE vector_index_build")
        self.base, self.watermark, self.fresh, self._fresh_arrays = built, built.watermark, {}, None
        self.candidates.clear()

    def distrust(self, conn: sqlite3.Connection, reason: str) -> None:
        """The file disagrees with the store: build it again from the store alone."""
        self.rebuilt_because = reason
        self.base, self.fresh, self._fresh_arrays, self.watermark = None, {}, None, ""
        self.rebuild(conn)

    def nearest(
        self,
        conn: sqlite3.Connection,
        query: npt.NDArray[np.float32],
        *,
        project: str | None,
        type: str | None,
        scope: str | None,
        limit: int,
    ) -> list[Nearest]:
        """The ``limit`` most similar live rows under the filters, most similar first."""
        version = _version(conn)
        if version != self.refreshed_at or self.base is None:
            self.refresh(conn)
            self.refreshed_at = version
        found: list[Nearest] = []
        for _ in range(ATTEMPTS):
            allowed, mask = self._candidates(conn, version, project, type, scope)
            if not allowed.size:
                return []
            try:
                ids, sims = self._scan(conn, query, project, allowed, mask)
            except BadFile as exc:
                self.distrust(conn, str(exc))
                continue
            found, settled = self._confirm(conn, query, _top(ids, sims, limit))
            if settled:
                break
        return found

    def _scan(
        self,
        conn: sqlite3.Connection,
        query: npt.NDArray[np.float32],
        project: str | None,
        allowed: npt.NDArray[np.int64],
        mask: npt.NDArray[np.bool_],
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Similarity of every allowed row: the file's project span (``mask``: the allowed
        rows of it), the fresh rows, and any allowed row neither placed there (re-filed, or
        committed late)."""
        import numpy as np

        base = self.base
        assert base is not None
        start, end = _span(base, project)
        ids = base.ids[start:end]
        sims = _similarities(base, start, end, query)
        parts_ids, parts_sims = [], []
        if self.fresh:
            fresh_ids, projects, matrix, where = self._fresh()
            inside = where[(where >= start) & (where < end)]
            if inside.size:  # a re-embedded row: its fresh vector counts
                mask = mask.copy()
                mask[inside - start] = False
            extra = _members(fresh_ids, allowed)
            if project is not None:
                extra &= np.array([p == project for p in projects], dtype=bool)
            parts_ids.append(fresh_ids[extra])
            parts_sims.append(matrix[extra] @ query)
        parts_ids.append(ids[mask])
        parts_sims.append(sims[mask])
        scored = np.concatenate(parts_ids)
        if scored.size < allowed.size:
            missing = np.setdiff1d(allowed, scored, assume_unique=True)
            parts_ids.append(missing)
            parts_sims.append(self._score_ids(conn, missing, query))
        return np.concatenate(parts_ids), np.concatenate(parts_sims)

    def _score_ids(
        self, conn: sqlite3.Connection, ids: npt.NDArray[np.int64], query: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """Similarities of rows by id: fresh, else the file, else the store (kept fresh)."""
        import numpy as np

        assert self.base is not None
        sims = np.zeros(ids.size, dtype=np.float32)
        where = self.base.positions(ids)
        unknown: list[int] = []
        for index, (rowid, position) in enumerate(zip(ids.tolist(), where.tolist(), strict=True)):
            if rowid in self.fresh:
                sims[index] = _cosine(self.fresh[rowid][1], query, self.dimension)
            elif position >= 0:
                self.base.verify(position, position + 1)
                sims[index] = _cosine(self.base.matrix[position].tobytes(), query, self.dimension)
            else:
                unknown.append(index)
        stored = vectors.blobs_of(conn, self.model, [int(ids[i]) for i in unknown], self.dimension)
        for index in unknown:
            row = stored.get(int(ids[index]))
            if row is not None:
                self.fresh[int(ids[index])] = (row[0], row[1])
                self._fresh_arrays = None
                sims[index] = _cosine(row[1], query, self.dimension)
        return sims

    def _confirm(
        self, conn: sqlite3.Connection, query: npt.NDArray[np.float32], top: list[Nearest]
    ) -> tuple[list[Nearest], bool]:
        """The top rows scored from the store's own vectors, and whether the index agreed
        with it (when not, it is corrected and the caller scans again)."""
        stored = vectors.blobs_of(conn, self.model, [n.rowid for n in top], self.dimension)
        settled, kept = True, []
        for near in top:
            row = stored.get(near.rowid)
            if row is None:
                continue  # deleted or re-embedded by another model since the candidates
            project, blob, stamp = row
            if self._blob(near.rowid) != blob:
                if near.rowid not in self.fresh and _settled(stamp, self.watermark):
                    self.distrust(conn, f"row {near.rowid} differs from the database")
                    return [], False
                self.fresh[near.rowid] = (project, blob)
                self._fresh_arrays, settled = None, False
            kept.append((near.rowid, blob))
        if not kept:
            return [], settled
        sims = vectors.dequantise([blob for _, blob in kept], self.dimension) @ query
        confirmed = [Nearest(rowid, float(sim)) for (rowid, _), sim in zip(kept, sims, strict=True)]
        confirmed.sort(key=lambda n: (-n.similarity, -n.rowid))
        return confirmed, settled

    def _blob(self, rowid: int) -> bytes | None:
        import numpy as np

        if rowid in self.fresh:
            return self.fresh[rowid][1]
        assert self.base is not None
        position = int(self.base.positions(np.array([rowid], dtype=np.int64))[0])
        return self.base.matrix[position].tobytes() if position >= 0 else None

    def _candidates(
        self,
        conn: sqlite3.Connection,
        version: tuple[int, int],
        project: str | None,
        type: str | None,
        scope: str | None,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """The rows a search under these filters may return, asked of SQLite, and which
        rows of the file's span they allow; reused only
        while ``version`` (:func:`_version`) is the one they were read at, so a write is
        seen by the very next search."""
        key = (project, type, scope)
        cached = self.candidates.get(key)
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        if cached is None and len(self.candidates) >= MAX_CACHED_FILTERS:
            self.candidates.clear()
        ids = vectors.candidate_ids(conn, self.model, project=project, type=type, scope=scope)
        assert self.base is not None
        start, end = _span(self.base, project)
        mask = _members(self.base.ids[start:end], ids)
        self.candidates[key] = (version, ids, mask)
        return ids, mask

    def _fresh(
        self,
    ) -> tuple[npt.NDArray[np.int64], list[str], npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """The fresh rows as arrays: ids, projects, unit vectors, positions in the file."""
        import numpy as np

        if self._fresh_arrays is None:
            assert self.base is not None
            ids = np.fromiter(self.fresh, dtype=np.int64, count=len(self.fresh))
            projects = [p for p, _ in self.fresh.values()]
            matrix = vectors.dequantise([b for _, b in self.fresh.values()], self.dimension)
            self._fresh_arrays = (ids, projects, matrix, self.base.positions(ids))
        return self._fresh_arrays


def _span(base: VectorFile, project: str | None) -> tuple[int, int]:
    """The file's rows a search under ``project`` scans (all of them without one)."""
    return base.spans.get(project, (0, 0)) if project else (0, len(base))


def _similarities(
    base: VectorFile, start: int, end: int, query: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Cosine of rows ``[start, end)`` with the unit ``query``, ``SCAN_ROWS`` at a time
    through one float32 buffer that stays in the CPU cache (a fresh array per chunk costs
    10x more); each chunk's crc is checked first."""
    import numpy as np

    sims = np.empty(end - start, dtype=np.float32)
    buffer = np.empty((min(SCAN_ROWS, end - start), base.dimension), dtype=np.float32)
    for at in range(start, end, CHUNK_ROWS):
        base.verify(at, min(at + CHUNK_ROWS, end))
    for at in range(start, end, SCAN_ROWS):
        stop = min(at + SCAN_ROWS, end)
        rows = buffer[: stop - at]
        np.copyto(rows, base.matrix[at:stop], casting="unsafe")
        np.matmul(rows, query, out=sims[at - start : stop - start])
    norms = base.norms[start:end]
    np.divide(sims, norms, out=sims, where=norms > 0)
    sims[norms <= 0] = 0.0
    return sims


def _cosine(blob: bytes, query: npt.NDArray[np.float32], dimension: int) -> float:
    return float((vectors.dequantise([blob], dimension) @ query)[0])


def _top(ids: npt.NDArray[np.int64], sims: npt.NDArray[np.float32], limit: int) -> list[Nearest]:
    import numpy as np

    if not ids.size:
        return []
    top = min(limit, ids.size)
    best = np.argpartition(-sims, top - 1)[:top]
    best = best[np.lexsort((-ids[best], -sims[best]))]
    return [Nearest(int(ids[i]), float(sims[i])) for i in best]


def _minus(stamp: str, delta: timedelta) -> str:
    """``stamp`` (``YYYY-MM-DD HH:MM:SS.fff``) less ``delta``; "" (everything) if unreadable."""
    try:
        moment = datetime.fromisoformat(stamp) - delta
    except ValueError:
        return ""
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _settled(stamp: str, watermark: str) -> bool:
    """Whether a row stamped ``stamp`` was embedded well before the watermark (so a file
    written at that watermark must hold exactly its vector)."""
    return stamp < _minus(watermark, MARGIN)


def _version(conn: sqlite3.Connection) -> tuple[int, int]:
    """What changes when any connection commits: ``PRAGMA data_version`` (another
    connection's commits) and this connection's own change count."""
    return (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)


def _members(ids: npt.NDArray[np.int64], allowed: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Which of ``ids`` are in the sorted array ``allowed``."""
    import numpy as np

    if not ids.size or not allowed.size:
        return np.zeros(ids.size, dtype=bool)
    where = np.searchsorted(allowed, ids)
    where[where >= allowed.size] = 0
    return np.asarray(allowed[where] == ids)


def describe_file(conn: sqlite3.Connection, model: str, dimension: int) -> tuple[bool, str]:
    """Whether the index file of ``model`` is usable as it is, and one line saying so (doctor
    and ``engram embed``); nothing is written or rebuilt here."""
    from engram.store.semantic import index_location

    folder, database = index_location(conn)
    if folder is None:
        return True, "vector index: none yet (no database file: a new store, or one in memory)"
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        return False, f"vector index: in memory ({folder} is not a plain folder)"
    path = vector_file.path_for(folder, model)
    if not path.exists():
        return True, f"vector index: none yet (the next hybrid search writes {path})"
    try:
        found = vector_file.open_file(path, model=model, dimension=dimension, database=database)
    except BadFile as exc:
        return False, f"vector index {path}: the next search rebuilds it ({exc})"
    size = path.stat().st_size / 2**20
    return True, f"vector index {path}: {len(found):,} vectors, {size:.1f} MB"


SCAN = "exact int8 scan of the memory-mapped index file in <data dir>/vectors (numpy)"


def backend() -> str:
    """How nearest vectors are found, and why not with sqlite-vec (doctor, ``engram embed``).

    The int8 scan serves every interpreter: where sqlite-vec does load, its ``vec0`` table
    measured 7x slower than the scan at 100k rows and its scalar distance over the column
    35x (bench/sqlite_vec_bench.py, docs/search.md)."""
    probe = sqlite3.connect(":memory:")
    try:
        if not hasattr(probe, "enable_load_extension"):
            return f"{SCAN}; sqlite-vec not used: this Python's sqlite3 cannot load extensions"
        try:
            import sqlite_vec  # type: ignore[import-untyped, import-not-found, unused-ignore]

            probe.enable_load_extension(True)
            sqlite_vec.load(probe)
        except (ImportError, sqlite3.Error, AttributeError) as exc:
            return f"{SCAN}; sqlite-vec not used: not loadable ({exc})"
        return f"{SCAN}; sqlite-vec loads but is not used: the scan measured 7x faster"
    finally:
        probe.close()
