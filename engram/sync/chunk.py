"""The chunk: a batch of mutations from one replica, as one gzipped JSONL file.

Uncompressed, a chunk is UTF-8 JSON lines: a header, then one mutation per line::

    {"engram_chunk":1,"origin":"9f2c...","created_at":"2026-11-30 15:00:00","mutations":2}
    {"origin":"9f2c...","seq":41,"entity":"session",...}
    {"origin":"9f2c...","seq":42,"entity":"observation",...}

Its id is the first 16 hex digits of the SHA-256 of those uncompressed bytes; the file is
``<id>.jsonl.gz``, gzipped without a timestamp so the same content gives the same bytes.
:func:`read_chunk` refuses, with one line naming the chunk, anything that is not gzip, is
truncated, does not hash to its name, or holds a malformed line — before anything is applied.

Decoding is bounded so no chunk can exhaust memory: gzip is inflated in steps and refused past
:data:`MAX_CHUNK_BYTES` of content, and :func:`read_chunk_file` reads only a regular file (no
symlink, device or fifo) no larger than that cap. Every reader of chunks goes through here.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
import stat
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engram.errors import EngramError
from engram.sync.mutation import MalformedMutation, Mutation, parse_mutation

FORMAT_VERSION = 1
ID_LENGTH = 16
SUFFIX = ".jsonl.gz"
# The most content (uncompressed bytes) one chunk may hold; exports split below it.
MAX_CHUNK_BYTES = 32 * 1024 * 1024
_INFLATE_STEP = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Chunk:
    """A decoded, verified chunk."""

    id: str
    sha256: str
    origin: str
    created_at: str
    mutations: tuple[Mutation, ...]

    @property
    def file_name(self) -> str:
        """``<id>.jsonl.gz``."""
        return self.id + SUFFIX


@dataclass(frozen=True, slots=True)
class EncodedChunk:
    """A chunk ready to write: its id, full hash and gzipped bytes."""

    id: str
    sha256: str
    data: bytes
    count: int

    @property
    def file_name(self) -> str:
        """``<id>.jsonl.gz``."""
        return self.id + SUFFIX


def encode_chunk(origin: str, created_at: str, lines: Sequence[str]) -> EncodedChunk:
    """Build a chunk from mutation lines (each :meth:`Mutation.to_json`, no newline)."""
    raw, digest = chunk_content(origin, created_at, lines)
    return EncodedChunk(digest[:ID_LENGTH], digest, gzip_content(raw), len(lines))


def chunk_content(origin: str, created_at: str, lines: Sequence[str]) -> tuple[bytes, str]:
    """A chunk's content before gzip (its header, then ``lines``) and its SHA-256, in hex (its
    first :data:`ID_LENGTH` characters are the chunk's id)."""
    header = json.dumps(
        {
            "engram_chunk": FORMAT_VERSION,
            "origin": origin,
            "created_at": created_at,
            "mutations": len(lines),
        },
        separators=(",", ":"),
    )
    raw = "\n".join([header, *lines]).encode("utf-8") + b"\n"
    return raw, hashlib.sha256(raw).hexdigest()


def gzip_content(raw: bytes) -> bytes:
    """A chunk's content gzipped as every chunk is (other threads run meanwhile)."""
    return _gzip_compress()(raw)


@functools.cache
def _gzip_compress() -> Callable[[bytes], bytes]:
    """ISA-L's gzip when the ``[cloud]`` extra has installed it (``isal``): the same format,
    and at its level 1 as small as zlib's level 2, in a sixth of the time (a 1k push's chunks:
    ~2.5 ms of the server's CPU). Else zlib's level 2: 4x faster than 6, ~12% larger.
    Imported at the first chunk made."""
    try:
        from isal import igzip
    except ImportError:
        return functools.partial(gzip.compress, compresslevel=2, mtime=0)
    return functools.partial(igzip.compress, compresslevel=1, mtime=0)


def chunk_id_from_name(file_name: str) -> str | None:
    """The id in ``<id>.jsonl.gz``, or None for any other name."""
    if not file_name.endswith(SUFFIX):
        return None
    stem = file_name[: -len(SUFFIX)]
    if len(stem) != ID_LENGTH or any(c not in "0123456789abcdef" for c in stem):
        return None
    return stem


def read_chunk_file(
    name: str, path: str | os.PathLike[str], *, limit: int = MAX_CHUNK_BYTES
) -> bytes:
    """The bytes of a chunk file: a regular file (checked with ``lstat``, opened without
    following links) of at most ``limit`` bytes.

    Raises:
        EngramError: ``sync.bad_chunk`` for a symlink, device, fifo or folder, a file over the
            cap, or one that cannot be read.
    """
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode):
            raise _refused(name, "it is not a regular file (a symlink, device or folder)")
        if info.st_size > limit:
            raise _refused(name, f"it is {info.st_size} bytes, over the {limit}-byte cap")
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise _refused(name, "it is not a regular file (a symlink, device or folder)")
            data = handle.read(limit + 1)
    except OSError as exc:
        raise _refused(name, f"cannot read it ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise _refused(name, f"it grew past the {limit}-byte cap while being read")
    return data


def read_chunk(
    name: str, data: bytes, *, expected_sha256: str | None = None, limit: int = MAX_CHUNK_BYTES
) -> Chunk:
    """Decompress, verify and parse a chunk file's bytes.

    Args:
        name: the chunk's id (from its file name).
        data: the file's bytes.
        expected_sha256: the full hash recorded in a manifest, when there is one.
        limit: the most uncompressed bytes accepted (default :data:`MAX_CHUNK_BYTES`).

    Raises:
        EngramError: ``sync.bad_chunk`` naming the chunk and what is wrong with it, or
            ``sync.chunk_too_large`` when it inflates past ``limit``.
    """
    if chunk_id_from_name(name + SUFFIX) is None:
        raise _refused(name, f"its file name is not <{ID_LENGTH} hex digits>{SUFFIX}")
    raw = inflate(name, data, limit)
    digest = hashlib.sha256(raw).hexdigest()
    if digest[:ID_LENGTH] != name or (expected_sha256 and expected_sha256 != digest):
        raise _refused(name, "its SHA-256 does not match its content")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _refused(name, "it is not UTF-8 text") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    origin, created_at, count = _parse_header(name, lines[0] if lines else "")
    if len(lines) - 1 != count:
        raise _refused(name, f"it holds {len(lines) - 1} mutations, its header says {count}")
    mutations = tuple(_parse_line(name, number, line) for number, line in enumerate(lines[1:], 2))
    for mutation in mutations:
        if mutation.origin != origin:
            raise _refused(name, f"a mutation's origin {mutation.origin!r} is not the chunk's")
    return Chunk(name, digest, origin, created_at, mutations)


def inflate(name: str, data: bytes, limit: int = MAX_CHUNK_BYTES) -> bytes:
    """Gunzip ``data`` (one or more gzip members) in bounded steps, refusing past ``limit``
    uncompressed bytes before more memory is taken.

    Raises:
        EngramError: ``sync.bad_chunk`` (not gzip, corrupt, truncated) or
            ``sync.chunk_too_large``.
    """
    if len(data) < 2 and b"\x1f\x8b".startswith(data):
        raise _refused(name, "it is truncated (empty or one byte)")
    if data[:2] != b"\x1f\x8b":
        raise _refused(name, "it is not gzip data")
    pieces: list[bytes] = []
    total = 0
    rest = data
    try:
        while rest:
            inflater = zlib.decompressobj(wbits=31)
            pending = rest
            while not inflater.eof:
                piece = inflater.decompress(pending, min(_INFLATE_STEP, limit - total + 1))
                total += len(piece)
                if total > limit:
                    raise _too_large(name, limit)
                pieces.append(piece)
                pending = inflater.unconsumed_tail
                if not pending and not piece and not inflater.eof:
                    raise _refused(name, "it is truncated")
            rest = inflater.unused_data
            if rest and rest[:2] != b"\x1f\x8b":
                if rest.strip(b"\x00"):
                    raise _refused(name, "its gzip data is corrupt (garbage after the end)")
                break  # trailing zero padding after the last member, as gzip allows
    except zlib.error as exc:
        raise _refused(name, f"its compressed data is corrupt ({exc})") from None
    return b"".join(pieces)


def _parse_header(name: str, line: str) -> tuple[str, str, int]:
    try:
        header = json.loads(line)
    except ValueError:
        raise _refused(name, "its first line is not a chunk header") from None
    if not isinstance(header, dict) or header.get("engram_chunk") != FORMAT_VERSION:
        raise _refused(name, "its first line is not an engram_chunk 1 header")
    origin, created_at, count = (
        header.get("origin"),
        header.get("created_at"),
        header.get("mutations"),
    )
    if not isinstance(origin, str) or not origin or not isinstance(created_at, str):
        raise _refused(name, "its header lacks origin or created_at")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise _refused(name, "its header has no mutation count")
    return origin, created_at, count


def _parse_line(name: str, number: int, line: str) -> Mutation:
    try:
        return parse_mutation(json.loads(line))
    except ValueError as exc:
        why = str(exc) if isinstance(exc, MalformedMutation) else "it is not JSON"
        raise _refused(name, f"line {number} is malformed: {why}") from None


def _too_large(name: str, limit: int) -> EngramError:
    return EngramError(
        "sync.chunk_too_large",
        f"chunk {name} refused: it inflates past the {limit}-byte cap (a gzip bomb or a"
        " damaged file); nothing of it was applied",
        "delete the file from the repository, or ask its author to sync again",
        chunk=name,
    )


def _refused(name: str, why: str) -> EngramError:
    return EngramError(
        "sync.bad_chunk",
        f"chunk {name} refused: {why}; nothing of it was applied",
        "restore the file from git (git checkout -- .engram/chunks) or ask its author to"
        " sync again",
        chunk=name,
    )
