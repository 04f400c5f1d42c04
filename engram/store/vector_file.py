"""The vector index file: one embedding model's int8 vectors beside the store, memory-mapped.

``<data dir>/vectors/<model>.vec`` is a cache of the store's ``observations.embedding``
column (the database stays authoritative; :mod:`engram.store.vector_index` decides what
to trust and when to rebuild). Layout, little-endian::

    b"ENGRAMVI"  u32 header length  u32 crc32(header)  header (JSON)  padding to 64
    ids     int64[count]   row ids, grouped by project (``spans``), ascending within one
    by_id   int64[count]   positions sorted by id (an id's position: a binary search)
    norms   float32[count] each int8 row's length (cosine = row . query / norm)
    matrix  int8[count, dimension], starting at a 64-byte boundary

The header names the format, the model, its dimension, the count, the watermark (the
newest ``embedding_created_at`` the file holds), the database file it was built from
(device and inode: a restored or copied database is another file), the project spans,
a crc32 of the three small arrays and one crc32 per ``CHUNK_ROWS`` rows of the matrix.
:func:`open_file` refuses a file whose magic, header, size, model, database or small
arrays do not check out; a matrix chunk is checked the first time a process scans it
(:meth:`VectorFile.verify`). A file is written to a temporary name and renamed into place,
so a reader sees an old file or a whole new one, never half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MAGIC = b"ENGRAMVI"
FORMAT = 1
CHUNK_ROWS = 4096
MAX_HEADER = 16 * 2**20  # the JSON header (spans, chunk crcs) of any real store is far smaller
_PREFIX = struct.Struct("<8sII")
FOLDER = "vectors"


class BadFile(Exception):
    """The file is not a valid index for this store (the message says why)."""


@dataclass
class VectorFile:
    """One model's vectors, mapped from the file (or held in memory when it cannot be
    written). ``ids[p]``'s vector is ``matrix[p]``; ``spans`` maps a project to its rows."""

    model: str
    dimension: int
    watermark: str
    ids: npt.NDArray[np.int64]
    by_id: npt.NDArray[np.int64]
    norms: npt.NDArray[np.float32]
    matrix: npt.NDArray[np.int8]
    spans: dict[str, tuple[int, int]]
    crcs: list[int] = field(default_factory=list)
    checked: list[bool] = field(default_factory=list)
    path: Path | None = None
    _ordered: npt.NDArray[np.int64] | None = None

    def __len__(self) -> int:
        return int(self.ids.size)

    def verify(self, start: int, end: int) -> None:
        """Check the crc of every not yet checked chunk of rows ``[start, end)``.

        Raises:
            BadFile: a chunk does not match its crc (the file was changed or damaged).
        """
        if self.path is None:
            return
        for chunk in range(start // CHUNK_ROWS, (end + CHUNK_ROWS - 1) // CHUNK_ROWS):
            if self.checked[chunk]:
                continue
            rows = self.matrix[chunk * CHUNK_ROWS : (chunk + 1) * CHUNK_ROWS]
            if zlib.crc32(rows.data) != self.crcs[chunk]:
                raise BadFile(f"rows {chunk * CHUNK_ROWS}+ do not match their checksum")
            self.checked[chunk] = True

    def positions(self, wanted: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Each of ``wanted``'s position in the file, -1 where the file lacks it."""
        import numpy as np

        if not self.ids.size or not wanted.size:
            return np.full(wanted.size, -1, dtype=np.int64)
        if self._ordered is None:
            self._ordered = self.ids[self.by_id]
        ordered = self._ordered
        where = np.searchsorted(ordered, wanted)
        where[where >= ordered.size] = 0
        found = ordered[where] == wanted
        return np.where(found, self.by_id[where], -1).astype(np.int64)


def path_for(folder: Path, model: str) -> Path:
    """``<folder>/<readable model name>-<digest>.vec``: one file per model."""
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", model)[:60]
    digest = hashlib.sha256(model.encode()).hexdigest()[:12]
    return folder / f"{readable}-{digest}.vec"


def database_identity(database: Path) -> list[int]:
    """The database file's device and inode (another file after a restore or a copy)."""
    found = database.stat()
    return [found.st_dev, found.st_ino]


def _layout(count: int, dimension: int, header_length: int) -> tuple[int, int, int, int, int]:
    """Offsets of ids, by_id, norms and matrix, and the file's total size."""
    ids = _align(_PREFIX.size + header_length, 64)
    by_id = ids + 8 * count
    norms = by_id + 8 * count
    matrix = _align(norms + 4 * count, 64)
    return ids, by_id, norms, matrix, matrix + count * dimension


def _align(offset: int, boundary: int) -> int:
    return (offset + boundary - 1) // boundary * boundary


def _small_crc(ids: Any, by_id: Any, norms: Any) -> int:
    crc = zlib.crc32(memoryview(ids).cast("B"))
    crc = zlib.crc32(memoryview(by_id).cast("B"), crc)
    return zlib.crc32(memoryview(norms).cast("B"), crc)


def open_file(path: Path, *, model: str, dimension: int, database: list[int]) -> VectorFile:
    """Map ``path`` after checking it belongs to this store and model (see module doc).

    Raises:
        BadFile: missing, unreadable (a folder, say), foreign, truncated or damaged (the
            caller rebuilds it).
    """
    try:
        return _open_checked(path, model=model, dimension=dimension, database=database)
    except OSError as exc:
        raise BadFile(f"cannot read it: {exc.strerror or exc}") from None


def _open_checked(path: Path, *, model: str, dimension: int, database: list[int]) -> VectorFile:
    import numpy as np

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise BadFile(f"cannot open it: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        magic, length, crc = _PREFIX.unpack(_read(handle, _PREFIX.size))
        if magic != MAGIC:
            raise BadFile("not an Engram vector index")
        if length > MAX_HEADER or _PREFIX.size + length > size:
            raise BadFile("header length out of range")
        raw = _read(handle, length)
        if zlib.crc32(raw) != crc:
            raise BadFile("header checksum mismatch")
        header = _header(raw)
        if (header["model"], header["dimension"]) != (model, dimension):
            raise BadFile("built for another model")
        if header["database"] != database:
            raise BadFile("built from another database file")
        count = header["count"]
        ids_at, by_id_at, norms_at, matrix_at, total = _layout(count, dimension, length)
        if size != total:
            raise BadFile(f"{size} bytes where {total} were expected (truncated?)")
        if len(header["crcs"]) != (count + CHUNK_ROWS - 1) // CHUNK_ROWS:
            raise BadFile("chunk checksums missing")
        if count == 0:
            raise BadFile("holds no rows")
        # a plain array over the map: slicing a memmap subclass costs more than the scan
        mapped = np.asarray(np.memmap(handle, dtype=np.uint8, mode="r"))
    ids = mapped[ids_at:by_id_at].view(np.int64)
    by_id = mapped[by_id_at:norms_at].view(np.int64)
    norms = mapped[norms_at : norms_at + 4 * count].view(np.float32)
    if _small_crc(ids, by_id, norms) != header["small_crc"]:
        raise BadFile("id or norm arrays do not match their checksum")
    spans = _spans(header["spans"], count)
    if by_id.min() < 0 or by_id.max() >= count or not bool(np.all(np.diff(ids[by_id]) > 0)):
        raise BadFile("id order is inconsistent")
    matrix = mapped[matrix_at:total].reshape(count, dimension).view(np.int8)
    crcs = [int(c) for c in header["crcs"]]
    return VectorFile(model, dimension, header["watermark"], ids, by_id, norms, matrix,
                      spans, crcs, [False] * len(crcs), path)  # fmt: skip


def _read(handle: Any, size: int) -> bytes:
    data = bytes(handle.read(size))
    if len(data) != size:
        raise BadFile("truncated")
    return data


def _header(raw: bytes) -> dict[str, Any]:
    try:
        header = json.loads(raw)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested past the limit
        raise BadFile("header is not JSON") from None
    wanted = {"format": int, "model": str, "dimension": int, "count": int, "watermark": str,
              "database": list, "spans": dict, "crcs": list, "small_crc": int}  # fmt: skip
    if not isinstance(header, dict) or any(
        not isinstance(header.get(key), kind) for key, kind in wanted.items()
    ):
        raise BadFile("header fields missing or of the wrong type")
    if header["format"] != FORMAT or header["count"] < 0 or header["dimension"] <= 0:
        raise BadFile(f"format {header['format']} (this Engram reads {FORMAT})")
    if not all(type(c) is int and 0 <= c <= 0xFFFFFFFF for c in header["crcs"]):
        raise BadFile("chunk checksums malformed")
    return header


def _spans(raw: dict[str, Any], count: int) -> dict[str, tuple[int, int]]:
    spans: dict[str, tuple[int, int]] = {}
    for project, span in raw.items():
        if not (isinstance(span, list) and len(span) == 2 and all(type(v) is int for v in span)):
            raise BadFile("project spans malformed")
        start, end = span
        if not 0 <= start <= end <= count:
            raise BadFile("project spans out of range")
        spans[project] = (start, end)
    if sum(end - start for start, end in spans.values()) != count:
        raise BadFile("project spans do not cover the rows")
    return spans


@dataclass
class Draft:
    """A file being written: fill ``ids``/``norms``/``matrix`` rows, then :meth:`commit`."""

    path: Path
    temporary: Path
    length: int
    header: dict[str, Any]
    ids: npt.NDArray[np.int64]
    by_id: npt.NDArray[np.int64]
    norms: npt.NDArray[np.float32]
    matrix: npt.NDArray[np.int8]
    mapped: Any

    def commit(self) -> None:
        """Checksums, header, flush, then rename over the old file (atomic)."""
        import numpy as np

        self.by_id[:] = np.argsort(self.ids, kind="stable")
        count = self.ids.size
        self.header["small_crc"] = _small_crc(self.ids, self.by_id, self.norms)
        self.header["crcs"] = [
            zlib.crc32(self.matrix[s : s + CHUNK_ROWS].data) for s in range(0, count, CHUNK_ROWS)
        ]
        raw = _encode(self.header, self.length)
        self.mapped[: len(raw)] = np.frombuffer(raw, dtype=np.uint8)
        self.mapped.flush()
        del self.mapped
        os.replace(self.temporary, self.path)

    def abandon(self) -> None:
        """Remove the temporary file (a failed build leaves nothing behind)."""
        with contextlib.suppress(OSError):
            self.temporary.unlink()


def _encode(header: dict[str, Any], length: int) -> bytes:
    body = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    if len(body) > length:
        raise BadFile("header grew past its reserved room")
    body = body.ljust(length, b" ")
    return _PREFIX.pack(MAGIC, length, zlib.crc32(body)) + body


def draft(
    path: Path,
    *,
    model: str,
    dimension: int,
    database: list[int],
    watermark: str,
    spans: dict[str, tuple[int, int]],
) -> Draft:
    """A temporary file (mode 0600, beside ``path``) sized for the spans' rows.

    Raises:
        OSError: the folder cannot hold it (read-only, full, not a folder).
    """
    import numpy as np

    count = sum(end - start for start, end in spans.values())
    header: dict[str, Any] = {
        "format": FORMAT, "model": model, "dimension": dimension, "count": count,
        "watermark": watermark, "database": database,
        "spans": {p: list(s) for p, s in spans.items()}, "small_crc": 0xFFFFFFFF,
        "crcs": [0xFFFFFFFF] * ((count + CHUNK_ROWS - 1) // CHUNK_ROWS),
    }  # fmt: skip
    # the placeholders have the most digits a crc32 can: the real header is never longer
    length = len(json.dumps(header, separators=(",", ":"), sort_keys=True).encode())
    if count == 0 or length > MAX_HEADER:
        raise ValueError("an index file holds 1 row or more and a header under MAX_HEADER")
    ids_at, by_id_at, norms_at, matrix_at, total = _layout(count, dimension, length)
    path.parent.mkdir(mode=0o700, exist_ok=True)
    if not path.parent.is_dir() or path.parent.is_symlink():
        raise NotADirectoryError(f"{path.parent} is not a folder")
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = os.O_RDWR | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(temporary, flags, 0o600)
    try:
        # blocks reserved now: a full disk is an error here, not a crash (SIGBUS) on writing
        # a page of the map
        if hasattr(os, "posix_fallocate"):
            os.posix_fallocate(fd, 0, total)
        else:  # macOS: a sparse file (a full disk then fails on writing, as any mmap would)
            os.ftruncate(fd, total)
        mapped = np.memmap(temporary, dtype=np.uint8, mode="r+", shape=(total,))
        plain = np.asarray(mapped)  # a plain array over the map: slicing memmaps is slower
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    finally:
        os.close(fd)
    return Draft(
        path, temporary, length, header,
        plain[ids_at:by_id_at].view(np.int64),
        plain[by_id_at:norms_at].view(np.int64),
        plain[norms_at : norms_at + 4 * count].view(np.float32),
        plain[matrix_at:total].reshape(count, dimension).view(np.int8),
        mapped,
    )  # fmt: skip
