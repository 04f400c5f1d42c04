"""Importing chunks: verify every new chunk, apply them in a deterministic order, then retry
the deferred queue.

Only mutations the repository is trusted with pass (:mod:`engram.sync.trust`): the caller
names the gate. A chunk that had a refused mutation is not marked applied, so confirming its
project later applies it.

Go chunks (``<8 hex>.jsonl.gz``) are read by :mod:`engram.sync.formats.go_chunk` into the same
mutations, through the same gate and bounded reading.

Order: chunks not yet in ``sync_chunks`` — from the manifest and from the chunk folder — sorted
by (header ``created_at``, chunk id); each is applied in one transaction with its
``sync_chunks`` row, its mutations in file order. Every new chunk is verified before the first
one is applied, so a refused chunk means nothing of this import was applied.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engram.errors import EngramError
from engram.memory.clock import stamp
from engram.store import sync_deferred, sync_journal
from engram.store.db import Store
from engram.sync.apply import Applier, ApplyCounts, MissingParent
from engram.sync.chunk import Chunk, read_chunk, read_chunk_file
from engram.sync.formats.go_chunk import is_go_chunk_id, read_go_chunk
from engram.sync.gitdir import GIT_TARGET, SyncFolder
from engram.sync.mutation import Mutation, parse_mutation
from engram.sync.trust import TrustGate


@dataclass
class ImportReport:
    """What ``engram sync --import`` did."""

    chunks: list[str] = field(default_factory=list)
    counts: ApplyCounts = field(default_factory=ApplyCounts)
    held: list[str] = field(default_factory=list)
    refused_projects: set[str] = field(default_factory=set)
    missing: list[str] = field(default_factory=list)
    retried: int = 0
    recovered: int = 0
    dead: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "chunks_applied": len(self.chunks),
            "chunks": self.chunks,
            "mutations": vars(self.counts).copy(),
            "chunks_held": self.held,
            "refused": self.counts.refused,
            "refused_projects": sorted(self.refused_projects),
            "missing_chunk_files": self.missing,
            "deferred_retried": self.retried,
            "deferred_recovered": self.recovered,
            "deferred_dead": self.dead,
        }


def new_chunks(store: Store, folder: SyncFolder) -> tuple[list[Chunk], list[str]]:
    """Every chunk of the folder not applied here yet, verified and in apply order, and the
    ids the manifest lists but no file holds.

    Raises:
        EngramError: ``sync.bad_chunk`` for the first chunk that fails verification.
    """
    with store.locked() as conn:
        known = sync_journal.known_chunks(conn, GIT_TARGET)
    manifest = {entry.id: entry for entry in folder.manifest()}
    files = folder.chunk_files()
    missing = sorted(cid for cid in manifest if cid not in files and cid not in known)
    chunks = []
    for chunk_id in sorted(set(files) - known):
        entry = manifest.get(chunk_id)
        data = read_chunk_file(chunk_id, files[chunk_id])  # bounded, regular files only
        if is_go_chunk_id(chunk_id):  # the Go tool's, or ours written for it
            author = entry.origin if entry is not None else ""
            when = entry.created_at if entry is not None else ""
            chunks.append(read_go_chunk(chunk_id, data, author=author, created_at=when))
        else:
            expected = entry.sha256 or None if entry is not None else None
            chunks.append(read_chunk(chunk_id, data, expected_sha256=expected))
    chunks.sort(key=lambda c: (c.created_at, c.id))
    return chunks, missing


def import_chunks(store: Store, folder: SyncFolder, *, gate: TrustGate) -> ImportReport:
    """Apply every new chunk of ``folder`` that ``gate`` admits, then retry deferred mutations.

    A refused chunk is recorded as the git target's last error (``GET /sync/status`` shows
    phase ``failed``) before the error is raised.
    """
    try:
        chunks, missing = new_chunks(store, folder)
    except EngramError as refused:
        with store.write() as conn:
            sync_journal.record_sync(conn, GIT_TARGET, now=stamp(), error=refused.message)
        raise
    report = ImportReport(missing=missing)
    for chunk in chunks:
        (report.chunks if _apply_chunk(store, chunk, report, gate) else report.held).append(
            chunk.id
        )
    retry_deferred(store, report)
    with store.write() as conn:
        sync_journal.record_sync(conn, GIT_TARGET, now=stamp())
    return report


def _apply_chunk(store: Store, chunk: Chunk, report: ImportReport, gate: TrustGate) -> bool:
    """Apply what ``gate`` admits of one chunk; marks it applied unless something was
    refused (so a later confirmation applies the rest). Returns whether it was marked."""
    now = stamp()
    counts = report.counts
    refused_before = counts.refused
    with store.write() as conn:
        apply_mutations(conn, chunk.mutations, counts, target_key=GIT_TARGET, now=now, gate=gate)
        if counts.refused > refused_before:
            report.refused_projects.update(
                m.project for m in chunk.mutations if m.project not in gate.projects
            )
            return False
        sync_journal.mark_chunk(conn, GIT_TARGET, chunk.id, now)
    return True


def apply_mutations(
    conn: Any,
    mutations: Sequence[Mutation],
    counts: ApplyCounts,
    *,
    target_key: str,
    now: str,
    gate: TrustGate,
    authors: dict[tuple[str, int], str] | None = None,
) -> None:
    """Apply remote mutations in order inside the caller's write transaction (the git
    importer and the cloud client share this); a missing parent defers the mutation, one
    ``gate`` refuses is counted ``refused`` and never applied."""
    applier = Applier(
        conn, sync_journal.device_id(conn), now, sync_journal.last_seq(conn), gate, authors or {}
    )
    applier.prefetch(mutations)
    for mutation in mutations:
        try:
            counts.add(applier.apply(mutation))
        except MissingParent as missing:
            _defer(conn, mutation, str(missing), now, target_key)
            counts.add("deferred")
    applier.finish()


def _defer(conn: Any, mutation: Mutation, error: str, now: str, target_key: str) -> None:
    sync_deferred.defer(
        conn,
        target_key=target_key,
        origin=mutation.origin,
        remote_seq=mutation.seq,
        entity=mutation.entity,
        entity_key=mutation.key,
        op=mutation.op,
        project=mutation.project,
        line=mutation.to_json(),
        error=error,
        now=now,
    )


def retry_deferred(store: Store, report: ImportReport | None = None) -> ImportReport:
    """Retry every ``deferred`` row: rows that apply leave the queue (passes repeat while
    some succeed, so a row waiting on another deferred row follows it); each call counts one
    failure for a row still waiting, and the fifth makes it ``dead``."""
    report = report if report is not None else ImportReport()
    now = stamp()
    with store.write() as conn:
        waiting = sync_deferred.waiting(conn)
        if not waiting:
            return report
        report.retried += len(waiting)
        applier = Applier(
            conn, sync_journal.device_id(conn), now, sync_journal.last_seq(conn), _ANY
        )
        errors: dict[int, str] = {}
        progress = True
        while waiting and progress:
            progress, still = False, []
            for row in waiting:
                error = _retry_one(applier, row.line, _transport(row.target_key))
                if error is None:
                    sync_deferred.mark_applied(conn, row.id, now)
                    report.recovered += 1
                    progress = True
                else:
                    errors[row.id] = error
                    still.append(row)
            waiting = still
        for row in waiting:
            report.dead += sync_deferred.mark_failed(conn, row.id, errors[row.id], now)
        applier.finish()
    return report


_ANY = TrustGate(frozenset(), "git")


def _transport(target_key: str) -> str:
    """The transport a deferred row arrived by: the git folder, else a cloud remote."""
    return "git" if target_key == GIT_TARGET else "cloud"


def _retry_one(applier: Applier, line: str, transport: str) -> str | None:
    """Apply one queued mutation line; the error that keeps it waiting, or None.

    It passed its transport's gate when it was queued; here its project is trusted but the
    row rules (payload project, the row it changes) still hold."""
    try:
        mutation = parse_mutation(json.loads(line))
        applier.gate = TrustGate(frozenset({mutation.project}), transport)
        if applier.apply(mutation) == "refused":
            return f"refused: it would change a row of another project than {mutation.project!r}"
    except MissingParent as missing:
        return str(missing)
    except ValueError as exc:  # not JSON, or a MalformedMutation
        return f"malformed: {exc}"
    return None
