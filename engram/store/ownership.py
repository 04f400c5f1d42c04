"""SQL for ownership repair: who owns a session / observation / prompt, and assigning owners.

A blank project (``''`` or only spaces) owns nothing, exactly like NULL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import NamedTuple


class Owner(NamedTuple):
    """A row's owner: its project (stripped; "" when unowned) and its session."""

    project: str
    session_id: str | None


def session_owner(conn: sqlite3.Connection, session_id: str) -> Owner | None:
    """The session's owner, or None when the session does not exist."""
    row = conn.execute("SELECT project FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return Owner((row[0] or "").strip(), session_id) if row else None


def observation_owner(conn: sqlite3.Connection, obs_id: int) -> Owner | None:
    """A live observation's owner, or None when it does not exist (or was deleted)."""
    row = conn.execute(
        "SELECT project, session_id FROM observations WHERE id = ? AND deleted_at IS NULL",
        (obs_id,),
    ).fetchone()
    return Owner((row[0] or "").strip(), row[1]) if row else None


def prompt_owner(conn: sqlite3.Connection, prompt_id: int) -> Owner | None:
    """A prompt's owner, or None when it does not exist."""
    row = conn.execute(
        "SELECT project, session_id FROM user_prompts WHERE id = ?", (prompt_id,)
    ).fetchone()
    return Owner((row[0] or "").strip(), row[1]) if row else None


def foreign_dependents(conn: sqlite3.Connection, session_id: str, project: str) -> bool:
    """Whether the session parents an observation or prompt owned by a project other than
    ``project``."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM observations WHERE session_id = :s"
        "   AND trim(project) != '' AND project != :p)"
        " OR EXISTS (SELECT 1 FROM user_prompts WHERE session_id = :s"
        "   AND trim(project) != '' AND project != :p)",
        {"s": session_id, "p": project},
    ).fetchone()
    return bool(row[0])


def dependent_projects(conn: sqlite3.Connection, session_id: str) -> list[str]:
    """The distinct non-blank projects of the observations and prompts a session parents."""
    rows = conn.execute(
        "SELECT project FROM observations WHERE session_id = :s AND trim(project) != ''"
        " UNION SELECT project FROM user_prompts WHERE session_id = :s AND trim(project) != ''"
        " ORDER BY 1",
        {"s": session_id},
    )
    return [str(row[0]) for row in rows]


def assign_sessions(conn: sqlite3.Connection, ids: Sequence[str], project: str) -> int:
    """Give unowned sessions their owner; returns how many changed."""
    return _assign(conn, "sessions", list(ids), project)


def assign_observations(conn: sqlite3.Connection, ids: Sequence[int], project: str) -> int:
    """Give unowned observations their owner; returns how many changed."""
    return _assign(conn, "observations", list(ids), project)


def assign_prompts(conn: sqlite3.Connection, ids: Sequence[int], project: str) -> int:
    """Give unowned prompts their owner; returns how many changed."""
    return _assign(conn, "user_prompts", list(ids), project)


def _assign(conn: sqlite3.Connection, table: str, ids: list[object], project: str) -> int:
    if table not in ("sessions", "observations", "user_prompts"):
        raise ValueError(f"unknown table {table!r}")
    changed = 0
    for row_id in ids:
        cursor = conn.execute(
            f"UPDATE {table} SET project = ? WHERE id = ? AND trim(project) = ''",
            (project, row_id),
        )
        changed += cursor.rowcount
    return changed


def unowned_sessions(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """``(id, directory)`` of every session that carries no project."""
    rows = conn.execute(
        "SELECT id, coalesce(directory, '') FROM sessions WHERE trim(coalesce(project, '')) = ''"
        " ORDER BY id"
    )
    return [(str(row[0]), str(row[1])) for row in rows]


def unowned_records_of(
    conn: sqlite3.Connection, session_ids: Sequence[str], project: str
) -> tuple[list[int], list[int]]:
    """Live observation ids and prompt ids that carry no project and whose session is one of
    ``session_ids`` or is owned by ``project``."""
    marks = ",".join("?" * len(session_ids)) or "NULL"
    found: list[list[int]] = []
    for table, live in (("observations", " AND r.deleted_at IS NULL"), ("user_prompts", "")):
        rows = conn.execute(
            f"SELECT r.id FROM {table} r LEFT JOIN sessions s ON s.id = r.session_id"
            f" WHERE trim(coalesce(r.project, '')) = ''{live}"
            f" AND (r.session_id IN ({marks}) OR s.project = ?) ORDER BY r.id",
            (*session_ids, project),
        )
        found.append([int(row[0]) for row in rows])
    return found[0], found[1]
