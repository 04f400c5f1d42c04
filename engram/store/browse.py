"""SQL for browsing page by page: observation and session lists, bounded counts, export walks.

Every list here reads one page (``LIMIT ? OFFSET ?``) through an index that already holds
the order, and every count stops at a cap, so the cost of a page does not grow with the
size of the store. "Active" sessions are passed in by the caller (a short list of ids).
"""

from __future__ import annotations

import sqlite3

from engram.store.records import Observation, Session, field_names, from_rows

_COLUMNS = ", ".join(field_names(Observation))
_SESSION_COLUMNS = ", ".join(field_names(Session))


def _marks(values: list[str]) -> str:
    return ",".join("?" * len(values))


def active_session_ids(
    conn: sqlite3.Connection, *, project: str | None, since: str, limit: int
) -> list[str]:
    """Sessions not ended and started at or after ``since``, newest first (at most ``limit``)."""
    where = "ended_at IS NULL AND started_at >= ?"
    params: list[object] = [since]
    if project is not None:
        where += " AND project = ?"
        params.append(project)
    rows = conn.execute(
        f"SELECT id FROM sessions WHERE {where} ORDER BY started_at DESC, rowid DESC LIMIT ?",
        [*params, limit],
    )
    return [str(row[0]) for row in rows]


def count_in_sessions(conn: sqlite3.Connection, session_ids: list[str]) -> int:
    """Live observations recorded in any of these sessions."""
    if not session_ids:
        return 0
    return int(
        conn.execute(
            "SELECT count(*) FROM observations"
            f" WHERE session_id IN ({_marks(session_ids)}) AND deleted_at IS NULL",
            session_ids,
        ).fetchone()[0]
    )


def in_sessions_page(
    conn: sqlite3.Connection, session_ids: list[str], *, offset: int, limit: int
) -> list[Observation]:
    """One page of the live observations of these sessions, newest first."""
    if not session_ids or limit <= 0:
        return []
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM observations"
        f" WHERE session_id IN ({_marks(session_ids)}) AND deleted_at IS NULL"
        " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
        [*session_ids, limit, offset],
    )
    return from_rows(Observation, rows)


def outside_sessions_page(
    conn: sqlite3.Connection,
    session_ids: list[str],
    *,
    project: str | None,
    offset: int,
    limit: int,
) -> list[Observation]:
    """One page of live observations not in these sessions, newest first."""
    if limit <= 0:
        return []
    where = "deleted_at IS NULL"
    params: list[object] = []
    if project is not None:
        where += " AND project = ?"
        params.append(project)
    if session_ids:
        where += f" AND (session_id IS NULL OR session_id NOT IN ({_marks(session_ids)}))"
        params.extend(session_ids)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM observations WHERE {where}"
        " ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    )
    return from_rows(Observation, rows)


def count_live_capped(conn: sqlite3.Connection, *, project: str | None, cap: int) -> int:
    """Live observations (of one project, or all), counting no further than ``cap + 1``."""
    where, params = ("deleted_at IS NULL", [])
    if project is not None:
        where, params = ("deleted_at IS NULL AND project = ?", [project])
    sql = f"SELECT count(*) FROM (SELECT 1 FROM observations WHERE {where} LIMIT ?)"
    return int(conn.execute(sql, [*params, cap + 1]).fetchone()[0])


def count_sessions_capped(conn: sqlite3.Connection, *, project: str | None, cap: int) -> int:
    """Sessions (of one project, or all), counting no further than ``cap + 1``."""
    where, params = ("1", [])
    if project is not None:
        where, params = ("project = ?", [project])
    sql = f"SELECT count(*) FROM (SELECT 1 FROM sessions WHERE {where} LIMIT ?)"
    return int(conn.execute(sql, [*params, cap + 1]).fetchone()[0])


def sessions_by_ids(conn: sqlite3.Connection, session_ids: list[str]) -> list[Session]:
    """These sessions, in the order of ``session_ids`` (missing ones left out)."""
    if not session_ids:
        return []
    rows = conn.execute(
        f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id IN ({_marks(session_ids)})",
        session_ids,
    )
    found = {s.id: s for s in from_rows(Session, rows)}
    return [found[sid] for sid in session_ids if sid in found]


def sessions_page(
    conn: sqlite3.Connection,
    session_ids: list[str],
    *,
    project: str | None,
    offset: int,
    limit: int,
) -> list[Session]:
    """One page of sessions other than ``session_ids``, newest first."""
    if limit <= 0:
        return []
    where = "1"
    params: list[object] = []
    if project is not None:
        where = "project = ?"
        params.append(project)
    if session_ids:
        where += f" AND id NOT IN ({_marks(session_ids)})"
        params.extend(session_ids)
    rows = conn.execute(
        f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE {where}"
        " ORDER BY started_at DESC, rowid DESC LIMIT ? OFFSET ?",
        [*params, limit, offset],
    )
    return from_rows(Session, rows)


def session_page(
    conn: sqlite3.Connection, session_id: str, *, offset: int, limit: int
) -> list[Observation]:
    """One page of a session's live observations, in the order they were recorded."""
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM observations WHERE session_id = ? AND deleted_at IS NULL"
        " ORDER BY id LIMIT ? OFFSET ?",
        (session_id, limit, offset),
    )
    return from_rows(Observation, rows)


def count_in_session(conn: sqlite3.Connection, session_id: str, *, cap: int) -> int:
    """A session's live observations, counting no further than ``cap + 1``."""
    return int(
        conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM observations"
            " WHERE session_id = ? AND deleted_at IS NULL LIMIT ?)",
            (session_id, cap + 1),
        ).fetchone()[0]
    )


def live_after(
    conn: sqlite3.Connection,
    *,
    project: str | None,
    after_id: int,
    limit: int,
    since: str | None = None,
) -> list[Observation]:
    """The next ``limit`` live observations with an id above ``after_id`` (and created at or
    after ``since``, a store timestamp), by id (a walk)."""
    where = "id > ? AND deleted_at IS NULL"
    params: list[object] = [after_id]
    if project is not None:
        where += " AND project = ?"
        params.append(project)
    if since is not None:
        where += " AND created_at >= ?"
        params.append(since)
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM observations WHERE {where} ORDER BY id LIMIT ?",
        [*params, limit],
    )
    return from_rows(Observation, rows)


def sessions_after(
    conn: sqlite3.Connection, *, project: str | None, after_id: str, limit: int
) -> list[Session]:
    """The next ``limit`` sessions with an id above ``after_id``, by id (a walk)."""
    where = "id > ?"
    params: list[object] = [after_id]
    if project is not None:
        where += " AND project = ?"
        params.append(project)
    rows = conn.execute(
        f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE {where} ORDER BY id LIMIT ?",
        [*params, limit],
    )
    return from_rows(Session, rows)


def session_titles(conn: sqlite3.Connection, session_id: str) -> list[tuple[int, str, str]]:
    """(id, title, project) of every live observation of a session, in recorded order."""
    rows = conn.execute(
        "SELECT id, title, project FROM observations WHERE session_id = ? AND deleted_at IS NULL"
        " ORDER BY id",
        (session_id,),
    )
    return [(int(row[0]), str(row[1]), str(row[2])) for row in rows]


def topic_members(
    conn: sqlite3.Connection, *, project: str | None, after: tuple[str, str, int], limit: int
) -> list[tuple[str, str, int, str]]:
    """(project, topic_key, id, title) of live observations with a topic key, walked in
    (project, topic_key, id) order after the ``after`` key."""
    where = "topic_key IS NOT NULL AND deleted_at IS NULL AND (project, topic_key, id) > (?, ?, ?)"
    params: list[object] = list(after)
    if project is not None:
        where += " AND project = ?"
        params.append(project)
    rows = conn.execute(
        f"SELECT project, topic_key, id, title FROM observations WHERE {where}"
        " ORDER BY project, topic_key, id LIMIT ?",
        [*params, limit],
    )
    return [(str(r[0]), str(r[1]), int(r[2]), str(r[3])) for r in rows]
