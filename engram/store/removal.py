"""SQL for deletions with a rule attached: a session may only go when nothing refers to it."""

from __future__ import annotations

import sqlite3
from typing import Literal

SessionDeletion = Literal["deleted", "missing", "not_empty"]


def delete_empty_session(conn: sqlite3.Connection, session_id: str) -> SessionDeletion:
    """Delete a session that no observation or prompt refers to (soft-deleted rows count)."""
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        return "missing"
    used = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM observations WHERE session_id = ?)"
        " OR EXISTS (SELECT 1 FROM user_prompts WHERE session_id = ?)",
        (session_id, session_id),
    ).fetchone()[0]
    if used:
        return "not_empty"
    conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
    return "deleted"
