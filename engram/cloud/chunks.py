"""Cloud chunks: a batch of mutations as one content-addressed blob.

The bytes are gzipped JSONL, one mutation per line; the chunk id is a SHA-256 prefix of the
uncompressed lines, so a chunk whose id does not match its content is refused.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from collections.abc import Iterable
from typing import Any

ID_LENGTH = 16


class ChunkRefused(ValueError):
    """A chunk that cannot be accepted: ``code`` is stable, the message names the chunk."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def chunk_id_of(lines: bytes) -> str:
    """The id of a chunk with these uncompressed JSONL bytes."""
    return hashlib.sha256(lines).hexdigest()[:ID_LENGTH]


def encode(rows: Iterable[dict[str, Any]]) -> tuple[str, bytes]:
    """``(chunk_id, gzipped bytes)`` for mutation rows (deterministic for the same rows)."""
    lines = b"".join(
        json.dumps(row, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        for row in rows
    )
    return chunk_id_of(lines), gzip.compress(lines, mtime=0)


def decode(chunk_id: str, content: bytes) -> list[dict[str, Any]]:
    """The rows of a chunk, after checking it is gzip, JSONL, and matches ``chunk_id``.

    Raises:
        ChunkRefused: ``chunk_not_gzip``, ``chunk_hash_mismatch``, ``chunk_malformed``.
    """
    try:
        lines = gzip.decompress(content)
    except (OSError, EOFError, zlib.error) as exc:
        raise ChunkRefused("chunk_not_gzip", f"chunk {chunk_id} is not gzip data") from exc
    if chunk_id_of(lines) != chunk_id:
        raise ChunkRefused(
            "chunk_hash_mismatch", f"chunk_id {chunk_id} does not match payload content hash"
        )
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(lines.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ChunkRefused(
                "chunk_malformed", f"chunk {chunk_id} line {number} is not JSON"
            ) from exc
        if not isinstance(row, dict):
            raise ChunkRefused(
                "chunk_malformed", f"chunk {chunk_id} line {number} is not an object"
            )
        rows.append(row)
    return rows
