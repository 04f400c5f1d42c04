"""Exporting the journal: the mutations not yet written to a target, as one chunk.

Text leaves the machine only after redaction (the same rule as a save), and only shared
fields are in a payload (the journal triggers never record pins, review state or leases).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engram.memory.clock import stamp
from engram.memory.redaction import redact
from engram.store import sync_journal
from engram.store.db import Store
from engram.store.sync_journal import JournalRow
from engram.sync.chunk import EncodedChunk, encode_chunk
from engram.sync.gitdir import GIT_TARGET, SyncFolder
from engram.sync.manifest import ManifestEntry
from engram.sync.mutation import TEXT_FIELDS, Mutation

ALL_PROJECTS = "*"


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What ``engram sync`` wrote: the chunk (None when nothing was pending)."""

    chunk_id: str | None
    mutations: int
    projects: tuple[str, ...]
    path: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "chunk": self.chunk_id,
            "mutations": self.mutations,
            "projects": list(self.projects),
            "path": self.path,
        }


def to_mutation(origin: str, row: JournalRow) -> Mutation:
    """A journal row as a wire mutation, its text fields redacted."""
    payload: dict[str, Any] = json.loads(row.payload)
    for name in TEXT_FIELDS[row.entity]:
        value = payload.get(name)
        if isinstance(value, str):
            payload[name] = redact(value)
    return Mutation(origin, row.seq, row.entity, row.entity_key, row.op, row.project, payload)


def pending_mutations(conn: Any, origin: str, project: str | None) -> list[Mutation]:
    """What a sync of ``project`` (None: all) would export to git, parents first."""
    scope = project if project is not None else ALL_PROJECTS
    rows = sync_journal.pending(
        conn, after_seq=sync_journal.cursor(conn, GIT_TARGET, scope), project=project
    )
    mutations = [to_mutation(origin, row) for row in rows]
    if project is None or not mutations:
        return mutations
    parents = [to_mutation(origin, row) for row in _session_parents(conn, mutations)]
    return parents + mutations


def _session_parents(conn: Any, mutations: Sequence[Mutation]) -> list[JournalRow]:
    """The latest version of sessions that children in ``mutations`` need but lack."""
    present = {m.key for m in mutations if m.entity == "session"}
    needed: list[str] = []
    for m in mutations:
        session_id = m.payload.get("session_id") if m.op == "upsert" else None
        if m.entity in ("observation", "prompt") and session_id and session_id not in present:
            present.add(session_id)
            needed.append(session_id)
    parents = [sync_journal.latest_for(conn, "session", key) for key in needed]
    return [p for p in parents if p is not None and p.op == "upsert"]


def export_chunk(store: Store, folder: SyncFolder, *, project: str | None) -> ExportReport:
    """Write the pending mutations of ``project`` (None: every project) as one new chunk.

    The chunk file, its manifest line, the target's cursor and ``sync_chunks`` row are all
    written inside one store transaction: a failure leaves the cursor where it was.
    """
    now = stamp()
    with store.write() as conn:
        origin = sync_journal.device_id(conn)
        mutations = pending_mutations(conn, origin, project)
        if not mutations:
            sync_journal.record_sync(conn, GIT_TARGET, now=now)
            return ExportReport(None, 0, (), None)
        lines = [m.to_json() for m in mutations]
        chunk = encode_chunk(origin, now, lines)
        projects = tuple(sorted({m.project for m in mutations}))
        path = folder.write_chunk(chunk, _entry(chunk, origin, now, projects))
        sync_journal.mark_chunk(conn, GIT_TARGET, chunk.id, now)
        scope = project if project is not None else ALL_PROJECTS
        sync_journal.set_cursor(conn, GIT_TARGET, scope, max(m.seq for m in mutations), now)
        sync_journal.record_sync(conn, GIT_TARGET, now=now)
    return ExportReport(chunk.id, len(lines), projects, str(path))


def _entry(chunk: EncodedChunk, origin: str, now: str, projects: tuple[str, ...]) -> ManifestEntry:
    return ManifestEntry(chunk.id, chunk.sha256, origin, now, chunk.count, projects)
