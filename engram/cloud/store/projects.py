"""Per-project sync controls (pause/resume) and ``cloud_sync_audit_log``."""

from __future__ import annotations

from typing import Any

from psycopg import Cursor
from psycopg.types.json import Jsonb

from engram.cloud.store.db import Conn

_SET_SYNC = """
    INSERT INTO cloud_projects (name, sync_enabled, paused_by, updated_at)
    VALUES (%(project)s, %(enabled)s, %(paused_by)s, NOW())
    ON CONFLICT (name) DO UPDATE
    SET sync_enabled = EXCLUDED.sync_enabled,
        paused_by = EXCLUDED.paused_by,
        updated_at = NOW()
    RETURNING name, sync_enabled, paused_by, updated_at
"""


def set_sync_enabled(conn: Conn, project: str, enabled: bool, actor: str) -> dict[str, Any]:
    """Pause (``enabled=False``) or resume a project's sync; returns the project's controls."""
    params = {"project": project, "enabled": enabled, "paused_by": None if enabled else actor}
    row = conn.execute(_SET_SYNC, params).fetchone()
    assert row is not None
    return row


_LIST = """
    SELECT p.name, p.sync_enabled, p.paused_by, p.updated_at, p.last_seq,
           (SELECT COUNT(*) FROM cloud_chunks c WHERE c.project = p.name) AS chunk_count
    FROM cloud_projects p
    ORDER BY p.name
"""


def list_projects(conn: Conn) -> list[dict[str, Any]]:
    """Every project the cloud knows, with its sync controls and sizes."""
    return list(conn.execute(_LIST).fetchall())


_GET = "SELECT name, sync_enabled, paused_by, updated_at, last_seq FROM cloud_projects WHERE name = %(p)s"


def get_project(conn: Conn, project: str) -> dict[str, Any] | None:
    """One project's controls, or None when it was never seen."""
    return conn.execute(_GET, {"p": project}).fetchone()


_RECORD_REJECTION = """
    INSERT INTO cloud_sync_audit_log
        (contributor, principal_id, project, action, outcome, entry_count, reason_code, metadata)
    VALUES
        (%(contributor)s, %(principal_id)s, %(project)s, %(action)s, %(outcome)s,
         %(entry_count)s, %(reason_code)s, %(metadata)s)
"""


def record_sync_rejection(
    conn: Conn,
    *,
    contributor: str,
    project: str,
    action: str,
    entry_count: int,
    outcome: str = "rejected_project_paused",
    reason_code: str = "sync-paused",
    principal_id: str | None = None,
    claimed_by: str | None = None,
) -> None:
    """Append one row to ``cloud_sync_audit_log``: ``contributor`` is the principal that sent
    the request; a ``created_by`` it claimed is kept in ``metadata.claimed_by``."""
    conn.execute(
        _RECORD_REJECTION,
        {
            "contributor": contributor,
            "project": project,
            "action": action,
            "outcome": outcome,
            "entry_count": entry_count,
            "reason_code": reason_code,
            "principal_id": principal_id,
            "metadata": Jsonb({"claimed_by": claimed_by}) if claimed_by else None,
        },
    )


_LIST_SYNC_AUDIT = """
    SELECT id, occurred_at, contributor, project, action, outcome, entry_count, reason_code,
           metadata
    FROM cloud_sync_audit_log
    WHERE (%(project)s::text IS NULL OR project = %(project)s)
    ORDER BY id DESC
    LIMIT %(limit)s OFFSET %(offset)s
"""


def list_sync_audit(
    conn: Conn, *, project: str | None = None, limit: int = 50, offset: int = 0
) -> list[dict[str, Any]]:
    """Newest sync-audit rows first."""
    params = {"project": project, "limit": limit, "offset": offset}
    return list(conn.execute(_LIST_SYNC_AUDIT, params).fetchall())


_KNOWN_NAMES = """
    SELECT name FROM cloud_projects
    UNION
    SELECT project FROM cloud_project_grants
"""


def known_names(conn: Conn) -> set[str]:
    """Every project name the server holds: projects with a row, and granted names."""
    return names_of(conn.execute(_KNOWN_NAMES))


# The name itself in the set of known_names, without reading the whole set: the project row
# first (every push after the first finds it there), then the grants.
_IS_KNOWN = """
    SELECT 1 FROM cloud_projects WHERE name = %(name)s
    UNION ALL
    SELECT 1 FROM cloud_project_grants WHERE project = %(name)s
    LIMIT 1
"""


def is_known(conn: Conn, name: str) -> bool:
    """Whether ``name`` is in :func:`known_names` (a project row or a granted name)."""
    return conn.execute(_IS_KNOWN, {"name": name}).fetchone() is not None


def lock_new_names(conn: Conn) -> set[str]:
    """Serialize project creation until the transaction ends (one advisory lock), then read
    :func:`known_names` under it: one round trip for both."""
    with conn.pipeline():
        names = send_lock_new_names(conn)
    return names_of(names)


def send_lock_new_names(conn: Conn) -> Cursor[Any]:
    """:func:`lock_new_names` sent in the caller's pipeline: the cursor :func:`names_of` reads
    once the pipeline has ended (more statements may travel in the same round trip; read
    inside it, the cursor waits for a round trip of its own first)."""
    conn.execute("SELECT pg_advisory_xact_lock(hashtext('engram.cloud.new_project'))")
    return conn.execute(_KNOWN_NAMES)


def names_of(cursor: Cursor[Any]) -> set[str]:
    """The names a cursor over ``_KNOWN_NAMES`` read (:func:`send_lock_new_names`)."""
    return {str(row["name"]) for row in cursor.fetchall()}
