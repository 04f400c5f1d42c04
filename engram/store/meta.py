"""SQL for ``store_meta``: facts about this store itself (its instance id)."""

from __future__ import annotations

import sqlite3


def instance_id(conn: sqlite3.Connection) -> str:
    """The random id this store was given when it was created (migration 0005)."""
    row = conn.execute("SELECT value FROM store_meta WHERE key = 'instance_id'").fetchone()
    return str(row[0]) if row else ""


def latest_rows(conn: sqlite3.Connection) -> tuple[int, int, int]:
    """The highest rowid of sessions, observations and prompts (0 when empty).

    A live aggregate over every journal table that costs one index seek each: a health probe
    must stay cheap on a store of millions of rows (``count(*)`` scans them all).
    """
    row = conn.execute(
        "SELECT (SELECT coalesce(max(rowid), 0) FROM sessions),"
        " (SELECT coalesce(max(id), 0) FROM observations),"
        " (SELECT coalesce(max(id), 0) FROM user_prompts)"
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2])
