"""SQL for the sync journal (migration 0006): mutations, cursors, chunks, versions, tombstones.

The journal itself is written by triggers (see ``migrations/0006_sync_journal.sql``): every
change to a session, observation, prompt or relation adds one ``sync_mutations`` row in the
same transaction. This module reads it and keeps the bookkeeping around it. Each function
takes an open connection; writers run inside :meth:`engram.store.db.Store.write`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class JournalRow:
    """One ``sync_mutations`` row (``payload`` is the JSON text the trigger wrote)."""

    seq: int
    entity: str
    entity_key: str
    op: str
    project: str
    payload: str


def device_id(conn: sqlite3.Connection) -> str:
    """This replica's origin id (created by the migration)."""
    return str(conn.execute("SELECT device_id FROM sync_device").fetchone()[0])


def last_seq(conn: sqlite3.Connection) -> int:
    """The highest sequence number handed out so far (0 for an empty journal)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'sync_mutations'").fetchone()
    return int(row[0]) if row else 0


def pending(conn: sqlite3.Connection, *, after_seq: int, project: str | None) -> list[JournalRow]:
    """Journal rows with ``seq > after_seq`` (of one project when given), oldest first."""
    sql = "SELECT seq, entity, entity_key, op, project, payload FROM sync_mutations WHERE seq > ?"
    params: list[object] = [after_seq]
    if project is not None:
        sql += " AND project = ?"
        params.append(project)
    return [JournalRow(*row) for row in conn.execute(sql + " ORDER BY seq", params)]


def count_pending(conn: sqlite3.Connection, *, after_seq: int, project: str | None) -> int:
    """How many journal rows :func:`pending` would return."""
    sql = "SELECT count(*) FROM sync_mutations WHERE seq > ?"
    params: list[object] = [after_seq]
    if project is not None:
        sql += " AND project = ?"
        params.append(project)
    return int(conn.execute(sql, params).fetchone()[0])


def referenced_sessions(conn: sqlite3.Connection, *, after_seq: int, project: str) -> set[str]:
    """Sessions that pending observation and prompt upserts of ``project`` point at."""
    rows = conn.execute(
        "SELECT DISTINCT json_extract(payload, '$.session_id') FROM sync_mutations"
        " WHERE seq > ? AND project = ? AND op = 'upsert' AND entity IN ('observation', 'prompt')",
        (after_seq, project),
    )
    return {str(row[0]) for row in rows if row[0] is not None}


def latest_for(
    conn: sqlite3.Connection, entity: str, entity_key: str, *, upto: int | None = None
) -> JournalRow | None:
    """The newest local journal row of one entity (with ``seq <= upto`` when given), or None."""
    row = conn.execute(
        "SELECT seq, entity, entity_key, op, project, payload FROM sync_mutations"
        " WHERE entity_key = ? AND entity = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
        (entity_key, entity, upto if upto is not None else 2**62),
    ).fetchone()
    return JournalRow(*row) if row else None


def latest_seqs(conn: sqlite3.Connection, entity: str, keys: Sequence[str]) -> dict[str, int]:
    """The newest local seq of each of ``keys`` (keys never journaled are absent)."""
    found: dict[str, int] = {}
    for start in range(0, len(keys), 500):
        batch = list(keys[start : start + 500])
        marks = ",".join("?" * len(batch))
        for key, seq in conn.execute(
            f"SELECT entity_key, max(seq) FROM sync_mutations WHERE entity_key IN ({marks})"
            " AND entity = ? GROUP BY entity_key",
            [*batch, entity],
        ):
            found[key] = int(seq)
    return found


def discard_after(conn: sqlite3.Connection, seq: int) -> None:
    """Drop journal rows above ``seq``: what applying remote mutations wrote (not ours)."""
    conn.execute("DELETE FROM sync_mutations WHERE seq > ?", (seq,))


def raise_clock(conn: sqlite3.Connection, clock: int) -> None:
    """Make the next local seq larger than ``clock`` (the Lamport rule)."""
    updated = conn.execute(
        "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'sync_mutations'", (clock,)
    ).rowcount
    if not updated:
        conn.execute(
            "INSERT INTO sqlite_sequence (name, seq) VALUES ('sync_mutations', ?)", (clock,)
        )


# -- export cursors and state --------------------------------------------------------------


def cursor(conn: sqlite3.Connection, target_key: str, project: str) -> int:
    """The last seq exported to ``target_key`` for ``project`` ('*' = every project)."""
    row = conn.execute(
        "SELECT last_seq FROM sync_cursors WHERE target_key = ? AND project = ?",
        (target_key, project),
    ).fetchone()
    return int(row[0]) if row else 0


def set_cursor(conn: sqlite3.Connection, target_key: str, project: str, seq: int, now: str) -> None:
    """Record that everything up to ``seq`` went to ``target_key`` for ``project``."""
    conn.execute(
        "INSERT INTO sync_cursors (target_key, project, last_seq, updated_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (target_key, project) DO UPDATE SET"
        " last_seq = max(last_seq, excluded.last_seq), updated_at = excluded.updated_at",
        (target_key, project, seq, now),
    )


def record_sync(
    conn: sqlite3.Connection, target_key: str, *, now: str, error: str | None = None
) -> None:
    """Note a finished sync (or a failed one, with its error) for ``target_key``."""
    failed = 1 if error else 0
    conn.execute(
        "INSERT INTO sync_state (target_key, lifecycle, last_error, consecutive_failures,"
        " last_sync_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (target_key) DO UPDATE SET lifecycle = excluded.lifecycle,"
        " last_error = excluded.last_error,"
        " consecutive_failures = CASE WHEN ? THEN consecutive_failures + 1 ELSE 0 END,"
        " last_sync_at = CASE WHEN ? THEN last_sync_at ELSE excluded.last_sync_at END,"
        " updated_at = excluded.updated_at",
        (
            target_key,
            "failed" if failed else "idle",
            error,
            failed,
            None if failed else now,
            now,
            failed,
            failed,
        ),
    )


def state(conn: sqlite3.Connection, target_key: str) -> dict[str, object] | None:
    """The ``sync_state`` row of ``target_key`` as a dict, or None."""
    row = conn.execute("SELECT * FROM sync_state WHERE target_key = ?", (target_key,)).fetchone()
    if row is None:
        return None
    return {key: row[key] for key in row.keys()}  # noqa: SIM118


# -- chunks ---------------------------------------------------------------------------------


def known_chunks(conn: sqlite3.Connection, target_key: str) -> set[str]:
    """Ids of the chunks already applied or written for ``target_key``."""
    rows = conn.execute("SELECT chunk_id FROM sync_chunks WHERE target_key = ?", (target_key,))
    return {str(row[0]) for row in rows}


def mark_chunk(conn: sqlite3.Connection, target_key: str, chunk_id: str, now: str) -> None:
    """Record a chunk as applied (or written) here."""
    conn.execute(
        "INSERT OR IGNORE INTO sync_chunks (target_key, chunk_id, imported_at) VALUES (?, ?, ?)",
        (target_key, chunk_id, now),
    )


# -- versions, tombstones, revisions ----------------------------------------------------------


def applied_version(
    conn: sqlite3.Connection, entity: str, entity_key: str
) -> tuple[int, str] | None:
    """(clock, origin) of the remote mutation that last won for an entity, or None."""
    row = conn.execute(
        "SELECT clock, origin FROM sync_versions WHERE entity = ? AND entity_key = ?",
        (entity, entity_key),
    ).fetchone()
    return (int(row[0]), str(row[1])) if row else None


def set_applied_version(
    conn: sqlite3.Connection, entity: str, entity_key: str, clock: int, origin: str
) -> None:
    """Record the remote mutation that now holds an entity."""
    conn.execute(
        "INSERT OR REPLACE INTO sync_versions (entity, entity_key, clock, origin)"
        " VALUES (?, ?, ?, ?)",
        (entity, entity_key, clock, origin),
    )


def set_applied_versions(
    conn: sqlite3.Connection, versions: Sequence[tuple[str, str, int, str]]
) -> None:
    """:func:`set_applied_version` for many ``(entity, key, clock, origin)`` at once."""
    conn.executemany(
        "INSERT OR REPLACE INTO sync_versions (entity, entity_key, clock, origin)"
        " VALUES (?, ?, ?, ?)",
        versions,
    )


def tombstoned(conn: sqlite3.Connection, entity: str, entity_key: str) -> bool:
    """Whether an entity was hard-deleted (here or on a replica we imported)."""
    row = conn.execute(
        "SELECT 1 FROM sync_delete_tombstones WHERE entity = ? AND entity_key = ? AND active = 1",
        (entity, entity_key),
    ).fetchone()
    return row is not None


def tombstone_project(conn: sqlite3.Connection, entity: str, entity_key: str) -> str | None:
    """The project recorded with an entity's active tombstone (None: no tombstone)."""
    row = conn.execute(
        "SELECT project FROM sync_delete_tombstones WHERE entity = ? AND entity_key = ?"
        " AND active = 1",
        (entity, entity_key),
    ).fetchone()
    return None if row is None else str(row[0] or "")


def tombstoned_keys(conn: sqlite3.Connection, entity: str, keys: Iterable[str]) -> set[str]:
    """Which of ``keys`` are tombstoned."""
    wanted = list(keys)
    found: set[str] = set()
    for start in range(0, len(wanted), 500):
        batch = wanted[start : start + 500]
        marks = ",".join("?" * len(batch))
        rows = conn.execute(
            f"SELECT entity_key FROM sync_delete_tombstones WHERE entity = ? AND active = 1"
            f" AND entity_key IN ({marks})",
            [entity, *batch],
        )
        found.update(str(row[0]) for row in rows)
    return found


def record_tombstone(
    conn: sqlite3.Connection,
    entity: str,
    entity_key: str,
    *,
    project: str,
    session_id: str | None,
    deleted_at: str,
    remote_seq: int,
) -> None:
    """Tombstone an entity deleted by a remote mutation (kept if already there)."""
    conn.execute(
        "INSERT INTO sync_delete_tombstones (entity, entity_key, session_id, project,"
        " deleted_at, last_remote_mutation_seq) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (entity, entity_key) DO UPDATE SET active = 1,"
        " deleted_at = min(deleted_at, excluded.deleted_at),"
        " last_remote_mutation_seq = excluded.last_remote_mutation_seq",
        (entity, entity_key, session_id, project, deleted_at, remote_seq),
    )


def record_revision(
    conn: sqlite3.Connection,
    entity: str,
    entity_key: str,
    *,
    loser: tuple[int, str],
    payload: str,
    winner: tuple[int, str],
    now: str,
) -> None:
    """Keep a version that lost a concurrent edit (idempotent per version)."""
    conn.execute(
        "INSERT OR IGNORE INTO sync_revisions (entity, entity_key, origin, clock, payload,"
        " winner_origin, winner_clock, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (entity, entity_key, loser[1], loser[0], payload, winner[1], winner[0], now),
    )


def revision_count(conn: sqlite3.Connection) -> int:
    """How many losing versions are kept."""
    return int(conn.execute("SELECT count(*) FROM sync_revisions").fetchone()[0])


def revisions(conn: sqlite3.Connection, *, limit: int) -> list[dict[str, object]]:
    """Kept losing versions, newest first (``payload`` is the loser's JSON text)."""
    rows = conn.execute(
        "SELECT entity, entity_key, origin, clock, payload, winner_origin, winner_clock,"
        " recorded_at FROM sync_revisions ORDER BY id DESC LIMIT ?",
        (limit,),
    )
    names = ("entity", "key", "origin", "clock", "payload", "winner_origin", "winner_clock",
             "recorded_at")  # fmt: skip
    return [dict(zip(names, row, strict=True)) for row in rows]
