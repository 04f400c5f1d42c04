"""SQL for ``sync_apply_deferred``: pulled mutations waiting for a parent that is not local yet.

``apply_status`` is ``deferred`` (retried on every import), ``applied`` (a retry succeeded)
or ``dead`` (it failed :data:`RETRY_CAP` retries and is no longer retried automatically).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

RETRY_CAP = 5


@dataclass(frozen=True, slots=True)
class DeferredRow:
    """One waiting mutation (``line`` is the mutation's JSON line)."""

    id: int
    origin: str
    remote_seq: int
    entity: str
    entity_key: str
    line: str
    retry_count: int
    apply_status: str
    last_error: str | None
    first_seen_at: str
    target_key: str = "git"


def defer(
    conn: sqlite3.Connection,
    *,
    target_key: str,
    origin: str,
    remote_seq: int,
    entity: str,
    entity_key: str,
    op: str,
    project: str,
    line: str,
    error: str,
    now: str,
) -> None:
    """Queue a mutation whose parent is missing (once per origin and seq)."""
    conn.execute(
        "INSERT OR IGNORE INTO sync_apply_deferred (target_key, origin, remote_seq, entity,"
        " entity_key, op, project, payload, last_error, first_seen_at, last_attempted_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (target_key, origin, remote_seq, entity, entity_key, op, project, line, error, now, now),
    )


def waiting(conn: sqlite3.Connection) -> list[DeferredRow]:
    """Every ``deferred`` row, oldest version first."""
    return _rows(conn, "WHERE apply_status = 'deferred' ORDER BY remote_seq, origin", ())


def listing(conn: sqlite3.Connection, *, status: str | None, limit: int) -> list[DeferredRow]:
    """Rows of one status (all when None), oldest first."""
    if status is None:
        return _rows(conn, "ORDER BY id LIMIT ?", (limit,))
    return _rows(conn, "WHERE apply_status = ? ORDER BY id LIMIT ?", (status, limit))


def _rows(conn: sqlite3.Connection, tail: str, params: tuple[object, ...]) -> list[DeferredRow]:
    cursor = conn.execute(
        "SELECT id, origin, remote_seq, entity, entity_key, payload, retry_count, apply_status,"
        f" last_error, first_seen_at, target_key FROM sync_apply_deferred {tail}",
        params,
    )
    return [DeferredRow(*row) for row in cursor]


def mark_applied(conn: sqlite3.Connection, row_id: int, now: str) -> None:
    """A retry succeeded."""
    conn.execute(
        "UPDATE sync_apply_deferred SET apply_status = 'applied', last_error = NULL,"
        " last_attempted_at = ? WHERE id = ?",
        (now, row_id),
    )


def mark_failed(conn: sqlite3.Connection, row_id: int, error: str, now: str) -> bool:
    """A retry failed: count it; True when the row is now ``dead``."""
    conn.execute(
        "UPDATE sync_apply_deferred SET retry_count = retry_count + 1, last_error = ?,"
        " last_attempted_at = ?,"
        " apply_status = CASE WHEN retry_count + 1 >= ? THEN 'dead' ELSE 'deferred' END"
        " WHERE id = ?",
        (error, now, RETRY_CAP, row_id),
    )
    row = conn.execute(
        "SELECT apply_status FROM sync_apply_deferred WHERE id = ?", (row_id,)
    ).fetchone()
    return bool(row and row[0] == "dead")


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Rows per status (``deferred``, ``applied``, ``dead``; zero when none)."""
    found = {"deferred": 0, "applied": 0, "dead": 0}
    for status, number in conn.execute(
        "SELECT apply_status, count(*) FROM sync_apply_deferred GROUP BY apply_status"
    ):
        found[str(status)] = int(number)
    return found


def page(
    conn: sqlite3.Connection, *, status: str | None, limit: int, offset: int
) -> tuple[int, list[DeferredRow]]:
    """``(total of that status, one page oldest first)`` (every status when None)."""
    where, params = ("WHERE apply_status = ?", (status,)) if status else ("", ())
    total = conn.execute(f"SELECT count(*) FROM sync_apply_deferred {where}", params).fetchone()
    rows = _rows(conn, f"{where} ORDER BY id LIMIT ? OFFSET ?", (*params, limit, offset))
    return int(total[0]), rows


def by_entity_key(conn: sqlite3.Connection, entity_key: str) -> DeferredRow | None:
    """The newest queued row for one entity (its sync id), or None."""
    rows = _rows(conn, "WHERE entity_key = ? ORDER BY id DESC LIMIT 1", (entity_key,))
    return rows[0] if rows else None


def last_attempted(conn: sqlite3.Connection, row_id: int) -> str | None:
    """When the row was last tried."""
    row = conn.execute(
        "SELECT last_attempted_at FROM sync_apply_deferred WHERE id = ?", (row_id,)
    ).fetchone()
    return str(row[0]) if row and row[0] is not None else None
