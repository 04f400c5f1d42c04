"""Sync status: what ``engram sync --status`` prints and ``GET /sync/status`` reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from engram.store import sync_deferred, sync_journal
from engram.store.db import Store
from engram.sync.export import ALL_PROJECTS
from engram.sync.gitdir import GIT_TARGET, SyncFolder


@dataclass(frozen=True, slots=True)
class SyncStatus:
    """Local sync state for one project (None: every project)."""

    project: str | None
    enabled: bool
    phase: str
    last_sync_at: str | None
    last_error: str | None
    consecutive_failures: int
    pending_mutations: int
    chunks_applied: int
    deferred_count: int
    dead_count: int
    revisions_kept: int
    repository_chunks: int | None = None
    repository_chunks_not_applied: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def local_status(store: Store, project: str | None) -> SyncStatus:
    """The store's sync state for ``project`` (None: every project); no files are read."""
    scope = project if project is not None else ALL_PROJECTS
    with store.read() as conn:
        cursor = sync_journal.cursor(conn, GIT_TARGET, scope)
        pending = sync_journal.count_pending(conn, after_seq=cursor, project=project)
        state = sync_journal.state(conn, GIT_TARGET) or {}
        applied = len(sync_journal.known_chunks(conn, GIT_TARGET))
        deferred = sync_deferred.counts(conn)
        revisions = sync_journal.revision_count(conn)
    failures = int(str(state.get("consecutive_failures") or 0))
    return SyncStatus(
        project=project,
        enabled=bool(state) or applied > 0 or cursor > 0,
        phase=str(state.get("lifecycle") or "idle"),
        last_sync_at=_text(state.get("last_sync_at")),
        last_error=_text(state.get("last_error")),
        consecutive_failures=failures,
        pending_mutations=pending,
        chunks_applied=applied,
        deferred_count=deferred["deferred"],
        dead_count=deferred["dead"],
        revisions_kept=revisions,
    )


def folder_status(store: Store, folder: SyncFolder, project: str | None) -> SyncStatus:
    """:func:`local_status` plus the repository's chunk counts."""
    local = local_status(store, project)
    with store.locked() as conn:
        known = sync_journal.known_chunks(conn, GIT_TARGET)
    in_repo = set(folder.chunk_files()) | {entry.id for entry in folder.manifest()}
    data = local.to_dict()
    data["repository_chunks"] = len(in_repo)
    data["repository_chunks_not_applied"] = len(in_repo - known)
    return SyncStatus(**data)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def runtime_status(store: Store, project: str) -> dict[str, Any]:
    """The ``GET /sync/status`` fields of one project (the provider ``engram serve`` installs).

    ``enabled`` is true when the project has sync state here: its mutations were exported,
    or chunks were applied, or sync recorded an error.
    """
    local = local_status(store, project)
    with store.read() as conn:
        exported = sync_journal.cursor(conn, GIT_TARGET, project) or sync_journal.cursor(
            conn, GIT_TARGET, ALL_PROJECTS
        )
    enabled = bool(exported or local.chunks_applied or local.last_error)
    failed = local.phase == "failed"
    return {
        "enabled": enabled,
        "phase": local.phase if enabled else "disabled",
        "last_error": local.last_error or "",
        "consecutive_failures": local.consecutive_failures,
        "backoff_until": None,
        "last_sync_at": local.last_sync_at,
        "reason_code": "transport_failed" if failed else "",
        "reason_message": (local.last_error or "") if failed else "",
        "deferred_count": local.deferred_count,
        "dead_count": local.dead_count,
        "pending_mutations": local.pending_mutations,
        "chunks_applied": local.chunks_applied,
        "revisions_kept": local.revisions_kept,
        "upgrade": {"stage": "", "reason_code": "", "reason_message": ""},
    }


def kept_revisions(store: Store, *, limit: int = 50) -> list[dict[str, Any]]:
    """Versions that lost a concurrent edit here, newest first, payloads decoded."""
    import json

    with store.read() as conn:
        rows = sync_journal.revisions(conn, limit=limit)
    return [{**row, "payload": json.loads(str(row["payload"]))} for row in rows]
