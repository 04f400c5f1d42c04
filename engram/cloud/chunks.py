"""Cloud chunks, in the chunk format of :mod:`engram.sync.chunk` (one origin per chunk).

A materialized chunk groups accepted mutations by origin; a pushed chunk is verified with the
sync module's own reader (gzip, header, line count, SHA-256 of the content = its id).
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import repeat

from engram.errors import EngramError
from engram.sync.chunk import (
    ID_LENGTH,
    Chunk,
    EncodedChunk,
    chunk_content,
    gzip_content,
    read_chunk,
)
from engram.sync.mutation import Mutation, dump_payload, payload_text


class ChunkRefused(ValueError):
    """A chunk that cannot be accepted: ``code`` is stable, the message names the chunk."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")


@dataclass(frozen=True, slots=True)
class OriginChunk:
    """The chunk of one origin's mutations, with each payload's JSON text kept for the insert
    (each payload is serialized once, for both). Its id is known at once; its gzipped bytes
    may still be in the making on another thread (:meth:`data` waits for them)."""

    id: str
    sha256: str
    mutations: list[Mutation]
    payloads: list[str]
    gzipped: bytes | Future[bytes]

    def data(self) -> bytes:
        """The chunk's gzipped bytes."""
        return gzipped_bytes(self.gzipped)


def gzipped_bytes(held: bytes | Future[bytes]) -> bytes:
    """A chunk's gzipped bytes, waited for while another thread still makes them."""
    return held if isinstance(held, bytes) else held.result()


def chunks_by_origin(
    mutations: Iterable[Mutation],
    texts: Iterable[str | None] | None = None,
    *,
    gzip_on: Executor | None = None,
) -> list[OriginChunk]:
    """One chunk per origin, mutations in the order given. ``texts``: each one's
    :meth:`Mutation.to_json` line as it came (:func:`~engram.sync.mutation.parse_line`), or None to write it.
    ``gzip_on``: the executor that gzips each chunk while the caller goes on (zlib runs
    without the GIL); without one, each is gzipped here."""
    groups: dict[str, tuple[list[Mutation], list[str], list[str]]] = {}
    known = repeat(None) if texts is None else texts
    for mutation, text in zip(mutations, known, strict=texts is not None):
        if text is None:
            payload = dump_payload(mutation.payload)
            text = mutation.to_json_around(payload)
        else:
            payload = payload_text(text)
        group = groups.get(mutation.origin)
        if group is None:
            group = groups[mutation.origin] = ([], [], [])
        group[0].append(mutation)
        group[1].append(payload)
        group[2].append(text)
    created = _now()
    made = []
    for origin, (batch, payloads, lines) in groups.items():
        raw, digest = chunk_content(origin, created, lines)
        gzipped = gzip_content(raw) if gzip_on is None else gzip_on.submit(gzip_content, raw)
        made.append(OriginChunk(digest[:ID_LENGTH], digest, batch, payloads, gzipped))
    return made


def encode_by_origin(mutations: Iterable[Mutation]) -> list[tuple[EncodedChunk, list[Mutation]]]:
    """One chunk per origin, mutations in the order given."""
    return [
        (EncodedChunk(c.id, c.sha256, c.data(), len(c.mutations)), c.mutations)
        for c in chunks_by_origin(mutations)
    ]


def decode(chunk_id: str, content: bytes) -> Chunk:
    """A verified chunk, inflated with the chunk format's cap. Raises ChunkRefused
    ``chunk_hash_mismatch`` when the content does not hash to ``chunk_id``,
    ``payload_too_large`` when it inflates past the cap, ``chunk_invalid`` for any other
    defect."""
    try:
        return read_chunk(chunk_id, content)
    except EngramError as exc:
        if exc.code == "sync.chunk_too_large":
            raise ChunkRefused("payload_too_large", exc.message) from exc
        if "SHA-256" in exc.message:
            raise ChunkRefused(
                "chunk_hash_mismatch", f"chunk_id {chunk_id} does not match payload content hash"
            ) from exc
        raise ChunkRefused("chunk_invalid", exc.message) from exc
