"""SQL for the cloud client's local state: enrolled projects, per-target sync outcome and
lease, and per-project upgrade progress (migrations 0006 and 0007)."""

from __future__ import annotations

import sqlite3
from typing import Any

# -- enrollment -----------------------------------------------------------------------------


def enroll(conn: sqlite3.Connection, project: str, now: str) -> bool:
    """Enroll ``project``; False when it already was."""
    cur = conn.execute(
        "INSERT OR IGNORE INTO sync_enrolled_projects (project, enrolled_at) VALUES (?, ?)",
        (project, now),
    )
    return cur.rowcount == 1


def unenroll(conn: sqlite3.Connection, project: str) -> bool:
    """Unenroll ``project``; False when it was not enrolled."""
    cur = conn.execute("DELETE FROM sync_enrolled_projects WHERE project = ?", (project,))
    return cur.rowcount == 1


def enrolled(conn: sqlite3.Connection) -> list[str]:
    """Every enrolled project, by name."""
    rows = conn.execute("SELECT project FROM sync_enrolled_projects ORDER BY project")
    return [str(row[0]) for row in rows]


def is_enrolled(conn: sqlite3.Connection, project: str) -> bool:
    """True when ``project`` is enrolled."""
    row = conn.execute("SELECT 1 FROM sync_enrolled_projects WHERE project = ?", (project,))
    return row.fetchone() is not None


# -- per-target outcome ---------------------------------------------------------------------


def record_outcome(
    conn: sqlite3.Connection,
    target_key: str,
    *,
    phase: str,
    now: str,
    reason_code: str | None = None,
    error: str | None = None,
    backoff_until: str | None = None,
) -> None:
    """Record how a cloud sync of ``target_key`` ended (``reason_code``/``error`` on failure)."""
    failed = 1 if reason_code else 0
    conn.execute(
        "INSERT INTO sync_state (target_key, lifecycle, last_error, reason_code,"
        " consecutive_failures, backoff_until, last_sync_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (target_key) DO UPDATE SET lifecycle = excluded.lifecycle,"
        " last_error = excluded.last_error, reason_code = excluded.reason_code,"
        " consecutive_failures = CASE WHEN ? THEN consecutive_failures + 1 ELSE 0 END,"
        " backoff_until = excluded.backoff_until,"
        " last_sync_at = CASE WHEN ? THEN last_sync_at ELSE excluded.last_sync_at END,"
        " updated_at = excluded.updated_at",
        (
            target_key,
            phase,
            error,
            reason_code,
            failed,
            backoff_until,
            None if failed else now,
            now,
            failed,
            failed,
        ),
    )


def project_target(target_key: str, project: str) -> str:
    """The ``sync_state`` key of one project's own outcomes on the cloud target ``target_key``
    (a pause or a refusal of that project must not show on another project's status)."""
    return f"{target_key}#project:{project}"


def outcome(conn: sqlite3.Connection, target_key: str) -> dict[str, Any] | None:
    """The ``sync_state`` row of ``target_key`` as a dict, or None."""
    row = conn.execute("SELECT * FROM sync_state WHERE target_key = ?", (target_key,)).fetchone()
    if row is None:
        return None
    return {key: row[key] for key in row.keys()}  # noqa: SIM118


def forget_target(conn: sqlite3.Connection, target_key: str) -> None:
    """Drop a target's cursors, chunk records and state (the remote itself is untouched)."""
    for table in ("sync_cursors", "sync_chunks", "sync_state"):
        conn.execute(
            f"DELETE FROM {table} WHERE target_key = ? OR target_key = ?",
            (target_key, target_key + "#pull"),
        )
    prefix = project_target(target_key, "")
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    conn.execute("DELETE FROM sync_state WHERE target_key LIKE ? ESCAPE '\\'", (escaped + "%",))


# -- lease: one syncing process per data dir and target -------------------------------------


def take_lease(conn: sqlite3.Connection, target_key: str, owner: str, now: str, until: str) -> bool:
    """Take (or renew) the target's lease for ``owner`` unless another owner holds an
    unexpired one; True when ``owner`` holds it afterwards."""
    conn.execute(
        "INSERT OR IGNORE INTO sync_state (target_key, lifecycle, updated_at) VALUES (?, 'idle', ?)",
        (target_key, now),
    )
    cur = conn.execute(
        "UPDATE sync_state SET lease_owner = ?, lease_until = ?"
        " WHERE target_key = ? AND (lease_owner IS NULL OR lease_owner = ?"
        " OR lease_until IS NULL OR lease_until < ?)",
        (owner, until, target_key, owner, now),
    )
    return cur.rowcount == 1


def lease_holder(conn: sqlite3.Connection, target_key: str, now: str) -> str | None:
    """The owner of the target's unexpired lease, or None."""
    row = conn.execute(
        "SELECT lease_owner FROM sync_state WHERE target_key = ? AND lease_owner IS NOT NULL"
        " AND lease_until >= ?",
        (target_key, now),
    ).fetchone()
    return None if row is None else str(row[0])


def release_lease(conn: sqlite3.Connection, target_key: str, owner: str) -> None:
    """Give the lease back (only when ``owner`` holds it)."""
    conn.execute(
        "UPDATE sync_state SET lease_owner = NULL, lease_until = NULL"
        " WHERE target_key = ? AND lease_owner = ?",
        (target_key, owner),
    )


# -- upgrade progress -----------------------------------------------------------------------

_UPGRADE_COLUMNS = ("stage", "repair_class", "snapshot", "findings", "actions", "error")


def upgrade_state(conn: sqlite3.Connection, project: str) -> dict[str, Any] | None:
    """The project's ``cloud_upgrade_state`` row, or None."""
    row = conn.execute("SELECT * FROM cloud_upgrade_state WHERE project = ?", (project,))
    found = row.fetchone()
    return None if found is None else {key: found[key] for key in found.keys()}  # noqa: SIM118


def save_upgrade_state(
    conn: sqlite3.Connection, project: str, now: str, **fields: str | None
) -> None:
    """Insert or update the project's upgrade row (only the columns given change)."""
    unknown = set(fields) - set(_UPGRADE_COLUMNS)
    if unknown:
        raise ValueError(f"unknown upgrade fields {sorted(unknown)}")
    conn.execute(
        "INSERT OR IGNORE INTO cloud_upgrade_state (project, stage, updated_at) VALUES (?, ?, ?)",
        (project, fields.get("stage") or "planned", now),
    )
    for name, value in fields.items():
        conn.execute(
            f"UPDATE cloud_upgrade_state SET {name} = ?, updated_at = ? WHERE project = ?",
            (value, now, project),
        )


def clear_upgrade_state(conn: sqlite3.Connection, project: str) -> None:
    """Forget the project's upgrade progress."""
    conn.execute("DELETE FROM cloud_upgrade_state WHERE project = ?", (project,))


def reset_cursor(conn: sqlite3.Connection, target_key: str, project: str, seq: int) -> None:
    """Put a cursor back to exactly ``seq`` (an upgrade rollback; 0 removes it)."""
    if seq <= 0:
        conn.execute(
            "DELETE FROM sync_cursors WHERE target_key = ? AND project = ?", (target_key, project)
        )
        return
    conn.execute(
        "INSERT INTO sync_cursors (target_key, project, last_seq) VALUES (?, ?, ?)"
        " ON CONFLICT (target_key, project) DO UPDATE SET last_seq = excluded.last_seq",
        (target_key, project, seq),
    )


def untitled_observations(conn: sqlite3.Connection, project: str) -> list[tuple[str, str]]:
    """``(sync_id, content)`` of the project's live observations with a blank title."""
    rows = conn.execute(
        "SELECT sync_id, content FROM observations"
        " WHERE project = ? AND trim(title) = '' ORDER BY id",
        (project,),
    )
    return [(str(r[0]), str(r[1])) for r in rows]


def set_title(conn: sqlite3.Connection, sync_id: str, title: str) -> None:
    """Give an observation a title (its journal trigger records the change)."""
    conn.execute("UPDATE observations SET title = ? WHERE sync_id = ?", (title, sync_id))


def drop_untitled_journal_rows(conn: sqlite3.Connection, project: str, after_seq: int) -> int:
    """Remove pending observation upserts with a blank title (superseded by a repair)."""
    cur = conn.execute(
        "DELETE FROM sync_mutations WHERE seq > ? AND project = ? AND entity = 'observation'"
        " AND op = 'upsert' AND trim(coalesce(json_extract(payload, '$.title'), '')) = ''",
        (after_seq, project),
    )
    return cur.rowcount


def drop_journal_row(conn: sqlite3.Connection, seq: int) -> None:
    """Remove one pending journal row (a repair supersedes or retires it)."""
    conn.execute("DELETE FROM sync_mutations WHERE seq = ?", (seq,))


def journal_upsert(
    conn: sqlite3.Connection, entity: str, key: str, project: str, payload: str
) -> None:
    """Journal an entity's current state as a fresh upsert (what its trigger would write)."""
    conn.execute(
        "INSERT INTO sync_mutations (entity, entity_key, op, project, payload)"
        " VALUES (?, ?, 'upsert', ?, ?)",
        (entity, key, project, payload),
    )
