"""SQL for export and import: read a project's rows as plain dicts, write them back.

The field lists below *are* the backup format's record shapes (engram/memory/backup.py owns
the envelope and validation). Readers run inside :meth:`Store.read`; :func:`insert_rows` runs
inside one :meth:`Store.write` so a failure anywhere rolls the whole import back.

Import keeps identities: a row whose ``sync_id`` (sessions: ``id``) already exists is skipped,
and a new observation keeps its original integer id when that id is free, so a backup
restored into an empty store answers searches and timelines exactly as the original did.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SESSION_FIELDS = (
    "id",
    "project",
    "ownership_mode",
    "directory",
    "started_at",
    "ended_at",
    "summary",
)
OBSERVATION_FIELDS = (
    "id",
    "sync_id",
    "session_id",
    "type",
    "title",
    "content",
    "tool_name",
    "project",
    "scope",
    "topic_key",
    "normalized_hash",
    "revision_count",
    "duplicate_count",
    "last_seen_at",
    "pinned",
    "review_after",
    "expires_at",
    "created_at",
    "updated_at",
    "deleted_at",
)
PROMPT_FIELDS = ("id", "sync_id", "session_id", "content", "project", "created_at")
RELATION_FIELDS = (
    "id",
    "sync_id",
    "source_id",
    "target_id",
    "relation",
    "judgment_status",
    "reason",
    "evidence",
    "confidence",
    "marked_by_kind",
    "marked_by_actor",
    "marked_by_model",
    "session_id",
    "superseded_at",
    "superseded_by_id",
    "created_at",
    "updated_at",
)

Row = dict[str, Any]


@dataclass
class BackupRows:
    """The four record lists of a backup, each a list of column -> value dicts."""

    sessions: list[Row] = field(default_factory=list)
    observations: list[Row] = field(default_factory=list)
    prompts: list[Row] = field(default_factory=list)
    relations: list[Row] = field(default_factory=list)


@dataclass
class ImportCounts:
    """How many rows of each kind were written, and how many were already present."""

    sessions: int = 0
    observations: int = 0
    prompts: int = 0
    relations: int = 0
    skipped: int = 0


def _select(
    conn: sqlite3.Connection,
    table: str,
    columns: Sequence[str],
    where: str,
    params: Sequence[object],
) -> list[Row]:
    sql = f"SELECT {', '.join(columns)} FROM {table} WHERE {where} ORDER BY id"
    return [dict(zip(columns, row, strict=True)) for row in conn.execute(sql, list(params))]


def read_rows(conn: sqlite3.Connection, project: str | None) -> BackupRows:
    """Every row of one project (or of all projects for None), soft-deleted ones included.

    Sessions come along when they belong to the project or parent one of its rows; relations
    come along when either endpoint is one of its observations.
    """
    where, params = ("1 = 1", []) if project is None else ("project = ?", [project])
    observations = _select(conn, "observations", OBSERVATION_FIELDS, where, params)
    prompts = _select(conn, "user_prompts", PROMPT_FIELDS, where, params)
    if project is None:
        sessions = _select(conn, "sessions", SESSION_FIELDS, "1 = 1", [])
        relations = _select(conn, "memory_relations", RELATION_FIELDS, "1 = 1", [])
    else:
        sessions = _select(
            conn,
            "sessions",
            SESSION_FIELDS,
            "project = ? OR id IN (SELECT session_id FROM observations WHERE project = ?)"
            " OR id IN (SELECT session_id FROM user_prompts WHERE project = ?)",
            [project, project, project],
        )
        relations = _select(
            conn,
            "memory_relations",
            RELATION_FIELDS,
            "source_id IN (SELECT sync_id FROM observations WHERE project = ?)"
            " OR target_id IN (SELECT sync_id FROM observations WHERE project = ?)",
            [project, project],
        )
    for row in observations:
        row["pinned"] = bool(row["pinned"])
    return BackupRows(sessions, observations, prompts, relations)


def insert_rows(conn: sqlite3.Connection, rows: BackupRows) -> ImportCounts:
    """Write a validated backup (inside the caller's write transaction).

    Raises:
        sqlite3.IntegrityError: a row breaks a constraint (the caller rolls back).
    """
    counts = ImportCounts()
    for session in rows.sessions:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session["id"],)).fetchone():
            counts.skipped += 1
            continue
        _insert(conn, "sessions", SESSION_FIELDS, session)
        counts.sessions += 1
    for observation in rows.observations:
        if _exists_sync_id(conn, "observations", observation["sync_id"]):
            counts.skipped += 1
            continue
        _insert_keeping_id(conn, "observations", OBSERVATION_FIELDS, observation)
        counts.observations += 1
    for prompt in rows.prompts:
        if _exists_sync_id(conn, "user_prompts", prompt["sync_id"]):
            counts.skipped += 1
            continue
        _insert_keeping_id(conn, "user_prompts", PROMPT_FIELDS, prompt)
        counts.prompts += 1
    counts.relations, skipped = _insert_relations(conn, rows.relations)
    counts.skipped += skipped
    return counts


def _insert_relations(conn: sqlite3.Connection, relations: list[Row]) -> tuple[int, int]:
    """Insert relations, re-pointing ``superseded_by_id`` at the superseding row's new id."""
    new_ids: dict[int, int] = {}
    written = skipped = 0
    pending: list[tuple[int, Row]] = []
    for relation in relations:
        existing = conn.execute(
            "SELECT id FROM memory_relations WHERE sync_id = ?", (relation["sync_id"],)
        ).fetchone()
        if existing:
            new_ids[relation["id"]] = int(existing[0])
            skipped += 1
            continue
        copy = {**relation, "superseded_by_id": None}
        new_ids[relation["id"]] = _insert_keeping_id(
            conn, "memory_relations", RELATION_FIELDS, copy
        )
        pending.append((new_ids[relation["id"]], relation))
        written += 1
    for new_id, relation in pending:
        old_target = relation.get("superseded_by_id")
        if old_target is not None:
            conn.execute(
                "UPDATE memory_relations SET superseded_by_id = ? WHERE id = ?",
                (new_ids[old_target], new_id),
            )
    return written, skipped


def _exists_sync_id(conn: sqlite3.Connection, table: str, sync_id: str) -> bool:
    return (
        conn.execute(f"SELECT 1 FROM {table} WHERE sync_id = ?", (sync_id,)).fetchone() is not None
    )


def _insert(
    conn: sqlite3.Connection, table: str, columns: Sequence[str], row: Mapping[str, Any]
) -> int:
    marks = ", ".join("?" * len(columns))
    cursor = conn.execute(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
        [row.get(column) for column in columns],
    )
    return int(cursor.lastrowid or 0)


def _insert_keeping_id(
    conn: sqlite3.Connection, table: str, columns: Sequence[str], row: Mapping[str, Any]
) -> int:
    """Insert with the row's original ``id`` when it is free, else let SQLite pick one."""
    original = row.get("id")
    if (
        original is not None
        and not conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (original,)).fetchone()
    ):
        return _insert(conn, table, columns, row)
    return _insert(conn, table, [c for c in columns if c != "id"], row)


def observation_sync_ids(conn: sqlite3.Connection, sync_ids: Sequence[str]) -> set[str]:
    """Which of ``sync_ids`` name an observation in the store (live or soft-deleted)."""
    found: set[str] = set()
    for start in range(0, len(sync_ids), 500):
        chunk = list(sync_ids[start : start + 500])
        marks = ", ".join("?" * len(chunk))
        rows = conn.execute(f"SELECT sync_id FROM observations WHERE sync_id IN ({marks})", chunk)
        found.update(str(row[0]) for row in rows)
    return found
