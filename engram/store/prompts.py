"""SQL for ``user_prompts`` (and ``prompt_tombstones``). Each function takes an open connection."""

from __future__ import annotations

import sqlite3

from engram.store.fts import MatchQuery
from engram.store.records import Prompt, from_row, new_sync_id


def insert(
    conn: sqlite3.Connection, *, session_id: str | None, content: str, project: str, now: str
) -> int:
    """Insert a prompt; return its id."""
    cursor = conn.execute(
        "INSERT INTO user_prompts (sync_id, session_id, content, project, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (new_sync_id("prompt"), session_id, content, project, now),
    )
    return int(cursor.lastrowid or 0)


def get(conn: sqlite3.Connection, prompt_id: int) -> Prompt | None:
    """The prompt with this id, or None."""
    row = conn.execute("SELECT * FROM user_prompts WHERE id = ?", (prompt_id,)).fetchone()
    return from_row(Prompt, row) if row else None


def recent(conn: sqlite3.Connection, *, project: str | None, limit: int = 10) -> list[Prompt]:
    """Newest prompts first (all projects when ``project`` is None)."""
    if project is None:
        rows = conn.execute(
            "SELECT * FROM user_prompts ORDER BY created_at DESC, id DESC LIMIT ?", (limit,)
        )
    else:
        rows = conn.execute(
            "SELECT * FROM user_prompts WHERE project = ? ORDER BY created_at DESC, id DESC"
            " LIMIT ?",
            (project, limit),
        )
    return [from_row(Prompt, row) for row in rows]


def search(
    conn: sqlite3.Connection, query: MatchQuery, *, project: str | None, limit: int = 10
) -> list[Prompt]:
    """Prompts matching ``query``, best bm25 first, over a bounded window of recent matches."""
    floor = query.rowid_floor(conn, "prompts_fts")
    params: list[object] = [query.expression, floor]
    sql = (
        "SELECT p.* FROM prompts_fts JOIN user_prompts p ON p.id = prompts_fts.rowid"
        " WHERE prompts_fts MATCH ? AND prompts_fts.rowid >= ?"
    )
    if project is not None:
        sql += " AND p.project = ?"
        params.append(project)
    sql += " ORDER BY bm25(prompts_fts, 1.0, 0.2) LIMIT ?"
    params.append(limit)
    return [from_row(Prompt, row) for row in conn.execute(sql, params)]


def delete(conn: sqlite3.Connection, prompt_id: int, now: str) -> bool:
    """Delete a prompt, leaving a tombstone of its sync_id; False if it did not exist."""
    prompt = get(conn, prompt_id)
    if prompt is None:
        return False
    conn.execute(
        "INSERT OR REPLACE INTO prompt_tombstones (sync_id, session_id, project, deleted_at)"
        " VALUES (?, ?, ?, ?)",
        (prompt.sync_id, prompt.session_id, prompt.project, now),
    )
    conn.execute("DELETE FROM user_prompts WHERE id = ?", (prompt_id,))
    return True


def count(conn: sqlite3.Connection, *, project: str | None = None) -> int:
    """How many prompts (in one project, or all)."""
    if project is None:
        return int(conn.execute("SELECT count(*) FROM user_prompts").fetchone()[0])
    return int(
        conn.execute("SELECT count(*) FROM user_prompts WHERE project = ?", (project,)).fetchone()[
            0
        ]
    )
