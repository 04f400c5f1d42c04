"""Session authorities (``cloud_session_authorities``) and prompt-pair claims."""

from __future__ import annotations

from typing import Any

from engram.cloud.store.db import Conn

_REGISTER = """
    INSERT INTO cloud_session_authorities (session_id, owner_project, principal_id)
    VALUES (%(session_id)s, %(owner_project)s, %(principal_id)s)
    ON CONFLICT (session_id) DO NOTHING
"""

_GET_AUTHORITY = """
    SELECT session_id, owner_project, principal_id, created_at
    FROM cloud_session_authorities
    WHERE session_id = %(session_id)s
"""


def register_session(
    conn: Conn, session_id: str, owner_project: str, principal_id: str
) -> dict[str, Any]:
    """Register ``session_id`` under ``owner_project`` unless it is already registered; return
    the stored registration (compare its owner to detect a conflicting replay)."""
    params = {"session_id": session_id, "owner_project": owner_project}
    conn.execute(_REGISTER, {**params, "principal_id": principal_id})
    row = conn.execute(_GET_AUTHORITY, params).fetchone()
    assert row is not None
    return row


def session_authority(conn: Conn, session_id: str) -> dict[str, Any] | None:
    """The registration of ``session_id``, or None."""
    return conn.execute(_GET_AUTHORITY, {"session_id": session_id}).fetchone()


_CLAIM = """
    INSERT INTO cloud_prompt_pair_claims
        (session_id, source_inbox_id, sync_id, owner_project, project, principal_id)
    VALUES
        (%(session_id)s, %(source_inbox_id)s, %(sync_id)s, %(owner_project)s, %(project)s,
         %(principal_id)s)
    ON CONFLICT DO NOTHING
"""

_FIND_CLAIMS = """
    SELECT session_id, source_inbox_id, sync_id, owner_project, project
    FROM cloud_prompt_pair_claims
    WHERE (session_id = %(session_id)s AND source_inbox_id = %(source_inbox_id)s)
       OR sync_id = %(sync_id)s
"""


def claim_prompt_pair(conn: Conn, claim: dict[str, str], principal_id: str) -> bool:
    """Bind ``(session_id, source_inbox_id)`` to ``sync_id``; True when stored or an exact
    replay, False when either side is already bound differently (a competing claim)."""
    conn.execute(_CLAIM, {**claim, "principal_id": principal_id})
    rows = conn.execute(_FIND_CLAIMS, claim).fetchall()
    keys = ("session_id", "source_inbox_id", "sync_id", "project")
    return len(rows) == 1 and all(rows[0][k] == claim[k] for k in keys)
