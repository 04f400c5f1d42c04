"""SQL for ``user_prompts`` (and ``prompt_tombstones``). Each function takes an open connection."""

from __future__ import annotations

import sqlite3

from engram.store.records import Prompt, field_names, from_row, new_sync_id

TYPE_CHECKING = False  # the hook path reads recent prompts and needs no FTS ranking
if TYPE_CHECKING:
    from engram.store.fts import MatchQuery

# The record's columns, named: ``SELECT *`` would also compute the generated search_keys.
_COLUMNS = ", ".join(field_names(Prompt))


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
    row = conn.execute(f"SELECT {_COLUMNS} FROM user_prompts WHERE id = ?", (prompt_id,)).fetchone()
    return from_row(Prompt, row) if row else None


def recent(conn: sqlite3.Connection, *, project: str | None, limit: int = 10) -> list[Prompt]:
    """Newest prompts first (all projects when ``project`` is None)."""
    if project is None:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM user_prompts ORDER BY created_at DESC, id DESC LIMIT ?",
            (limit,),
        )
    else:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM user_prompts WHERE project = ?"
            " ORDER BY created_at DESC, id DESC LIMIT ?",
            (project, limit),
        )
    return [from_row(Prompt, row) for row in rows]


def search(
    conn: sqlite3.Connection, query: MatchQuery, *, project: str | None, limit: int = 10
) -> list[Prompt]:
    """Prompts matching ``query`` (in ``project`` when given), best first."""
    from engram.store.fts import rank_window

    total = conn.execute("SELECT coalesce(max(id), 0) FROM user_prompts").fetchone()[0]
    ranked = rank_window(
        conn,
        "prompts_fts",
        query.filtered(project=project),
        total_rows=int(total),
        boosts={},
        limit=limit,
    )
    ids = [r.rowid for r in ranked]
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    rows = {
        row["id"]: from_row(Prompt, row)
        for row in conn.execute(f"SELECT {_COLUMNS} FROM user_prompts WHERE id IN ({marks})", ids)
    }
    return [rows[i] for i in ids if i in rows]


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
