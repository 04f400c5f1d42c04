"""A mixed team: the Go tool's chunks and ours in one repository's ``.engram`` converge.

The Go files are built from the Go tool's documented format (docs/sync.md, "Mixed teams"):
``manifest.json`` as ``{"version", "chunks": [{id, created_by, created_at, sessions, memories,
prompts}]}`` and each chunk ``chunks/<first 8 hex of its SHA-256>.jsonl.gz``, one gzipped JSON
document of sessions, observations and prompts (v0.1.x), plus a ``mutations`` log (2.x).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from engram.errors import EngramError
from engram.sync.formats.go_chunk import read_go_chunk
from engram.sync.manifest import append_entry, empty_manifest, parse_manifest
from tests.sync.replica import PROJECT, Replica

GO_FIELDS = {"id", "created_by", "created_at", "sessions", "memories", "prompts"}


def _go_chunk(folder: Path, doc: dict[str, Any]) -> str:
    raw = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    chunk_id = hashlib.sha256(raw).hexdigest()[:8]
    (folder / "chunks").mkdir(parents=True, exist_ok=True)
    (folder / "chunks" / f"{chunk_id}.jsonl.gz").write_bytes(gzip.compress(raw))
    return chunk_id


def _v01_doc() -> dict[str, Any]:
    return {
        "sessions": [
            {"id": "go-s1", "project": PROJECT, "directory": "/work/acme",
             "started_at": "2026-11-01 10:00:00", "ended_at": None, "summary": None}
        ],
        "observations": [
            {"id": 1, "session_id": "go-s1", "type": "decision", "title": "Go v0.1 decision",
             "content": "Use Postgres for billing", "tool_name": None, "project": PROJECT,
             "scope": "project", "topic_key": None, "created_at": "2026-11-01 10:01:00",
             "updated_at": "2026-11-01 10:01:00"},
            {"id": 2, "session_id": "go-s1", "type": "bugfix", "title": "Legacy row without project",
             "content": "Fixed the cron timezone", "created_at": "2026-11-01 10:02:00"},
        ],
        "prompts": [
            {"id": 1, "session_id": "go-s1", "content": "why is billing slow",
             "project": PROJECT, "created_at": "2026-11-01 10:00:30"}
        ],
    }  # fmt: skip


def _v2_doc() -> dict[str, Any]:
    upsert = {
        "sync_id": "obs-go2-a", "session_id": "go-s2", "type": "architecture",
        "title": "Go 2.x architecture", "content": "Queue writes through the outbox",
        "project": PROJECT, "scope": "project", "topic_key": "architecture/outbox",
        "revision_count": 2, "duplicate_count": 1, "created_at": "2026-11-02T09:00:00Z",
        "updated_at": "2026-11-02T09:30:00Z",
    }  # fmt: skip
    gone = {"sync_id": "obs-go2-gone", "deleted_at": "2026-11-02T10:00:00Z", "hard_delete": True}
    return {
        "sessions": [
            {"id": "go-s2", "project": PROJECT, "directory": "/work/acme",
             "started_at": "2026-11-02T08:59:00Z"}
        ],
        "observations": [upsert],
        "prompts": [],
        "mutations": [
            {"seq": 7, "entity": "session", "entity_key": "go-s2", "op": "upsert",
             "payload": json.dumps({"id": "go-s2", "project": PROJECT, "directory": "/work/acme",
                                    "started_at": "2026-11-02T08:59:00Z"}), "project": PROJECT},
            {"seq": 8, "entity": "observation", "entity_key": "obs-go2-a", "op": "upsert",
             "payload": json.dumps(upsert), "project": PROJECT},
            {"seq": 9, "entity": "observation", "entity_key": "obs-go2-gone", "op": "delete",
             "payload": json.dumps(gone), "project": PROJECT},
            {"seq": 10, "entity": "prompt_pair_claim", "entity_key": "c1", "op": "upsert",
             "payload": "{}", "project": PROJECT},
        ],
    }  # fmt: skip


def _go_repository(replica: Replica) -> dict[str, Any]:
    """Replica's repository as a Go teammate left it: two Go chunks and the Go manifest."""
    folder = replica.folder.path
    first, second = _go_chunk(folder, _v01_doc()), _go_chunk(folder, _v2_doc())
    manifest = {
        "version": 1,
        "chunks": [
            {"id": first, "created_by": "alice", "created_at": "2026-11-01T10:05:00Z",
             "sessions": 1, "memories": 2, "prompts": 1},
            {"id": second, "created_by": "bob", "created_at": "2026-11-02T10:05:00Z",
             "sessions": 1, "memories": 1, "prompts": 0},
        ],
    }  # fmt: skip
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return manifest


def _titles(replica: Replica) -> set[str]:
    rows = replica.store.connection.execute("SELECT title FROM observations")
    return {str(r[0]) for r in rows}


def _as_go_reads(folder: Path) -> set[str]:
    """What the Go tool's import reads: the manifest's entries, each chunk one JSON document."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    titles: set[str] = set()
    for entry in manifest["chunks"]:
        raw = gzip.decompress((folder / "chunks" / f"{entry['id']}.jsonl.gz").read_bytes())
        assert hashlib.sha256(raw).hexdigest()[:8] == entry["id"]
        doc = json.loads(raw)
        assert set(doc) >= {"sessions", "observations", "prompts"}
        for row in doc["observations"]:
            assert {"session_id", "type", "title", "content"} <= set(row)
            titles.add(row["title"])
    return titles


@pytest.fixture
def team(tmp_path: Path) -> Any:
    replicas = [Replica(tmp_path / name) for name in ("ours", "fresh")]
    yield replicas
    for replica in replicas:
        replica.close()


def test_go_chunks_import_and_our_chunk_is_written_for_go(team: list[Replica]) -> None:
    ours, fresh = team
    before = _go_repository(ours)
    report = ours.import_()
    assert len(report.chunks) == 2 and report.counts.refused == 0
    titles = _titles(ours)
    assert {"Go v0.1 decision", "Legacy row without project", "Go 2.x architecture"} <= titles
    legacy = ours.store.connection.execute(
        "SELECT project FROM observations WHERE title = 'Legacy row without project'"
    ).fetchone()
    assert legacy[0] == PROJECT  # the session's project, as the Go tool attributed it
    assert ours.store.connection.execute("SELECT count(*) FROM user_prompts").fetchone()[0] == 1
    assert ours.import_().chunks == []  # a second import applies nothing again

    ours.save("Ours: retries need jitter", "Workers stampede without it")
    ours.prompt("how do we retry")
    written = ours.sync()
    assert written is not None and len(written) == 8  # the Go tool's name pattern
    after = json.loads(ours.folder.manifest_path.read_text(encoding="utf-8"))
    assert after["version"] == 1
    assert after["chunks"][:2] == before["chunks"]  # Go's entries kept as they were, in order
    mine = after["chunks"][2]
    assert mine["id"] == written and set(mine) >= GO_FIELDS
    assert mine["memories"] == 1 and mine["prompts"] == 1 and mine["created_at"].endswith("Z")
    # The Go tool reads every memory, its own and ours.
    assert _as_go_reads(ours.folder.path) >= titles | {"Ours: retries need jitter"}

    # A fresh Engram clone converges with ours from the same folder.
    shutil.copytree(ours.folder.path, fresh.folder.path)
    fresh.import_()
    assert fresh.snapshot() == ours.snapshot()


def test_a_manifest_the_go_tool_rewrote_keeps_every_entry(team: list[Replica]) -> None:
    ours, fresh = team
    ours.save("Native first", "written before any Go teammate")
    native_chunk = ours.sync()
    assert native_chunk is not None and len(native_chunk) == 16
    # A Go teammate syncs: it rewrites the manifest with the fields it knows, adds its chunk.
    path = ours.folder.manifest_path
    data = json.loads(path.read_text(encoding="utf-8"))
    kept = [{k: e[k] for k in ("id", "created_at") if k in e} for e in data["chunks"]]
    go_id = _go_chunk(ours.folder.path, _v01_doc())
    go_entry = {"id": go_id, "created_by": "alice", "created_at": "2026-11-03T08:00:00Z",
                "sessions": 1, "memories": 2, "prompts": 1}  # fmt: skip
    path.write_text(json.dumps({"version": 0, "chunks": [*kept, go_entry]}, indent=2))
    rewritten = json.loads(path.read_text(encoding="utf-8"))["chunks"]

    shutil.copytree(ours.folder.path, fresh.folder.path)
    report = fresh.import_()
    assert sorted(report.chunks) == sorted([native_chunk, go_id])
    assert {"Native first", "Go v0.1 decision"} <= _titles(fresh)
    fresh.save("Fresh after Go", "written once Go synced here")
    fresh.sync()
    entries = json.loads(fresh.folder.manifest_path.read_text(encoding="utf-8"))["chunks"]
    assert entries[: len(rewritten)] == rewritten and len(entries) == len(rewritten) + 1
    ours.import_()  # the repository as the fresh clone left it (same folder contents)
    shutil.copytree(fresh.folder.path, ours.folder.path, dirs_exist_ok=True)
    ours.import_()
    assert "Fresh after Go" in _titles(ours)


def test_go_chunks_pass_the_same_trust_gate(team: list[Replica]) -> None:
    ours, _ = team
    doc = _v01_doc()
    doc["observations"].append(
        {"session_id": "go-s1", "type": "decision", "title": "Sneaked into another project",
         "content": "x", "project": "billing", "created_at": "2026-11-01 10:03:00"}
    )  # fmt: skip
    chunk_id = _go_chunk(ours.folder.path, doc)
    manifest = {"version": 1, "chunks": [{"id": chunk_id, "created_by": "mallory",
                "created_at": "2026-11-01T10:05:00Z", "sessions": 1, "memories": 3}]}  # fmt: skip
    ours.folder.manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    report = ours.import_()
    assert report.counts.refused == 1 and report.held == [chunk_id]
    assert "Sneaked into another project" not in _titles(ours)


def test_bad_go_chunks_are_refused_in_one_line_before_anything_applies(tmp_path: Path) -> None:
    raw = json.dumps(_v01_doc()).encode("utf-8")
    name = hashlib.sha256(raw).hexdigest()[:8]
    with pytest.raises(EngramError, match="does not match its name"):
        read_go_chunk("00000000", gzip.compress(raw))
    with pytest.raises(EngramError, match="not one JSON document"):
        bad = b"not json"
        read_go_chunk(hashlib.sha256(bad).hexdigest()[:8], gzip.compress(bad))
    with pytest.raises(EngramError) as too_big:
        read_go_chunk(name, gzip.compress(raw), limit=64)
    assert too_big.value.code == "sync.chunk_too_large"


def test_a_broken_native_manifest_is_rebuilt_without_losing_foreign_lines() -> None:
    go_line = '{"id": "a3f8c1d2", "created_by": "alice", "created_at": "2026-11-01T10:05:00Z"}'
    odd_line = '{"id": "zz", "note": "someone else\'s entry"}'
    text = empty_manifest().replace("]}", f",{go_line}\n<<<<<<< HEAD\n,{odd_line}\n]}}")
    ours = parse_manifest(empty_manifest() + "")
    assert ours == []
    entry = parse_manifest(
        '{"engram_manifest": 1, "chunks": [{"id": "b7d2e4f1a0c3d5e6", "sha256": "s", "origin":'
        ' "o", "created_at": "2026-11-30 15:00:00", "mutations": 1, "projects": ["acme"]}]}'
    )[0]
    rebuilt = append_entry(text, entry)
    assert json.loads(rebuilt)  # valid again
    assert go_line in rebuilt and odd_line in rebuilt and entry.id in rebuilt
