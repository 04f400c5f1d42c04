"""SQL for ``store_meta``: facts about this store itself (its instance id)."""

from __future__ import annotations

import sqlite3


def instance_id(conn: sqlite3.Connection) -> str:
    """The random id this store was given when it was created (migration 0005)."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = 'instance_id'").fetchone()
    return str(row[0]) if row else ""


def live_counts(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """Sessions, live observations and prompts: a live aggregate query over every table."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM sessions),"
        " (SELECT count(*) FROM observations WHERE deleted_at IS NULL),"
        " (SELECT count(*) FROM user_prompts)"
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2])
