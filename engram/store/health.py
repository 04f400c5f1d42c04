"""Read-only health checks of the database that need SQL (``engram doctor`` calls them).

:func:`fts_problems` checks every external-content FTS5 index: FTS5's own ``integrity-check``,
then that the index holds exactly the live rows of its content table (rows with a
``deleted_at`` column count only while it is NULL, as the triggers index them).
"""

from __future__ import annotations

import re
import sqlite3

_OPTION = re.compile(r"(content|content_rowid)\s*=\s*'([^']+)'", re.IGNORECASE)


def _fts_tables(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """``(fts table, content table, content rowid column)`` for each external-content index."""
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE '%USING fts5%'"
    ).fetchall()
    found = []
    for name, sql in rows:
        options = {key.lower(): value for key, value in _OPTION.findall(sql)}
        if options.get("content"):
            found.append((name, options["content"], options.get("content_rowid", "rowid")))
    return found


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in conn.execute(f'PRAGMA table_info("{table}")'))


def fts_problems(conn: sqlite3.Connection) -> list[str]:
    """Every inconsistency between the FTS5 indexes and their tables ([] when healthy)."""
    problems: list[str] = []
    for fts, content, rowid in _fts_tables(conn):
        try:
            conn.execute(f'INSERT INTO "{fts}"("{fts}") VALUES (\'integrity-check\')')
        except sqlite3.DatabaseError as exc:
            problems.append(f"{fts}: integrity-check failed ({exc})")
            continue
        live = "c.deleted_at IS NULL" if _has_column(conn, content, "deleted_at") else "1"
        missing = conn.execute(
            f'SELECT count(*) FROM "{content}" c LEFT JOIN "{fts}_docsize" d '
            f'ON d.id = c."{rowid}" WHERE {live} AND d.id IS NULL'
        ).fetchone()[0]
        stale = conn.execute(
            f'SELECT count(*) FROM "{fts}_docsize" d LEFT JOIN "{content}" c '
            f'ON c."{rowid}" = d.id AND {live} WHERE c."{rowid}" IS NULL'
        ).fetchone()[0]
        if missing:
            problems.append(f"{fts}: {missing} row(s) of {content} are not in the index")
        if stale:
            problems.append(f"{fts}: {stale} indexed row(s) are deleted or gone from {content}")
    return problems
