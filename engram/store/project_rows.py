"""SQL that lists one project's rows by id, for whole-project deletes and prunes.

The deletes themselves reuse the per-row statements (:mod:`engram.store.observations`,
:mod:`engram.store.prompts`, :mod:`engram.store.removal`), so every rule that applies to one row
(prompt tombstones, a session only goes when nothing refers to it) applies to a whole project.
"""

from __future__ import annotations

import sqlite3


def observation_ids(conn: sqlite3.Connection, project: str, *, live_only: bool) -> list[int]:
    """Ids of the project's observations (only the not soft-deleted ones with ``live_only``)."""
    sql = "SELECT id FROM observations WHERE project = ?"
    if live_only:
        sql += " AND deleted_at IS NULL"
    return [int(row[0]) for row in conn.execute(sql + " ORDER BY id", (project,))]


def prompt_ids(conn: sqlite3.Connection, project: str) -> list[int]:
    """Ids of the project's prompts."""
    rows = conn.execute("SELECT id FROM user_prompts WHERE project = ? ORDER BY id", (project,))
    return [int(row[0]) for row in rows]


def session_ids(conn: sqlite3.Connection, project: str) -> list[str]:
    """Ids of the project's sessions."""
    rows = conn.execute("SELECT id FROM sessions WHERE project = ? ORDER BY id", (project,))
    return [str(row[0]) for row in rows]


def observation_total(conn: sqlite3.Connection, project: str) -> int:
    """Every observation of the project, soft-deleted ones included."""
    row = conn.execute("SELECT count(*) FROM observations WHERE project = ?", (project,)).fetchone()
    return int(row[0])
