"""SQL that applies a replicated change to the memory tables (sessions, observations, prompts,
relations), keyed by each entity's stable id.

The journal triggers fire for these writes too; the caller discards those journal rows
(:func:`engram.store.sync_journal.discard_after`) because they are not local changes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

# entity -> (table, key column, shared columns). The columns are exactly what the journal
# triggers put in a payload (migration 0006); a test checks they match the wire format.
TABLES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "session": (
        "sessions",
        "id",
        tuple(
            ["id", "project", "ownership_mode", "directory", "started_at", "ended_at", "summary"]
        ),
    ),
    "observation": (
        "observations",
        "sync_id",
        tuple(
            [
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
                "expires_at",
                "created_at",
                "updated_at",
                "deleted_at",
                "duplicate_count",
                "last_seen_at",
            ]
        ),
    ),
    "prompt": (
        "user_prompts",
        "sync_id",
        tuple(["sync_id", "session_id", "content", "project", "created_at"]),
    ),
    "relation": (
        "memory_relations",
        "sync_id",
        tuple(
            [
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
                "created_at",
                "updated_at",
            ]
        ),
    ),
}


def current(conn: sqlite3.Connection, entity: str, key: str) -> dict[str, Any] | None:
    """The shared fields of an entity's row (soft-deleted observations included), or None."""
    table, key_column, columns = TABLES[entity]
    row = conn.execute(
        f"SELECT {', '.join(columns)} FROM {table} WHERE {key_column} = ?", (key,)
    ).fetchone()
    return dict(zip(columns, row, strict=True)) if row else None


def existing_keys(conn: sqlite3.Connection, entity: str, keys: Iterable[str]) -> set[str]:
    """Which of ``keys`` have a row here."""
    table, key_column, _ = TABLES[entity]
    wanted = list(keys)
    found: set[str] = set()
    for start in range(0, len(wanted), 500):
        batch = wanted[start : start + 500]
        marks = ",".join("?" * len(batch))
        rows = conn.execute(
            f"SELECT {key_column} FROM {table} WHERE {key_column} IN ({marks})", batch
        )
        found.update(str(row[0]) for row in rows)
    return found


def insert(conn: sqlite3.Connection, entity: str, payload: Mapping[str, Any]) -> None:
    """Insert an entity that has no row here yet (an older payload without the observation
    counters gets one sighting, last seen when it was last updated)."""
    table, _, columns = TABLES[entity]
    names = list(columns)
    values = [payload.get(name) for name in columns]
    if entity == "observation":
        values[names.index("duplicate_count")] = payload.get("duplicate_count", 1)
        values[names.index("last_seen_at")] = payload.get("last_seen_at", payload["updated_at"])
    marks = ", ".join("?" * len(names))
    conn.execute(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})", values)


def overwrite(conn: sqlite3.Connection, entity: str, payload: Mapping[str, Any]) -> None:
    """Replace the shared fields of an existing entity's row (fields the payload lacks keep
    their value here)."""
    table, key_column, columns = TABLES[entity]
    changed = [name for name in columns if name != key_column and name in payload]
    sets = ", ".join(f"{name} = ?" for name in changed)
    conn.execute(
        f"UPDATE {table} SET {sets} WHERE {key_column} = ?",
        [*(payload[name] for name in changed), payload[key_column]],
    )


def delete(conn: sqlite3.Connection, entity: str, key: str, deleted_at: str) -> None:
    """Remove an entity's row for good (the delete trigger leaves its tombstone).

    A session's remaining observations and prompts are detached (``session_id`` NULL) first:
    a replica may hold children the deleting replica never saw.
    """
    table, key_column, _ = TABLES[entity]
    if entity == "session":
        conn.execute("UPDATE observations SET session_id = NULL WHERE session_id = ?", (key,))
        conn.execute("UPDATE user_prompts SET session_id = NULL WHERE session_id = ?", (key,))
    if entity == "prompt":
        conn.execute(
            "INSERT OR REPLACE INTO prompt_tombstones (sync_id, session_id, project, deleted_at)"
            " SELECT sync_id, session_id, project, ? FROM user_prompts WHERE sync_id = ?",
            (deleted_at, key),
        )
    conn.execute(f"DELETE FROM {table} WHERE {key_column} = ?", (key,))


def session_exists(conn: sqlite3.Connection, session_id: str) -> bool:
    """Whether a session row exists."""
    return conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is not None


def observation_exists(conn: sqlite3.Connection, sync_id: str) -> bool:
    """Whether an observation row (live or soft-deleted) exists."""
    row = conn.execute("SELECT 1 FROM observations WHERE sync_id = ?", (sync_id,)).fetchone()
    return row is not None


def owner_projects(conn: sqlite3.Connection, entity: str, key: str) -> set[str]:
    """The projects an existing row belongs to: its own for a session, observation or
    prompt; its two ends' for a relation (empty when there is no such row)."""
    if entity == "relation":
        row = conn.execute(
            "SELECT source_id, target_id FROM memory_relations WHERE sync_id = ?", (key,)
        ).fetchone()
        return observation_projects(conn, (row[0], row[1])) if row else set()
    table, key_column, _ = TABLES[entity]
    found = conn.execute(f"SELECT project FROM {table} WHERE {key_column} = ?", (key,)).fetchone()
    return {str(found[0])} if found else set()


def observation_projects(conn: sqlite3.Connection, sync_ids: Iterable[str]) -> set[str]:
    """The projects of the observations among ``sync_ids`` that exist here."""
    wanted = list(sync_ids)
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(
        f"SELECT DISTINCT project FROM observations WHERE sync_id IN ({marks})", wanted
    )
    return {str(row[0]) for row in rows}


def set_origin(conn: sqlite3.Connection, sync_id: str, origin_by: str, origin_via: str) -> None:
    """Label an observation with the teammate (principal or device) and transport it came by."""
    conn.execute(
        "UPDATE observations SET origin_by = ?, origin_via = ? WHERE sync_id = ?",
        (origin_by, origin_via, sync_id),
    )
