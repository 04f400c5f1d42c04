"""SQL for the ``observations`` table. Each function takes an open connection.

Writers expect to run inside :meth:`engram.store.db.Store.write`; they never commit.
"Live" means ``deleted_at IS NULL``. Timestamps are passed in (``now``) so the memory layer
owns the clock.
"""

from __future__ import annotations

import sqlite3

from engram.store.records import Observation, field_names, from_row, from_rows, new_sync_id, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# The record's columns, named: ``SELECT *`` would also compute the generated search_keys.
_COLUMNS = ", ".join(field_names(Observation))

# Columns an update may change; everything else is store-managed.
UPDATABLE_COLUMNS = frozenset(
    {"title", "content", "type", "scope", "topic_key", "tool_name", "normalized_hash", "project"}
)


@record
class NewObservation:
    """What a save inserts."""

    session_id: str | None
    type: str
    title: str
    content: str
    project: str
    scope: str
    normalized_hash: str
    tool_name: str | None = None
    topic_key: str | None = None
    review_after: str | None = None
    sync_id: str | None = None


_INSERT = (
    "INSERT INTO observations (sync_id, session_id, type, title, content, tool_name, project,"
    " scope, topic_key, normalized_hash, last_seen_at, review_after, created_at, updated_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def insert(conn: sqlite3.Connection, new: NewObservation, now: str) -> int:
    """Insert a live observation; return its id."""
    return int(conn.execute(_INSERT, _values(new, now)).lastrowid or 0)


def insert_returning(conn: sqlite3.Connection, new: NewObservation, now: str) -> Observation:
    """Insert a live observation and return it as stored (no second read)."""
    row = conn.execute(f"{_INSERT} RETURNING {_COLUMNS}", _values(new, now)).fetchone()
    return from_row(Observation, row)


def _values(new: NewObservation, now: str) -> tuple[object, ...]:
    return (
        new.sync_id or new_sync_id("obs"),
        new.session_id,
        new.type,
        new.title,
        new.content,
        new.tool_name,
        new.project,
        new.scope,
        new.topic_key,
        new.normalized_hash,
        now,
        new.review_after,
        now,
        now,
    )


def get(
    conn: sqlite3.Connection, obs_id: int, *, include_deleted: bool = False
) -> Observation | None:
    """The observation with ``obs_id`` (None if missing, or soft-deleted unless asked)."""
    sql = f"SELECT {_COLUMNS} FROM observations WHERE id = ?"
    if not include_deleted:
        sql += " AND deleted_at IS NULL"
    row = conn.execute(sql, (obs_id,)).fetchone()
    return from_row(Observation, row) if row else None


def get_many(conn: sqlite3.Connection, ids: list[int]) -> dict[int, Observation]:
    """Live observations by id (missing ids are simply absent)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    cursor = conn.execute(
        f"SELECT {_COLUMNS} FROM observations WHERE id IN ({marks}) AND deleted_at IS NULL", ids
    )
    return {obs.id: obs for obs in from_rows(Observation, cursor)}


def find_duplicate(
    conn: sqlite3.Connection,
    *,
    normalized_hash: str,
    project: str,
    scope: str,
    type: str,
    title: str,
    since: str,
) -> Observation | None:
    """The newest live exact duplicate last seen at or after ``since``."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM observations"
        " WHERE normalized_hash = ? AND project = ? AND scope = ? AND type = ? AND title = ?"
        " AND deleted_at IS NULL AND last_seen_at >= ? ORDER BY id DESC LIMIT 1",
        (normalized_hash, project, scope, type, title, since),
    ).fetchone()
    return from_row(Observation, row) if row else None


def record_duplicate(conn: sqlite3.Connection, obs_id: int, now: str) -> None:
    """Count one more exact duplicate save of ``obs_id``."""
    conn.execute(
        "UPDATE observations SET duplicate_count = duplicate_count + 1, last_seen_at = ?"
        " WHERE id = ?",
        (now, obs_id),
    )


def find_topic(
    conn: sqlite3.Connection, *, project: str, scope: str, topic_key: str
) -> Observation | None:
    """The latest live observation with this project + scope + topic key."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM observations WHERE project = ? AND scope = ? AND topic_key = ?"
        " AND deleted_at IS NULL ORDER BY id DESC LIMIT 1",
        (project, scope, topic_key),
    ).fetchone()
    return from_row(Observation, row) if row else None


def revise(
    conn: sqlite3.Connection,
    obs_id: int,
    changes: Mapping[str, object],
    now: str,
    *,
    session_id: str | None = None,
    review_after: str | None = None,
) -> None:
    """Overwrite a topic's observation with a new revision (revision_count + 1)."""
    _check_columns(changes)
    sets = [f"{column} = ?" for column in changes]
    params: list[object] = list(changes.values())
    sets += ["revision_count = revision_count + 1", "last_seen_at = ?", "updated_at = ?"]
    params += [now, now]
    if session_id is not None:
        sets.append("session_id = ?")
        params.append(session_id)
    if review_after is not None:
        sets.append("review_after = ?")
        params.append(review_after)
    conn.execute(f"UPDATE observations SET {', '.join(sets)} WHERE id = ?", [*params, obs_id])


def update_fields(
    conn: sqlite3.Connection, obs_id: int, changes: Mapping[str, object], now: str
) -> None:
    """Set some columns of a live observation; bump ``updated_at`` and ``revision_count``."""
    _check_columns(changes)
    if not changes:
        return
    sets = ", ".join(f"{column} = ?" for column in changes)
    conn.execute(
        f"UPDATE observations SET {sets}, updated_at = ?, revision_count = revision_count + 1"
        " WHERE id = ? AND deleted_at IS NULL",
        [*changes.values(), now, obs_id],
    )


def _check_columns(changes: Mapping[str, object]) -> None:
    unknown = set(changes) - UPDATABLE_COLUMNS
    if unknown:
        raise ValueError(f"not updatable: {sorted(unknown)}")


def soft_delete(conn: sqlite3.Connection, obs_id: int, now: str) -> bool:
    """Mark deleted (search stops finding it); False if it was already gone."""
    cursor = conn.execute(
        "UPDATE observations SET deleted_at = ?, updated_at = ? WHERE id = ?"
        " AND deleted_at IS NULL",
        (now, now, obs_id),
    )
    return cursor.rowcount > 0


def hard_delete(conn: sqlite3.Connection, obs_id: int) -> bool:
    """Remove the row for good; False if there was none.

    Relations that pointed at it stay as ``orphaned`` audit rows (an export of the store then
    still re-imports: orphaned relations may name observations that no longer exist).
    """
    conn.execute(
        "WITH gone(sync_id) AS (SELECT sync_id FROM observations WHERE id = ?)"
        " UPDATE memory_relations SET judgment_status = 'orphaned',"
        " updated_at = strftime('%Y-%m-%d %H:%M:%S', 'now')"
        " WHERE judgment_status != 'orphaned'"
        " AND (source_id IN (SELECT sync_id FROM gone) OR target_id IN (SELECT sync_id FROM gone))",
        (obs_id,),
    )
    return conn.execute("DELETE FROM observations WHERE id = ?", (obs_id,)).rowcount > 0


def set_pinned(conn: sqlite3.Connection, obs_id: int, pinned: bool) -> bool:
    """Pin or unpin (local-only: ``updated_at`` is not touched); False if missing."""
    cursor = conn.execute(
        "UPDATE observations SET pinned = ? WHERE id = ? AND deleted_at IS NULL",
        (1 if pinned else 0, obs_id),
    )
    return cursor.rowcount > 0


def set_review_after(conn: sqlite3.Connection, obs_id: int, review_after: str | None) -> bool:
    """Reset the review clock (local-only: ``updated_at`` is not touched); False if missing."""
    cursor = conn.execute(
        "UPDATE observations SET review_after = ? WHERE id = ? AND deleted_at IS NULL",
        (review_after, obs_id),
    )
    return cursor.rowcount > 0


def _scope_filter(project: str | None, scope: str | None) -> tuple[str, list[object]]:
    clauses: list[str] = ["deleted_at IS NULL"]
    params: list[object] = []
    if project is not None:
        clauses.append("project = ?")
        params.append(project)
    if scope is not None:
        clauses.append("scope = ?")
        params.append(scope)
    return " AND ".join(clauses), params


def recent(
    conn: sqlite3.Connection,
    *,
    project: str | None,
    scope: str | None = None,
    limit: int = 20,
    exclude_pinned: bool = False,
) -> list[Observation]:
    """Newest live observations first."""
    where, params = _scope_filter(project, scope)
    if exclude_pinned:
        where += " AND pinned = 0"
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM observations WHERE {where}"
        " ORDER BY created_at DESC, id DESC LIMIT ?",
        [*params, limit],
    )
    return from_rows(Observation, rows)


def pinned(
    conn: sqlite3.Connection, *, project: str | None, scope: str | None = None, limit: int = 20
) -> list[Observation]:
    """Pinned live observations, most recently updated first."""
    where, params = _scope_filter(project, scope)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM observations WHERE {where} AND pinned = 1"
        " ORDER BY updated_at DESC, id DESC LIMIT ?",
        [*params, limit],
    )
    return from_rows(Observation, rows)


def due_for_review(
    conn: sqlite3.Connection, *, project: str | None, now: str, limit: int = 10
) -> list[Observation]:
    """Live observations whose ``review_after`` has passed, oldest due first."""
    where, params = _scope_filter(project, None)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM observations WHERE {where} AND review_after IS NOT NULL"
        " AND review_after <= ? ORDER BY review_after, id LIMIT ?",
        [*params, now, limit],
    )
    return from_rows(Observation, rows)


def session_neighbours(
    conn: sqlite3.Connection, *, session_id: str, obs_id: int, before: int, after: int
) -> tuple[list[Observation], list[Observation]]:
    """Up to ``before`` live observations preceding ``obs_id`` in its session, and ``after``
    following it, both in chronological order."""
    earlier = conn.execute(
        f"SELECT {_COLUMNS} FROM observations"
        " WHERE session_id = ? AND id < ? AND deleted_at IS NULL ORDER BY id DESC LIMIT ?",
        (session_id, obs_id, max(before, 0)),
    ).fetchall()
    later = conn.execute(
        f"SELECT {_COLUMNS} FROM observations"
        " WHERE session_id = ? AND id > ? AND deleted_at IS NULL ORDER BY id LIMIT ?",
        (session_id, obs_id, max(after, 0)),
    ).fetchall()
    return (
        [from_row(Observation, row) for row in reversed(earlier)],
        [from_row(Observation, row) for row in later],
    )


def count_live(conn: sqlite3.Connection, *, project: str | None = None) -> int:
    """How many live observations (in one project, or all)."""
    where, params = _scope_filter(project, None)
    return int(
        conn.execute(f"SELECT count(*) FROM observations WHERE {where}", params).fetchone()[0]
    )


def exists_with_hash(
    conn: sqlite3.Connection, *, normalized_hash: str, project: str, type: str
) -> bool:
    """Whether a live observation of this project and type has this content hash."""
    row = conn.execute(
        "SELECT 1 FROM observations WHERE normalized_hash = ? AND project = ? AND type = ?"
        " AND deleted_at IS NULL LIMIT 1",
        (normalized_hash, project, type),
    ).fetchone()
    return row is not None


def any_cites_code(conn: sqlite3.Connection, ids: list[int]) -> bool:
    """Whether any of the observations ``ids`` has a code citation (the context skips loading
    the citation checks when none has: the hook path pays for every module it imports)."""
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        found = conn.execute(
            f"SELECT 1 FROM code_citations WHERE observation_id IN ({marks}) LIMIT 1", chunk
        ).fetchone()
        if found is not None:
            return True
    return False
