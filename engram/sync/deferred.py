"""The deferred queue seen by a maintainer: list, inspect and replay pulled mutations that
wait for a parent (``engram conflicts deferred``, ``GET /conflicts/deferred``).

A row is ``deferred`` (retried on every import and replay), ``applied`` (a retry succeeded)
or ``dead`` (five retries failed; no longer retried automatically).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engram.errors import EngramError
from engram.memory.conflicts import clamp_list_limit
from engram.store import sync_deferred
from engram.store.db import Store
from engram.sync.importer import retry_deferred

STATUSES = ("deferred", "dead", "applied")


def _check_status(status: str | None) -> str | None:
    if status is None or status == "":
        return None
    if status not in STATUSES:
        raise EngramError(
            "sync.bad_deferred_status",
            f"unknown deferred status {status!r}",
            f"use one of: {', '.join(STATUSES)}",
        )
    return status


def _row_dict(conn: Any, row: sync_deferred.DeferredRow) -> dict[str, Any]:
    try:
        decoded = json.loads(row.line)
    except json.JSONDecodeError:
        decoded = None
    valid = isinstance(decoded, dict) and isinstance(decoded.get("payload"), dict)
    payload = None
    if valid:
        assert isinstance(decoded, dict)
        payload = {"project": decoded.get("project"), **decoded["payload"]}
    return {
        "sync_id": row.entity_key,
        "entity": row.entity,
        "payload": payload,
        "payload_raw": row.line,
        "payload_valid": valid,
        "apply_status": row.apply_status,
        "retry_count": row.retry_count,
        "last_error": row.last_error,
        "last_attempted_at": sync_deferred.last_attempted(conn, row.id),
        "first_seen_at": row.first_seen_at,
    }


@dataclass(frozen=True, slots=True)
class DeferredPage:
    """One page of the queue."""

    total: int
    limit: int
    rows: tuple[dict[str, Any], ...]

    def to_dict(self) -> dict[str, Any]:
        """The seed's envelope ``{total, limit, rows}`` (offset is not echoed)."""
        return {"total": self.total, "limit": self.limit, "rows": list(self.rows)}


def list_deferred(
    store: Store, *, status: str | None = None, limit: int | None = None, offset: int = 0
) -> DeferredPage:
    """Queued rows oldest first (default 50, at most 500).

    Raises:
        EngramError: ``sync.bad_deferred_status``.
    """
    wanted = _check_status(status)
    size = clamp_list_limit(limit)
    with store.read() as conn:
        total, rows = sync_deferred.page(conn, status=wanted, limit=size, offset=max(offset, 0))
        shaped = tuple(_row_dict(conn, row) for row in rows)
    return DeferredPage(total, size, shaped)


def inspect_deferred(store: Store, sync_id: str) -> dict[str, Any]:
    """One queued row by the sync id of the entity it carries.

    Raises:
        EngramError: ``sync.deferred_not_found``.
    """
    with store.read() as conn:
        row = sync_deferred.by_entity_key(conn, sync_id.strip())
        if row is not None:
            return _row_dict(conn, row)
    raise EngramError(
        "sync.deferred_not_found",
        f"no deferred row for {sync_id!r}",
        "list the queue with `engram conflicts deferred`",
        sync_id=sync_id,
    )


def replay_deferred(store: Store) -> dict[str, int]:
    """Retry every ``deferred`` row now: ``{retried, succeeded, failed, dead}`` (``failed``
    rows stay queued; ``dead`` ones reached the retry cap in this replay)."""
    report = retry_deferred(store)
    return {
        "retried": report.retried,
        "succeeded": report.recovered,
        "failed": report.retried - report.recovered - report.dead,
        "dead": report.dead,
    }
