"""Building the vector index file (:mod:`engram.store.vector_file`) from one snapshot.

The rows are the store's live rows of the model, grouped by project; each row's vector is
taken from the index's fresh rows when they hold it, else from the current file when it
holds it (after its chunk's crc checks out), else read from the store, ``CHUNK_ROWS`` at a
time, so memory stays bounded whatever the store's size. With nothing to reuse (no file,
or one not trusted) every vector comes from one pass over the table in rowid order. The new
file is written under a temporary name and renamed over the old one; when the folder cannot
take it (read-only, full), the same rows are held in memory instead and the search goes on.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from engram.store import vector_file, vectors
from engram.store.vector_file import CHUNK_ROWS, BadFile, VectorFile

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from engram.store.vector_index import VectorIndex


def build(conn: sqlite3.Connection, index: VectorIndex, path: Path | None) -> VectorFile:
    """The index of ``index.model``'s live rows as of the open snapshot (see module doc).
    A current file that fails its checks while being copied is dropped: the rows are then
    all read from the store."""
    try:
        return _build(conn, index, path, index.base)
    except BadFile as exc:
        index.rebuilt_because = str(exc)
        index.fresh.clear()
        return _build(conn, index, path, None)


def _build(
    conn: sqlite3.Connection, index: VectorIndex, path: Path | None, old: VectorFile | None
) -> VectorFile:
    import numpy as np

    plan = vectors.ids_by_project(conn, index.model)
    watermark = vectors.newest_stamp(conn)
    spans, at = {}, 0
    for project, ids in plan:
        spans[project] = (at, at + ids.size)
        at += ids.size
    ids = np.concatenate([ids for _, ids in plan]) if plan else np.zeros(0, dtype=np.int64)
    draft = _draft(path, index, watermark, spans)
    if draft is None:
        target = _in_memory(index, watermark, spans, ids.size)
        _fill(conn, index, old, ids, target)
        return target
    try:
        _fill(conn, index, old, ids, draft)
        draft.commit()
    except OSError:  # the file could not be written or put in place: memory this time
        draft.abandon()
        target = _in_memory(index, watermark, spans, ids.size)
        _fill(conn, index, old, ids, target)
        return target
    except BaseException:
        draft.abandon()
        raise
    assert path is not None
    built = vector_file.open_file(
        path, model=index.model, dimension=index.dimension, database=index.database
    )
    built.checked = [True] * len(built.checked)  # just written from checked sources
    return built


def _draft(
    path: Path | None, index: VectorIndex, watermark: str, spans: dict[str, tuple[int, int]]
) -> vector_file.Draft | None:
    if path is None or not spans or not index.database:
        return None
    try:
        return vector_file.draft(
            path, model=index.model, dimension=index.dimension, database=index.database,
            watermark=watermark, spans=spans,
        )  # fmt: skip
    except (OSError, ValueError):
        return None  # read-only or full: the index lives in memory this time


def _in_memory(
    index: VectorIndex, watermark: str, spans: dict[str, tuple[int, int]], count: int
) -> VectorFile:
    import numpy as np

    return VectorFile(
        index.model, index.dimension, watermark,
        np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64),
        np.zeros(count, dtype=np.float32), np.zeros((count, index.dimension), dtype=np.int8),
        spans,
    )  # fmt: skip


def _fill(
    conn: sqlite3.Connection,
    index: VectorIndex,
    old: VectorFile | None,
    ids: npt.NDArray[np.int64],
    target: VectorFile | vector_file.Draft,
) -> None:
    """Fill the target's rows for ``ids`` a chunk at a time, then its id order."""
    import numpy as np

    target.ids[:] = ids
    from_table = old is None and not index.fresh  # nothing to reuse: one pass over the table
    if from_table:
        _fill_from_table(conn, index, ids, target.matrix)
    for at in range(0, ids.size, CHUNK_ROWS):
        stop = min(at + CHUNK_ROWS, ids.size)
        rows = target.matrix[at:stop]
        if not from_table:
            _fill_chunk(conn, index, old, ids[at:stop], rows)
        target.norms[at:stop] = np.linalg.norm(rows.astype(np.float32), axis=1)
    if isinstance(target, VectorFile):
        target.by_id[:] = np.argsort(ids, kind="stable")


def _fill_from_table(
    conn: sqlite3.Connection,
    index: VectorIndex,
    ids: npt.NDArray[np.int64],
    matrix: npt.NDArray[np.int8],
) -> None:
    """Every row from one pass over the table, each put at its planned position (nothing to
    reuse: the whole index comes from the store)."""
    import numpy as np

    order = np.argsort(ids, kind="stable")
    ordered = ids[order]
    for page in vectors.all_vectors(conn, index.model, index.dimension):
        page_ids = np.fromiter((r[0] for r in page), dtype=np.int64, count=len(page))
        where = np.searchsorted(ordered, page_ids)
        where[where >= ordered.size] = 0
        planned = ordered[where] == page_ids
        blobs = [blob for (_, blob), keep in zip(page, planned.tolist(), strict=True) if keep]
        if blobs:
            joined = np.frombuffer(b"".join(blobs), dtype=np.int8)
            matrix[order[where[planned]]] = joined.reshape(len(blobs), index.dimension)


def _fill_chunk(
    conn: sqlite3.Connection,
    index: VectorIndex,
    old: VectorFile | None,
    ids: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int8],
) -> None:
    import numpy as np

    need = np.ones(ids.size, dtype=bool)
    held = [(offset, index.fresh.get(rowid)) for offset, rowid in enumerate(ids.tolist())]
    _put(rows, [(offset, found[1]) for offset, found in held if found is not None], index)
    need[[offset for offset, found in held if found is not None]] = False
    if old is not None and len(old):
        where = old.positions(ids)
        usable = need & (where >= 0)
        for chunk in np.unique(where[usable] // CHUNK_ROWS).tolist():
            old.verify(chunk * CHUNK_ROWS, chunk * CHUNK_ROWS + 1)
        rows[usable] = old.matrix[where[usable]]
        need &= ~usable
    rest = np.flatnonzero(need).tolist()
    stored = vectors.blobs_of(conn, index.model, ids[rest].tolist(), index.dimension)
    rows[rest] = 0  # a row gone since the plan (none within one snapshot) scores nothing
    _put(rows, [(o, stored[int(ids[o])][1]) for o in rest if int(ids[o]) in stored], index)


def _put(rows: npt.NDArray[np.int8], blobs: list[tuple[int, bytes]], index: VectorIndex) -> None:
    """Write int8 blobs into ``rows`` at their offsets, in one assignment."""
    import numpy as np

    if blobs:
        joined = b"".join(blob for _, blob in blobs)
        matrix = np.frombuffer(joined, dtype=np.int8).reshape(len(blobs), index.dimension)
        rows[[offset for offset, _ in blobs]] = matrix
