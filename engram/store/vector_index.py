"""Nearest vectors under the search filters: an exact scan, in memory, per store connection.

The index holds one embedding model's live vectors as a float32 matrix ordered by project,
so a project filter is one contiguous slice. It loads on the first semantic search and then
catches up from ``embedding_created_at`` (rows embedded since its last look go to a small
``fresh`` side table until it is worth a reload). What a search may return is asked of
SQLite every time (:func:`engram.store.vectors.candidate_ids`: live, this model, project,
type, scope), so a deleted or re-filed memory is out of the candidates before any ranking.

``backend()`` reports whether the interpreter can load SQLite extensions with ``sqlite-vec``
installed; the scan is the same exact cosine either way (doctor shows which is available).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engram.store import vectors

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

# Rows embedded since the last full load are scanned from a side table; past this share of
# the index (or this many rows) the matrix is rebuilt.
RELOAD_SHARE = 0.05
RELOAD_MIN = 2000
# Candidate sets kept per filter combination (project, type, scope), until the next commit.
MAX_CACHED_FILTERS = 16


@dataclass(frozen=True, slots=True)
class Nearest:
    """A candidate rowid and its cosine similarity to the query."""

    rowid: int
    similarity: float


@dataclass
class _Block:
    ids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]
    spans: dict[str, tuple[int, int]]  # project -> [start, end) rows of the matrix


@dataclass
class VectorIndex:
    """One model's vectors for one connection (see the module docstring)."""

    model: str
    dimension: int
    block: _Block | None = None
    watermark: str = ""
    # ids already read whose vector was made at the watermark's millisecond: the next look
    # reads from that millisecond again (another process may still be writing in it).
    at_watermark: set[int] = field(default_factory=set)
    fresh: dict[int, tuple[str, npt.NDArray[np.float32]]] = field(default_factory=dict)
    candidates: dict[
        tuple[str | None, str | None, str | None], tuple[tuple[int, int], npt.NDArray[np.int64]]
    ] = field(default_factory=dict)
    _fresh_arrays: tuple[npt.NDArray[np.int64], list[str], npt.NDArray[np.float32]] | None = None
    # The commit state (``_version``) at the last refresh: unchanged, nothing new to read.
    refreshed_at: tuple[int, int] | None = None

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Load on first use; afterwards take the rows embedded since the last look."""
        if self.block is None:
            self._load_consistent(conn)
            return
        for page in vectors.vectors_of(conn, self.model, since=self.watermark):
            page = [r for r in page if r[3] != self.watermark or r[0] not in self.at_watermark]
            if not page:
                continue
            matrix = vectors.dequantise([r[2] for r in page], self.dimension)
            for (rowid, project, _blob, stamp), vector in zip(page, matrix, strict=True):
                self.fresh[rowid] = (project, vector)
                self._advance(rowid, stamp)
            self._fresh_arrays = None
        if len(self.fresh) > max(RELOAD_MIN, RELOAD_SHARE * len(self.block.ids)):
            self._load_consistent(conn)

    def _load_consistent(self, conn: sqlite3.Connection) -> None:
        """The count and the rows from one snapshot (a savepoint opens a read transaction
        when none is open), so a concurrent writer cannot slip a row between them."""
        conn.execute("SAVEPOINT vector_index_load")
        try:
            self._load(conn)
        finally:
            conn.execute("RELEASE vector_index_load")

    def _advance(self, rowid: int, stamp: str) -> None:
        if stamp > self.watermark:
            self.watermark, self.at_watermark = stamp, {rowid}
        elif stamp == self.watermark:
            self.at_watermark.add(rowid)

    def _load(self, conn: sqlite3.Connection) -> None:
        import numpy as np

        # One preallocated matrix, filled page by page: no second copy at the peak.
        count = vectors.count_model(conn, self.model)
        matrix = np.zeros((count, self.dimension), dtype=np.float32)
        ids = np.zeros(count, dtype=np.int64)
        spans: dict[str, tuple[int, int]] = {}
        self.watermark, self.at_watermark = "", set()
        filled = 0
        for page in vectors.vectors_of(conn, self.model):
            page = page[: count - filled]  # rows embedded since the count wait for refresh
            if not page:
                break
            end = filled + len(page)
            matrix[filled:end] = vectors.dequantise([r[2] for r in page], self.dimension)
            for offset, (rowid, project, _blob, stamp) in enumerate(page, start=filled):
                spans[project] = (spans.get(project, (offset, offset))[0], offset + 1)
                ids[offset] = rowid
                self._advance(rowid, stamp)
            filled = end
        self.block = _Block(ids[:filled], matrix[:filled], spans)
        self.fresh, self._fresh_arrays = {}, None

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
        import numpy as np

        version = _version(conn)
        if version != self.refreshed_at:
            self.refresh(conn)
            self.refreshed_at = version
        block = self.block
        assert block is not None
        allowed = self._candidates(conn, version, project, type, scope)
        if not allowed.size:
            return []
        start, end = block.spans.get(project, (0, 0)) if project else (0, len(block.ids))
        ids = block.ids[start:end]
        sims = block.matrix[start:end] @ query
        keep = _members(ids, allowed)
        if self.fresh:
            fresh_ids, projects, matrix = self._fresh()
            keep &= ~np.isin(ids, fresh_ids)  # a re-embedded row: its fresh vector counts
            extra = _members(fresh_ids, allowed)
            if project is not None:
                extra &= np.array([p == project for p in projects], dtype=bool)
            ids = np.concatenate([ids[keep], fresh_ids[extra]])
            sims = np.concatenate([sims[keep], matrix[extra] @ query])
        else:
            ids, sims = ids[keep], sims[keep]
        if not ids.size:
            return []
        top = min(limit, ids.size)
        best = np.argpartition(-sims, top - 1)[:top]
        best = best[np.lexsort((-ids[best], -sims[best]))]
        return [Nearest(int(ids[i]), float(sims[i])) for i in best]

    def _candidates(
        self,
        conn: sqlite3.Connection,
        version: tuple[int, int],
        project: str | None,
        type: str | None,
        scope: str | None,
    ) -> npt.NDArray[np.int64]:
        """The rows a search under these filters may return, asked of SQLite; reused only
        while ``version`` (:func:`_version`) is the one they were read at, so a write is
        seen by the very next search."""
        key = (project, type, scope)
        cached = self.candidates.get(key)
        if cached is not None and cached[0] == version:
            return cached[1]
        if cached is None and len(self.candidates) >= MAX_CACHED_FILTERS:
            self.candidates.clear()
        ids = vectors.candidate_ids(conn, self.model, project=project, type=type, scope=scope)
        self.candidates[key] = (version, ids)
        return ids

    def _fresh(self) -> tuple[npt.NDArray[np.int64], list[str], npt.NDArray[np.float32]]:
        import numpy as np

        if self._fresh_arrays is None:
            ids = np.fromiter(self.fresh, dtype=np.int64, count=len(self.fresh))
            projects = [p for p, _ in self.fresh.values()]
            matrix = np.stack([v for _, v in self.fresh.values()])
            self._fresh_arrays = (ids, projects, matrix)
        return self._fresh_arrays


def _version(conn: sqlite3.Connection) -> tuple[int, int]:
    """What changes when any connection commits: ``PRAGMA data_version`` (another
    connection's commits) and this connection's own change count."""
    return (int(conn.execute("PRAGMA data_version").fetchone()[0]), conn.total_changes)


def _members(ids: npt.NDArray[np.int64], allowed: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """Which of ``ids`` are in the sorted array ``allowed``."""
    import numpy as np

    if not ids.size:
        return np.zeros(0, dtype=bool)
    where = np.searchsorted(allowed, ids)
    where[where >= allowed.size] = 0
    return np.asarray(allowed[where] == ids)


def backend() -> str:
    """``sqlite-vec`` when this interpreter can load it into SQLite, else ``numpy``."""
    probe = sqlite3.connect(":memory:")
    try:
        if not hasattr(probe, "enable_load_extension"):
            return "numpy (this Python's sqlite3 cannot load extensions)"
        try:
            import sqlite_vec  # type: ignore[import-untyped, import-not-found, unused-ignore]

            probe.enable_load_extension(True)
            sqlite_vec.load(probe)
        except (ImportError, sqlite3.Error, AttributeError) as exc:
            return f"numpy (sqlite-vec not loadable: {exc})"
        return "sqlite-vec"
    finally:
        probe.close()
