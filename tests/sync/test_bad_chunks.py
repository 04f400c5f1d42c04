"""A damaged chunk is refused with one line naming it, and nothing of the import is applied."""

from __future__ import annotations

import gzip
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engram.sync.chunk import encode_chunk
from engram.testing import Sandbox

ENGRAM = [sys.executable, "-m", "engram.cli.entry"]


def _run(box: Sandbox, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENGRAM, *args], cwd=cwd, env=box.env(), capture_output=True, text=True, check=False
    )


def _good_lines(count: int = 2) -> list[str]:
    lines = [
        json.dumps({
            "origin": "feedfacecafebeef", "seq": 1, "entity": "session", "key": "s-remote",
            "op": "upsert", "project": "workspace",
            "payload": {"id": "s-remote", "project": "workspace", "ownership_mode": "shared",
                        "directory": "", "started_at": "2026-01-01 00:00:00", "ended_at": None,
                        "summary": None},
        })
    ]  # fmt: skip
    for n in range(2, count + 1):
        lines.append(
            json.dumps({
                "origin": "feedfacecafebeef", "seq": n, "entity": "observation",
                "key": f"obs-remote{n}", "op": "upsert", "project": "workspace",
                "payload": {"sync_id": f"obs-remote{n}", "session_id": "s-remote",
                            "type": "manual", "title": f"remote {n}", "content": "from afar",
                            "tool_name": None, "project": "workspace", "scope": "project",
                            "topic_key": None, "normalized_hash": "h", "revision_count": 1,
                            "expires_at": None, "created_at": "2026-01-01 00:00:00",
                            "updated_at": "2026-01-01 00:00:00", "deleted_at": None},
            })
        )  # fmt: skip
    return lines


def _raw_chunk(raw: bytes) -> tuple[str, bytes]:
    """A chunk file named after ``raw``'s hash (so only the damage under test is wrong)."""
    return hashlib.sha256(raw).hexdigest()[:16], gzip.compress(raw, mtime=0)


def _truncated() -> tuple[str, bytes]:
    chunk = encode_chunk("feedfacecafebeef", "2026-01-01 00:00:00", _good_lines(40))
    return chunk.id, chunk.data[: len(chunk.data) // 2]


def _not_gzip() -> tuple[str, bytes]:
    return "0123456789abcdef", b"this is not gzip at all\n"


def _hash_mismatch() -> tuple[str, bytes]:
    chunk = encode_chunk("feedfacecafebeef", "2026-01-01 00:00:00", _good_lines())
    return "fedcba9876543210", chunk.data


def _malformed_row() -> tuple[str, bytes]:
    lines = _good_lines()
    bad = json.loads(lines[1])
    bad["payload"]["revision_count"] = "three"
    header = '{"engram_chunk":1,"origin":"feedfacecafebeef","created_at":"2026-01-01 00:00:00","mutations":2}'
    return _raw_chunk(("\n".join([header, lines[0], json.dumps(bad)]) + "\n").encode())


def _not_json_row() -> tuple[str, bytes]:
    header = '{"engram_chunk":1,"origin":"feedfacecafebeef","created_at":"2026-01-01 00:00:00","mutations":2}'
    return _raw_chunk(("\n".join([header, _good_lines()[0], "{oops"]) + "\n").encode())


def _short_of_header() -> tuple[str, bytes]:
    header = '{"engram_chunk":1,"origin":"feedfacecafebeef","created_at":"2026-01-01 00:00:00","mutations":5}'
    return _raw_chunk(("\n".join([header, *_good_lines()]) + "\n").encode())


def _misnamed() -> tuple[str, bytes]:
    chunk = encode_chunk("feedfacecafebeef", "2026-01-01 00:00:00", _good_lines())
    return "from-a-teammate", chunk.data


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (_misnamed, "file name is not"),
        (_truncated, "truncated"),
        (_not_gzip, "not gzip"),
        (_hash_mismatch, "SHA-256 does not match"),
        (_malformed_row, "line 3 is malformed"),
        (_not_json_row, "line 3 is malformed"),
        (_short_of_header, "header says 5"),
    ],
)
def test_damaged_chunk_is_refused_and_nothing_applied(
    sandbox: Sandbox, make: Callable[[], tuple[str, bytes]], why: str
) -> None:
    good = encode_chunk("feedfacecafebeef", "2026-01-01 00:00:00", _good_lines())
    chunks = sandbox.workspace / ".engram" / "chunks"
    chunks.mkdir(parents=True)
    (chunks / good.file_name).write_bytes(good.data)
    name, data = make()
    (chunks / f"{name}.jsonl.gz").write_bytes(data)

    done = _run(sandbox, sandbox.workspace, "sync", "--import")

    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert f"chunk {name} refused" in lines[0] and why in lines[0]
    # Nothing applied: not even the good chunk beside it.
    status = json.loads(
        _run(sandbox, sandbox.workspace, "sync", "--status", "--all", "--json").stdout
    )
    assert status["chunks_applied"] == 0
    assert status["phase"] == "failed" and name in status["last_error"]
    found = _run(sandbox, sandbox.workspace, "search", "remote", "--all")
    assert "remote 2" not in found.stdout

    # Once the damaged file is restored (here: removed), the good chunk applies.
    (chunks / f"{name}.jsonl.gz").unlink()
    assert _run(sandbox, sandbox.workspace, "sync", "--import").returncode == 0
    status = json.loads(
        _run(sandbox, sandbox.workspace, "sync", "--status", "--all", "--json").stdout
    )
    assert status["phase"] == "idle" and status["last_error"] is None
    assert "remote 2" in _run(sandbox, sandbox.workspace, "search", "remote", "--all").stdout
