"""SQL for ``observation_revisions``: an observation's earlier states (migration 0014).

The rows are written by triggers on ``observations`` (before each change of title or
content); this module only reads them.
"""

from __future__ import annotations

import sqlite3

from engram.store.records import Record, from_rows, record


@record
class Revision(Record):
    """One earlier state of an observation (``version`` counts from 1, oldest first)."""

    version: int
    type: str
    title: str
    content: str
    created_at: str


def count(conn: sqlite3.Connection, observation_id: int) -> int:
    """How many earlier states ``observation_id`` has."""
    row = conn.execute(
        "SELECT count(*) FROM observation_revisions WHERE observation_id = ?", (observation_id,)
    ).fetchone()
    return int(row[0])


def newest_before(
    conn: sqlite3.Connection, observation_id: int, *, before: int | None, limit: int
) -> list[Revision]:
    """The newest ``limit`` revisions with a version below ``before`` (None: any), oldest first."""
    cursor = conn.execute(
        """
        SELECT version, type, title, content, created_at
        FROM observation_revisions
        WHERE observation_id = :id AND (:before IS NULL OR version < :before)
        ORDER BY version DESC
        LIMIT :limit
        """,
        {"id": observation_id, "before": before, "limit": limit},
    )
    return list(reversed(from_rows(Revision, cursor)))


def oldest_version(conn: sqlite3.Connection, observation_id: int) -> int | None:
    """The lowest version number kept for ``observation_id`` (None when it has none)."""
    row = conn.execute(
        "SELECT min(version) FROM observation_revisions WHERE observation_id = ?",
        (observation_id,),
    ).fetchone()
    return None if row[0] is None else int(row[0])
