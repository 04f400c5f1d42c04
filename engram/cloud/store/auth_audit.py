"""``cloud_auth_audit_log``: every auth decision and bootstrap attempt, with no secrets.

Callers pass only non-secret metadata: a credential *kind* (``managed``, ``legacy_sync``...),
a token id or prefix at most — never a raw token, a hash, or a bearer header.
"""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from engram.cloud.store.db import Conn

_RECORD = """
    INSERT INTO cloud_auth_audit_log
        (event, outcome, principal_id, credential, project, route, reason, metadata)
    VALUES
        (%(event)s, %(outcome)s, %(principal_id)s, %(credential)s, %(project)s, %(route)s,
         %(reason)s, %(metadata)s)
"""


def record(
    conn: Conn,
    *,
    event: str,
    allowed: bool,
    principal_id: str | None = None,
    credential: str = "",
    project: str | None = None,
    route: str | None = None,
    reason: str = "",
    metadata: dict[str, Any] | None = None,
) -> None:
    """Append one auth decision."""
    conn.execute(
        _RECORD,
        {
            "event": event,
            "outcome": "allowed" if allowed else "denied",
            "principal_id": principal_id,
            "credential": credential,
            "project": project,
            "route": route,
            "reason": reason,
            "metadata": Jsonb(metadata) if metadata is not None else None,
        },
    )


_LIST = """
    SELECT id, occurred_at, event, outcome, principal_id, credential, project, route, reason,
           metadata
    FROM cloud_auth_audit_log
    WHERE (%(event)s::text IS NULL OR event = %(event)s)
    ORDER BY id DESC
    LIMIT %(limit)s OFFSET %(offset)s
"""


def list_events(
    conn: Conn, *, event: str | None = None, limit: int = 50, offset: int = 0
) -> list[dict[str, Any]]:
    """Newest auth-audit rows first, optionally only one event kind."""
    params = {"event": event, "limit": limit, "offset": offset}
    return list(conn.execute(_LIST, params).fetchall())
