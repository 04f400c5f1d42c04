"""Cheap questions about project names, answered from the indexes on ``project``.

Resolving a project happens on every read command, so these never count rows: existence is
three indexed ``EXISTS`` probes, and the name list walks each index with a loose index scan
(one ``min(project) > previous`` lookup per distinct name) instead of reading every row.
"""

from __future__ import annotations

import sqlite3

# Tables with an index whose first column is ``project``.
_TABLES = ("observations", "sessions", "user_prompts")


def project_exists(conn: sqlite3.Connection, name: str) -> bool:
    """Whether any observation (live or not), session or prompt carries ``name`` (never "")."""
    if not name:
        return False
    probes = " OR ".join(f"EXISTS (SELECT 1 FROM {table} WHERE project = ?)" for table in _TABLES)
    return bool(conn.execute(f"SELECT {probes}", [name] * len(_TABLES)).fetchone()[0])


def distinct_names(conn: sqlite3.Connection) -> list[str]:
    """Every non-blank project name in any table, sorted."""
    names: set[str] = set()
    for table in _TABLES:
        rows = conn.execute(
            "WITH RECURSIVE walk(name) AS ("
            f" SELECT min(project) FROM {table} WHERE project > ''"
            f" UNION ALL SELECT (SELECT min(project) FROM {table} WHERE project > walk.name)"
            " FROM walk WHERE walk.name IS NOT NULL)"
            " SELECT name FROM walk WHERE name IS NOT NULL"
        )
        names.update(str(row[0]) for row in rows)
    return sorted(names)


def session_directories(conn: sqlite3.Connection, name: str, limit: int = 200) -> list[str]:
    """The working directories sessions of ``name`` were started in (most recent first)."""
    rows = conn.execute(
        "SELECT directory FROM sessions WHERE project = ? AND directory != ''"
        " GROUP BY directory ORDER BY max(started_at) DESC LIMIT ?",
        (name, limit),
    )
    return [str(row[0]) for row in rows]
