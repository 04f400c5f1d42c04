"""A chunk is gzipped by ISA-L when the ``[cloud]`` extra has installed it (``isal``), by zlib
without it: either way every reader takes it, and its id (its content's hash) is the same."""

from __future__ import annotations

import gzip
import sys

import pytest

from engram.sync import chunk
from engram.sync.chunk import encode_chunk, read_chunk
from engram.sync.mutation import Mutation
from tests.cloud.entries import observation


def test_a_chunk_gzipped_with_or_without_isal_reads_back_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [Mutation(**observation("dev", seq)).to_json() for seq in range(1, 200)]
    chunk._gzip_compress.cache_clear()
    assert chunk._gzip_compress().func.__module__.startswith("isal")  # type: ignore[attr-defined]
    fast = encode_chunk("dev", "2026-12-04 12:00:00", lines)
    chunk._gzip_compress.cache_clear()
    monkeypatch.setitem(sys.modules, "isal", None)  # the extra not installed
    try:
        plain = encode_chunk("dev", "2026-12-04 12:00:00", lines)
        assert chunk._gzip_compress().func is gzip.compress  # type: ignore[attr-defined]
    finally:
        chunk._gzip_compress.cache_clear()
    assert fast.id == plain.id and fast.sha256 == plain.sha256
    assert gzip.decompress(fast.data) == gzip.decompress(plain.data)
    assert read_chunk(fast.id, fast.data).mutations == read_chunk(plain.id, plain.data).mutations
    assert len(read_chunk(fast.id, fast.data).mutations) == len(lines)
    assert len(fast.data) <= len(plain.data) * 1.1  # as small as zlib's, give or take
