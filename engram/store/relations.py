"""SQL for ``memory_relations``: verdicts between two observations (by their sync_ids).

``judgment_status`` is ``pending`` (surfaced by a save, not yet judged), ``judged``,
``orphaned`` or ``ignored``. ``relation`` is the verdict (``supersedes``, ``conflicts_with``,
``related``, ``compatible``, ``scoped``, ``not_conflict``; ``pending`` until judged).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engram.store.records import Relation, from_row, new_sync_id


def insert(
    conn: sqlite3.Connection,
    *,
    source_id: str,
    target_id: str,
    now: str,
    relation: str = "pending",
    judgment_status: str = "pending",
    confidence: float | None = None,
    reason: str | None = None,
    marked_by_kind: str | None = None,
    marked_by_actor: str | None = None,
    marked_by_model: str | None = None,
    session_id: str | None = None,
) -> Relation:
    """Insert a relation row and return it (as stored: RETURNING saves a re-read)."""
    sync_id = new_sync_id("rel")
    row = conn.execute(
        "INSERT INTO memory_relations (sync_id, source_id, target_id, relation, judgment_status,"
        " confidence, reason, marked_by_kind, marked_by_actor, marked_by_model, session_id,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        (
            sync_id,
            source_id,
            target_id,
            relation,
            judgment_status,
            confidence,
            reason,
            marked_by_kind,
            marked_by_actor,
            marked_by_model,
            session_id,
            now,
            now,
        ),
    ).fetchone()
    return from_row(Relation, row)


def insert_pending(
    conn: sqlite3.Connection,
    *,
    source_id: str,
    target_ids: list[str],
    now: str,
    session_id: str | None = None,
) -> list[str]:
    """Insert one pending relation from ``source_id`` to each target; return their sync_ids
    (the judgment ids), in order. One statement for all: a save surfaces up to three."""
    sync_ids = [new_sync_id("rel") for _ in target_ids]
    conn.executemany(
        "INSERT INTO memory_relations (sync_id, source_id, target_id, relation, judgment_status,"
        " session_id, created_at, updated_at) VALUES (?, ?, ?, 'pending', 'pending', ?, ?, ?)",
        [
            (sid, source_id, target, session_id, now, now)
            for sid, target in zip(sync_ids, target_ids, strict=True)
        ],
    )
    return sync_ids


def get(conn: sqlite3.Connection, sync_id: str) -> Relation | None:
    """The relation with this sync_id (the ``judgment_id`` agents see), or None."""
    row = conn.execute("SELECT * FROM memory_relations WHERE sync_id = ?", (sync_id,)).fetchone()
    return from_row(Relation, row) if row else None


def find_pair(conn: sqlite3.Connection, source_id: str, target_id: str) -> Relation | None:
    """The newest relation from ``source_id`` to ``target_id``, or None."""
    row = conn.execute(
        "SELECT * FROM memory_relations WHERE source_id = ? AND target_id = ?"
        " ORDER BY id DESC LIMIT 1",
        (source_id, target_id),
    ).fetchone()
    return from_row(Relation, row) if row else None


def record_verdict(
    conn: sqlite3.Connection,
    relation_id: int,
    *,
    relation: str,
    now: str,
    reason: str | None,
    evidence: str | None,
    confidence: float | None,
    marked_by_kind: str,
    marked_by_actor: str | None,
    marked_by_model: str | None = None,
    session_id: str | None = None,
) -> None:
    """Set (or overwrite) the verdict of a relation; it becomes ``judged``."""
    conn.execute(
        "UPDATE memory_relations SET relation = ?, judgment_status = 'judged', reason = ?,"
        " evidence = ?, confidence = ?, marked_by_kind = ?, marked_by_actor = ?,"
        " marked_by_model = ?, session_id = COALESCE(?, session_id), updated_at = ?"
        " WHERE id = ?",
        (
            relation,
            reason,
            evidence,
            confidence,
            marked_by_kind,
            marked_by_actor,
            marked_by_model,
            session_id,
            now,
            relation_id,
        ),
    )


@dataclass(frozen=True, slots=True)
class RelatedEnd:
    """A relation seen from one observation: the other end and the verdict."""

    observation_sync_id: str
    relation: str
    judgment_status: str
    outgoing: bool
    other_id: int | None
    other_title: str | None


def for_observations(conn: sqlite3.Connection, sync_ids: list[str]) -> list[RelatedEnd]:
    """Every pending or judged relation touching these observations, with the other end's id
    and title (title None when that observation is deleted, id None when it is gone) — one
    query, no N+1."""
    if not sync_ids:
        return []
    marks = ",".join("?" * len(sync_ids))
    sql = (
        "SELECT r.source_id AS mine, 1 AS outgoing, r.relation, r.judgment_status,"
        " o.id AS other_id, CASE WHEN o.deleted_at IS NULL THEN o.title END AS other_title"
        " FROM memory_relations r LEFT JOIN observations o"
        " ON o.sync_id = r.target_id"
        f" WHERE r.source_id IN ({marks}) AND r.judgment_status IN ('pending', 'judged')"
        " UNION ALL"
        " SELECT r.target_id, 0, r.relation, r.judgment_status, o.id,"
        " CASE WHEN o.deleted_at IS NULL THEN o.title END"
        " FROM memory_relations r LEFT JOIN observations o"
        " ON o.sync_id = r.source_id"
        f" WHERE r.target_id IN ({marks}) AND r.judgment_status IN ('pending', 'judged')"
    )
    rows = conn.execute(sql, [*sync_ids, *sync_ids]).fetchall()
    return [
        RelatedEnd(
            row["mine"],
            row["relation"],
            row["judgment_status"],
            bool(row["outgoing"]),
            row["other_id"],
            row["other_title"],
        )
        for row in rows
    ]


def count(conn: sqlite3.Connection) -> int:
    """How many relation rows exist."""
    return int(conn.execute("SELECT count(*) FROM memory_relations").fetchone()[0])
