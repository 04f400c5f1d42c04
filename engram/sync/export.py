"""Exporting the journal: the mutations not yet written to a target, as chunks.

One chunk holds at most :data:`CHUNK_CONTENT_BYTES` of content, well under the cap every
reader enforces (:data:`engram.sync.chunk.MAX_CHUNK_BYTES`), so what we export always imports.

Text leaves the machine only after redaction (the same rule as a save), and only shared
fields are in a payload (the journal triggers never record pins, review state or leases).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engram.memory.clock import stamp
from engram.memory.redaction import redact
from engram.store import sync_journal
from engram.store.db import Store
from engram.store.sync_journal import JournalRow
from engram.sync.chunk import MAX_CHUNK_BYTES, EncodedChunk, encode_chunk
from engram.sync.gitdir import GIT_TARGET, SyncFolder
from engram.sync.manifest import ManifestEntry
from engram.sync.mutation import TEXT_FIELDS, Mutation

ALL_PROJECTS = "*"
CHUNK_CONTENT_BYTES = MAX_CHUNK_BYTES // 2


@dataclass(frozen=True, slots=True)
class ExportReport:
    """What ``engram sync`` wrote: the last chunk (None when nothing was pending) and, for a
    large export, every chunk in ``chunk_ids``."""

    chunk_id: str | None
    mutations: int
    projects: tuple[str, ...]
    path: str | None
    chunk_ids: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "chunk": self.chunk_id,
            "chunks": list(self.chunk_ids),
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


def export_line(origin: str, row: JournalRow) -> str:
    """A journal row as one mutation line (:meth:`Mutation.to_json` form), redacted.

    The trigger's JSON payload is used as it is when redaction would change nothing in it;
    otherwise it is parsed and every text field is redacted on its own.
    """
    payload = row.payload
    if redact(payload) != payload:
        return to_mutation(origin, row).to_json()
    return (
        f'{{"origin":{json.dumps(origin)},"seq":{row.seq:d},"entity":{json.dumps(row.entity)},'
        f'"key":{json.dumps(row.entity_key, ensure_ascii=False)},"op":{json.dumps(row.op)},'
        f'"project":{json.dumps(row.project, ensure_ascii=False)},"payload":{payload}}}'
    )


def pending_rows(conn: Any, project: str | None, target_key: str = GIT_TARGET) -> list[JournalRow]:
    """The journal rows a sync of ``project`` (None: all) would send to ``target_key``,
    parents first.

    A project's export also carries the latest version of each session its observations and
    prompts belong to, when the session is not among the rows (an unowned session, say).
    """
    scope = project if project is not None else ALL_PROJECTS
    after = sync_journal.cursor(conn, target_key, scope)
    rows = sync_journal.pending(conn, after_seq=after, project=project)
    if project is None or not rows:
        return rows
    present = {row.entity_key for row in rows if row.entity == "session"}
    needed = sync_journal.referenced_sessions(conn, after_seq=after, project=project) - present
    parents = [sync_journal.latest_for(conn, "session", key) for key in sorted(needed)]
    return [p for p in parents if p is not None and p.op == "upsert"] + rows


def export_chunk(store: Store, folder: SyncFolder, *, project: str | None) -> ExportReport:
    """Write the pending mutations of ``project`` (None: every project) as one new chunk.

    The chunk file, its manifest line, the target's cursor and ``sync_chunks`` row are all
    written inside one store transaction: a failure leaves the cursor where it was.
    """
    now = stamp()
    with store.write() as conn:
        rows = pending_rows(conn, project)
        if not rows:
            sync_journal.record_sync(conn, GIT_TARGET, now=now)
            return ExportReport(None, 0, (), None)
        origin = sync_journal.device_id(conn)
        written: list[str] = []
        go_form = folder.holds_go_chunks()
        # A Go chunk holds each row twice (its row lists and its mutation log): a third of the
        # budget keeps it under every reader's cap.
        budget = CHUNK_CONTENT_BYTES // 3 if go_form else CHUNK_CONTENT_BYTES
        for group in _groups(rows, [export_line(origin, row) for row in rows], budget):
            in_chunk = tuple(sorted({row.project for row, _ in group}))
            if go_form:  # the Go tool syncs here too: write what it reads (docs/sync.md)
                path, chunk_id = _write_go_chunk(folder, origin, now, group, in_chunk)
            else:
                chunk = encode_chunk(origin, now, [line for _, line in group])
                path = folder.write_chunk(chunk, _entry(chunk, origin, now, in_chunk))
                chunk_id = chunk.id
            sync_journal.mark_chunk(conn, GIT_TARGET, chunk_id, now)
            written.append(chunk_id)
        projects = tuple(sorted({row.project for row in rows}))
        scope = project if project is not None else ALL_PROJECTS
        sync_journal.set_cursor(conn, GIT_TARGET, scope, max(r.seq for r in rows), now)
        sync_journal.record_sync(conn, GIT_TARGET, now=now)
    return ExportReport(written[-1], len(rows), projects, str(path), tuple(written))


def _groups(
    rows: list[JournalRow], lines: list[str], budget: int = CHUNK_CONTENT_BYTES
) -> list[list[tuple[JournalRow, str]]]:
    """Rows with their lines, in order, cut so each chunk's content stays under ``budget``."""
    groups: list[list[tuple[JournalRow, str]]] = [[]]
    size = 0
    for row, line in zip(rows, lines, strict=True):
        cost = len(line.encode("utf-8")) + 1
        if groups[-1] and size + cost > budget:
            groups.append([])
            size = 0
        groups[-1].append((row, line))
        size += cost
    return groups


def _write_go_chunk(
    folder: SyncFolder,
    origin: str,
    now: str,
    group: list[tuple[JournalRow, str]],
    projects: tuple[str, ...],
) -> tuple[Any, str]:
    """One group as a Go-readable chunk with its manifest entry (Go's fields and ours)."""
    from engram.sync.formats.go_chunk import encode_go_chunk, row_counts
    from engram.sync.mutation import parse_mutation

    mutations = [parse_mutation(json.loads(line)) for _, line in group]
    chunk = encode_go_chunk(mutations)
    entry = _entry(chunk, origin, now, projects)
    go_entry = {
        "id": chunk.id,
        "created_by": f"engram:{origin[:12]}",
        "created_at": now.replace(" ", "T") + "Z",
        **row_counts(mutations),
        "sha256": chunk.sha256,
        "origin": origin,
        "mutations": chunk.count,
        "projects": list(projects),
    }
    return folder.write_chunk(chunk, entry, go_entry), chunk.id


def _entry(chunk: EncodedChunk, origin: str, now: str, projects: tuple[str, ...]) -> ManifestEntry:
    return ManifestEntry(chunk.id, chunk.sha256, origin, now, chunk.count, projects)
