"""Mutations whose parent is not here yet wait in the deferred queue; five failures make them
dead; a parent that arrives in time lets them apply."""

from __future__ import annotations

import json
from pathlib import Path

from engram.sync.chunk import encode_chunk
from engram.sync.gitdir import SyncFolder
from engram.sync.status import local_status
from tests.sync.replica import Replica

ORIGIN = "feedfacecafebeef"


def _observation(seq: int, key: str, session_id: str | None = None) -> str:
    return json.dumps({
        "origin": ORIGIN, "seq": seq, "entity": "observation", "key": key, "op": "upsert",
        "project": "acme",
        "payload": {"sync_id": key, "session_id": session_id, "type": "manual", "title": key,
                    "content": "body", "tool_name": None, "project": "acme", "scope": "project",
                    "topic_key": None, "normalized_hash": "h", "revision_count": 1,
                    "expires_at": None, "created_at": "2026-01-01 00:00:00",
                    "updated_at": "2026-01-01 00:00:00", "deleted_at": None},
    })  # fmt: skip


def _relation(seq: int, source: str, target: str) -> str:
    return json.dumps({
        "origin": ORIGIN, "seq": seq, "entity": "relation", "key": "rel-1", "op": "upsert",
        "project": "acme",
        "payload": {"sync_id": "rel-1", "source_id": source, "target_id": target,
                    "relation": "conflicts_with", "judgment_status": "judged", "reason": None,
                    "evidence": None, "confidence": 0.9, "marked_by_kind": "agent",
                    "marked_by_actor": None, "marked_by_model": None, "session_id": None,
                    "superseded_at": None, "created_at": "2026-01-01 00:00:00",
                    "updated_at": "2026-01-01 00:00:00"},
    })  # fmt: skip


def _drop(folder: SyncFolder, created_at: str, lines: list[str]) -> None:
    chunk = encode_chunk(ORIGIN, created_at, lines)
    folder.chunks_dir.mkdir(parents=True, exist_ok=True)
    (folder.chunks_dir / chunk.file_name).write_bytes(chunk.data)


def _relations(replica: Replica) -> list[str]:
    return [r[0] for r in replica.store.connection.execute("SELECT sync_id FROM memory_relations")]


def test_missing_parent_waits_then_dies_after_five_failures(tmp_path: Path) -> None:
    replica = Replica(tmp_path / "r")
    _drop(
        replica.folder,
        "2026-01-01 00:00:01",
        [_observation(1, "obs-a"), _relation(2, "obs-a", "obs-b")],
    )

    report = replica.import_()
    assert report.counts.applied == 1 and report.counts.deferred == 1
    assert _relations(replica) == []
    status = local_status(replica.store, None)
    assert (status.deferred_count, status.dead_count) == (1, 0)

    for _ in range(4):
        replica.import_()
    status = local_status(replica.store, None)
    assert (status.deferred_count, status.dead_count) == (0, 1)
    row = replica.store.connection.execute(
        "SELECT retry_count, apply_status, last_error FROM sync_apply_deferred"
    ).fetchone()
    assert tuple(row) == (5, "dead", "observation obs-b is not here yet")

    # Dead rows are not retried automatically, even once the parent arrives.
    _drop(replica.folder, "2026-01-01 00:00:02", [_observation(3, "obs-b")])
    replica.import_()
    assert _relations(replica) == []
    replica.close()


def test_parent_arriving_later_lets_the_deferred_mutation_apply(tmp_path: Path) -> None:
    replica = Replica(tmp_path / "r")
    _drop(
        replica.folder,
        "2026-01-01 00:00:01",
        [_observation(1, "obs-a"), _relation(2, "obs-a", "obs-b")],
    )
    replica.import_()
    assert _relations(replica) == []

    _drop(replica.folder, "2026-01-01 00:00:02", [_observation(3, "obs-b")])
    report = replica.import_()
    assert report.recovered == 1
    assert _relations(replica) == ["rel-1"]
    status = local_status(replica.store, None)
    assert (status.deferred_count, status.dead_count) == (0, 0)
    assert replica.import_().chunks == []
    replica.close()


def test_chunks_on_disk_but_missing_from_the_manifest_are_imported(tmp_path: Path) -> None:
    replica = Replica(tmp_path / "r")
    replica.folder.prepare()
    _drop(replica.folder, "2026-01-01 00:00:01", [_observation(1, "obs-a")])
    assert replica.folder.manifest() == []
    assert replica.import_().counts.applied == 1
    assert "obs-a" in replica.observation_ids()
    replica.close()


def _session(seq: int, key: str) -> str:
    return json.dumps({
        "origin": ORIGIN, "seq": seq, "entity": "session", "key": key, "op": "upsert",
        "project": "acme",
        "payload": {"id": key, "project": "acme", "ownership_mode": "shared", "directory": "",
                    "started_at": "2026-01-01 00:00:00", "ended_at": None, "summary": None},
    })  # fmt: skip


def test_a_chain_of_waiting_mutations_applies_in_one_import(tmp_path: Path) -> None:
    replica = Replica(tmp_path / "r")
    # The relation waits for obs-b, which waits for its session.
    _drop(
        replica.folder,
        "2026-01-01 00:00:01",
        [_observation(1, "obs-a"), _relation(2, "obs-a", "obs-b"), _observation(3, "obs-b", "s-b")],
    )
    assert replica.import_().counts.deferred == 2
    _drop(replica.folder, "2026-01-01 00:00:02", [_session(4, "s-b")])
    report = replica.import_()
    assert report.recovered == 2
    assert _relations(replica) == ["rel-1"]
    assert "obs-b" in replica.observation_ids()
    replica.close()
