"""SQL for the ``sessions`` table. Each function takes an open connection.

An ended session (``ended_at`` set) is never reopened by anything in this module.
"""

from __future__ import annotations

import sqlite3

from engram.store.records import Session, from_row


def get(conn: sqlite3.Connection, session_id: str) -> Session | None:
    """The session with this id, or None."""
    row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return from_row(Session, row) if row else None


def create(
    conn: sqlite3.Connection,
    session_id: str,
    *,
    project: str,
    directory: str,
    now: str,
    ownership_mode: str = "shared",
) -> None:
    """Insert a new live session (the caller checked it does not exist)."""
    conn.execute(
        "INSERT INTO sessions (id, project, ownership_mode, directory, started_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (session_id, project, ownership_mode, directory, now),
    )


def adopt_project(conn: sqlite3.Connection, session_id: str, project: str) -> None:
    """Give an unowned (blank-project) session its project."""
    conn.execute(
        "UPDATE sessions SET project = ? WHERE id = ? AND project = ''", (project, session_id)
    )


def end(conn: sqlite3.Connection, session_id: str, *, summary: str | None, now: str) -> bool:
    """Set ``ended_at`` (and the summary when given) on a live session; False if not live."""
    cursor = conn.execute(
        "UPDATE sessions SET ended_at = ?, summary = COALESCE(?, summary)"
        " WHERE id = ? AND ended_at IS NULL",
        (now, summary, session_id),
    )
    return cursor.rowcount > 0


def set_summary(conn: sqlite3.Connection, session_id: str, summary: str) -> None:
    """Record a session summary without ending the session."""
    conn.execute("UPDATE sessions SET summary = ? WHERE id = ?", (summary, session_id))


def recent(conn: sqlite3.Connection, *, project: str | None, limit: int = 5) -> list[Session]:
    """Newest sessions first (all projects when ``project`` is None)."""
    if project is None:
        rows = conn.execute(
            "SELECT * FROM sessions ORDER BY started_at DESC, rowid DESC LIMIT ?", (limit,)
        )
    else:
        rows = conn.execute(
            "SELECT * FROM sessions WHERE project = ? ORDER BY started_at DESC, rowid DESC LIMIT ?",
            (project, limit),
        )
    return [from_row(Session, row) for row in rows]


def count(conn: sqlite3.Connection, *, project: str | None = None) -> int:
    """How many sessions (in one project, or all)."""
    if project is None:
        return int(conn.execute("SELECT count(*) FROM sessions").fetchone()[0])
    return int(
        conn.execute("SELECT count(*) FROM sessions WHERE project = ?", (project,)).fetchone()[0]
    )


def renew_lease(conn: sqlite3.Connection, session_id: str, *, until: str) -> None:
    """Set a session's local runtime lease (liveness evidence for ``engram serve`` only)."""
    conn.execute(
        "UPDATE sessions SET runtime_lease_expires_at = ? WHERE id = ?", (until, session_id)
    )


def lease_of(conn: sqlite3.Connection, session_id: str) -> str | None:
    """A session's ``runtime_lease_expires_at`` (None when it never had one)."""
    row = conn.execute(
        "SELECT runtime_lease_expires_at FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return row[0] if row else None


def continuations(conn: sqlite3.Connection, root: str) -> list[Session]:
    """Every session whose id starts with ``<root>:resume:`` (any suffix; the caller filters)."""
    prefix = f"{root}:resume:"
    rows = conn.execute("SELECT * FROM sessions WHERE substr(id, 1, ?) = ?", (len(prefix), prefix))
    return [from_row(Session, row) for row in rows]


def observation_ids(conn: sqlite3.Connection, session_id: str, *, limit: int) -> list[int]:
    """Ids of a session's live observations, newest first."""
    rows = conn.execute(
        "SELECT id FROM observations WHERE session_id = ? AND deleted_at IS NULL"
        " ORDER BY id DESC LIMIT ?",
        (session_id, limit),
    )
    return [int(row[0]) for row in rows]


def live_in_directory(
    conn: sqlite3.Connection, *, project: str, directory: str, manual_prefix: str
) -> list[tuple[str, str | None, str]]:
    """Live (not ended) sessions of ``project`` started in ``directory``, excluding the
    manual-save sessions (ids starting ``manual_prefix``).

    Each row is ``(id, runtime_lease_expires_at, last_activity)`` where the activity is the
    latest observation's ``created_at``, else the session's ``started_at``.
    """
    rows = conn.execute(
        "SELECT s.id, s.runtime_lease_expires_at,"
        " COALESCE((SELECT max(o.created_at) FROM observations o WHERE o.session_id = s.id),"
        " s.started_at)"
        " FROM sessions s WHERE s.project = ? AND s.directory = ? AND s.ended_at IS NULL"
        " AND substr(s.id, 1, ?) != ?",
        (project, directory, len(manual_prefix), manual_prefix),
    )
    return [(str(r[0]), r[1], str(r[2])) for r in rows]
