"""The conflict audit: list, show and count the relations memories hold about each other.

One implementation for ``engram conflicts``, the HTTP ``/conflicts`` routes and any tool.
Relations come from save-time surfacing (:mod:`engram.memory.relations`), agent verdicts
(``mem_judge``, ``mem_compare``) and scans (:mod:`engram.memory.conflict_scan`).
``not_conflict`` verdicts suppress future scans and never appear here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engram.errors import EngramError
from engram.memory.clock import stamp
from engram.store import conflicts as sql
from engram.store.db import Store

STATUSES = ("pending", "judged", "orphaned", "ignored")
LIST_DEFAULT = 50
LIST_MAX = 500
SNIPPET_CHARS = 300


def clamp_list_limit(limit: int | None) -> int:
    """The seed's list limit: default 50 for a missing or non-positive value, at most 500."""
    if limit is None or limit <= 0:
        return LIST_DEFAULT
    return min(limit, LIST_MAX)


def check_status(status: str | None) -> str | None:
    """``status`` when it is a judgment status (or None), else ``conflicts.bad_status``."""
    if status is None or status == "":
        return None
    if status not in STATUSES:
        raise EngramError(
            "conflicts.bad_status",
            f"unknown judgment status {status!r}",
            f"use one of: {', '.join(STATUSES)}",
        )
    return status


def parse_since(since: str | None) -> str | None:
    """An RFC 3339 timestamp as the store's UTC stamp, or ``conflicts.bad_since``."""
    if since is None or since.strip() == "":
        return None
    text = since.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise EngramError(
            "conflicts.bad_since",
            f"since {since!r} is not an RFC 3339 timestamp",
            "pass a time like 2026-01-15T12:00:00Z",
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return stamp(moment)


def _snippet(text: str | None) -> str | None:
    if text is None:
        return None
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1] + "…"


@dataclass(frozen=True, slots=True)
class ConflictSummary:
    """One row of a conflict list."""

    view: sql.RelationView

    def to_dict(self) -> dict[str, Any]:
        """The seed's list row."""
        rel = self.view.relation
        return {
            "id": rel.id,
            "sync_id": rel.sync_id,
            "relation": rel.relation,
            "judgment_status": rel.judgment_status,
            "project": self.view.project,
            "source_id": rel.source_id,
            "source_title": self.view.source_title,
            "target_id": rel.target_id,
            "target_title": self.view.target_title,
            "created_at": rel.created_at,
            "updated_at": rel.updated_at,
        }


@dataclass(frozen=True, slots=True)
class ConflictPage:
    """A page of conflict-facing relations and the total matching the filters."""

    total: int
    limit: int
    offset: int
    relations: tuple[ConflictSummary, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{total, limit, offset, relations: [...]}`` (relations is ``[]``, never null)."""
        return {
            "total": self.total,
            "limit": self.limit,
            "offset": self.offset,
            "relations": [row.to_dict() for row in self.relations],
        }


@dataclass(frozen=True, slots=True)
class ConflictDetail:
    """One relation in full, with snippets of both memories."""

    view: sql.RelationView

    def to_dict(self) -> dict[str, Any]:
        """Every relation column plus both ends' ids, titles and snippets."""
        view = self.view
        return {
            **view.relation.to_dict(),
            "project": view.project,
            "source_observation_id": view.source_obs_id,
            "source_title": view.source_title,
            "source_snippet": _snippet(view.source_content),
            "target_observation_id": view.target_obs_id,
            "target_title": view.target_title,
            "target_snippet": _snippet(view.target_content),
        }


@dataclass(frozen=True, slots=True)
class ConflictStats:
    """Counts for one project (or every project when ``project`` is None)."""

    project: str | None
    by_relation: dict[str, int]
    by_judgment_status: dict[str, int]
    deferred: int
    dead: int

    def to_dict(self) -> dict[str, Any]:
        """The seed's stats envelope."""
        return {
            "project": self.project,
            "by_relation": self.by_relation,
            "by_judgment_status": self.by_judgment_status,
            "deferred": self.deferred,
            "dead": self.dead,
        }


def list_conflicts(
    store: Store,
    *,
    project: str | None,
    status: str | None = None,
    since: str | None = None,
    limit: int | None = None,
    offset: int = 0,
) -> ConflictPage:
    """Relations that may be conflicts, newest first.

    Args:
        project: one project (None: every project).
        status: a judgment status (pending, judged, orphaned, ignored).
        since: RFC 3339; only relations created at or after it.
        limit: default 50, silently clamped to 500. offset: rows to skip (negative: 0).

    Raises:
        EngramError: ``conflicts.bad_status``, ``conflicts.bad_since``.
    """
    wanted = check_status(status)
    after = parse_since(since)
    size = clamp_list_limit(limit)
    start = max(offset, 0)
    with store.read() as conn:
        total, rows = sql.list_relations(
            conn, project=project, status=wanted, since=after, limit=size, offset=start
        )
    return ConflictPage(total, size, start, tuple(ConflictSummary(row) for row in rows))


def show_conflict(store: Store, relation_id: int) -> ConflictDetail:
    """One relation by its numeric id.

    Raises:
        EngramError: ``conflicts.not_found``.
    """
    with store.locked() as conn:
        view = sql.get_view(conn, relation_id) if 0 < relation_id < 2**63 else None
    if view is None:
        raise EngramError(
            "conflicts.not_found",
            f"relation {relation_id} not found",
            "list relations with `engram conflicts list`",
            relation_id=relation_id,
        )
    return ConflictDetail(view)


def conflict_stats(store: Store, *, project: str | None) -> ConflictStats:
    """Counts by relation and judgment status, plus the sync queue's deferred and dead rows."""
    with store.read() as conn:
        by_relation, by_status = sql.counts(conn, project=project)
        deferred, dead = sql.deferred_counts(conn)
    return ConflictStats(project, by_relation, by_status, deferred, dead)
