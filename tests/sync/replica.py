"""A replica for sync tests: its own store and its own copy of a repository's ``.engram``."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.memory.observation import delete_observation, update_observation
from engram.memory.prompts import save_prompt
from engram.memory.save import save_observation
from engram.store import relations
from engram.store.db import Store
from engram.sync.export import export_chunk
from engram.sync.gitdir import SyncFolder
from engram.sync.importer import ImportReport, import_chunks
from engram.sync.manifest import append_entry, empty_manifest, parse_manifest
from engram.sync.trust import TrustGate

PROJECT = "acme"

# What replicas must agree on: every shared column, keyed by the stable id.
SNAPSHOT = {
    "sessions": ("id", "id, project, ownership_mode, directory, started_at, ended_at, summary"),
    "observations": (
        "sync_id",
        "sync_id, session_id, type, title, content, tool_name, project, scope, topic_key,"
        " normalized_hash, revision_count, expires_at, created_at, updated_at, deleted_at,"
        " duplicate_count, last_seen_at",
    ),
    "user_prompts": ("sync_id", "sync_id, session_id, content, project, created_at"),
    "memory_relations": (
        "sync_id",
        "sync_id, source_id, target_id, relation, judgment_status, reason, confidence,"
        " created_at, updated_at",
    ),
}


@dataclass
class Replica:
    """One machine: a data dir and a repository folder."""

    root: Path

    def __post_init__(self) -> None:
        self.store = Store.open(self.root / "data", env={})
        self.folder = SyncFolder(self.root / "repo")

    def close(self) -> None:
        self.store.close()

    # -- writes ------------------------------------------------------------------------------

    def save(self, title: str, content: str, topic: str | None = None) -> str:
        result = save_observation(
            self.store, title=title, content=content, project=PROJECT, topic_key=topic,
            surface_conflicts=False,
        )  # fmt: skip
        return result.observation.sync_id

    def local_id(self, sync_id: str) -> int | None:
        row = self.store.connection.execute(
            "SELECT id FROM observations WHERE sync_id = ? AND deleted_at IS NULL", (sync_id,)
        ).fetchone()
        return int(row[0]) if row else None

    def edit(self, sync_id: str, content: str) -> bool:
        obs_id = self.local_id(sync_id)
        if obs_id is None:
            return False
        update_observation(self.store, obs_id, expected_project=PROJECT, content=content)
        return True

    def delete(self, sync_id: str, *, hard: bool) -> bool:
        obs_id = self.local_id(sync_id)
        if obs_id is None:
            return False
        delete_observation(self.store, obs_id, expected_project=PROJECT, hard=hard)
        return True

    def relate(self, source: str, target: str, verdict: str) -> bool:
        """A judged relation between two observations this replica holds."""
        if self.local_id(source) is None or self.local_id(target) is None or source == target:
            return False
        with self.store.write() as conn:
            found = relations.find_pair(conn, source, target)
            if found is None:
                found = relations.insert(conn, source_id=source, target_id=target, now="2026-01-01")
            relations.record_verdict(
                conn, found.id, relation=verdict, now="2026-01-02", reason=None, evidence=None,
                confidence=0.5, marked_by_kind="agent", marked_by_actor=None,
            )  # fmt: skip
        return True

    def prompt(self, content: str) -> None:
        save_prompt(self.store, content, project=PROJECT)

    # -- sync --------------------------------------------------------------------------------

    def sync(self) -> str | None:
        return export_chunk(self.store, self.folder, project=None).chunk_id

    def pull_from(self, other: Replica) -> None:
        """What ``git pull`` does to .engram: new chunk files arrive, manifests union."""
        self.folder.prepare()
        for path in other.folder.chunk_files().values():
            target = self.folder.chunks_dir / path.name
            if not target.exists():
                shutil.copyfile(path, target)
        text = self.folder.manifest_path.read_text(encoding="utf-8") or empty_manifest()
        have = {e.id for e in parse_manifest(text)}
        for entry in other.folder.manifest():
            if entry.id not in have:
                text = append_entry(text, entry)
        self.folder.manifest_path.write_text(text, encoding="utf-8")

    def import_(self) -> ImportReport:
        return import_chunks(self.store, self.folder, gate=TrustGate.for_projects({PROJECT}, "git"))

    # -- reads -------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        conn: sqlite3.Connection = self.store.connection
        return {
            table: [tuple(r) for r in conn.execute(f"SELECT {cols} FROM {table} ORDER BY {key}")]
            for table, (key, cols) in SNAPSHOT.items()
        }

    def observation_ids(self) -> dict[str, str | None]:
        """sync_id -> deleted_at of every observation row."""
        rows = self.store.connection.execute("SELECT sync_id, deleted_at FROM observations")
        return {str(r[0]): r[1] for r in rows}
