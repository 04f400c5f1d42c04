"""Managed identity: ``cloud_principals`` + ``cloud_human_users``, ``cloud_tokens``,
``cloud_project_grants``. Token rows hold an HMAC of the raw token, never the token itself."""

from __future__ import annotations

from typing import Any

from engram.cloud.store.db import Conn

_USER_COLUMNS = """
    p.id AS principal_id, u.username, u.email, p.display_name, p.role, p.enabled, p.created_at
"""

_INSERT_PRINCIPAL = """
    INSERT INTO cloud_principals (id, display_name, role)
    VALUES (%(principal_id)s, %(display_name)s, %(role)s)
"""

_INSERT_USER = """
    INSERT INTO cloud_human_users (principal_id, username, email)
    VALUES (%(principal_id)s, %(username)s, %(email)s)
"""


def insert_user(
    conn: Conn, principal_id: str, username: str, email: str, display_name: str, role: str
) -> dict[str, Any]:
    """Create a human principal; returns the user object."""
    params = {
        "principal_id": principal_id,
        "username": username,
        "email": email,
        "display_name": display_name,
        "role": role,
    }
    conn.execute(_INSERT_PRINCIPAL, params)
    conn.execute(_INSERT_USER, params)
    user = get_user(conn, principal_id)
    assert user is not None
    return user


_GET_USER = f"""
    SELECT {_USER_COLUMNS}
    FROM cloud_principals p JOIN cloud_human_users u ON u.principal_id = p.id
    WHERE p.id = %(principal_id)s
"""

_USER_BY_NAME = f"""
    SELECT {_USER_COLUMNS}
    FROM cloud_principals p JOIN cloud_human_users u ON u.principal_id = p.id
    WHERE u.username = %(username)s
"""

_LIST_USERS = f"""
    SELECT {_USER_COLUMNS}
    FROM cloud_principals p JOIN cloud_human_users u ON u.principal_id = p.id
    ORDER BY p.created_at, u.username
"""


def get_user(conn: Conn, principal_id: str) -> dict[str, Any] | None:
    """One user object, or None."""
    return conn.execute(_GET_USER, {"principal_id": principal_id}).fetchone()


def user_by_username(conn: Conn, username: str) -> dict[str, Any] | None:
    """The user with ``username``, or None."""
    return conn.execute(_USER_BY_NAME, {"username": username}).fetchone()


def list_users(conn: Conn) -> list[dict[str, Any]]:
    """Every managed user, oldest first."""
    return list(conn.execute(_LIST_USERS).fetchall())


_SET_ENABLED = """
    UPDATE cloud_principals SET enabled = %(enabled)s WHERE id = %(principal_id)s
"""


def set_enabled(conn: Conn, principal_id: str, enabled: bool) -> bool:
    """Enable or disable a principal; False when it does not exist."""
    params = {"principal_id": principal_id, "enabled": enabled}
    return conn.execute(_SET_ENABLED, params).rowcount == 1


_ENABLED_ADMINS = """
    SELECT p.id AS principal_id
    FROM cloud_principals p JOIN cloud_human_users u ON u.principal_id = p.id
    WHERE p.role = 'admin' AND p.enabled
    ORDER BY p.created_at
    FOR UPDATE OF p
"""


def enabled_admins(conn: Conn) -> list[str]:
    """Principal ids of every enabled human admin, locked for the transaction (so two
    bootstraps or a disable racing a bootstrap cannot both pass the admin guards)."""
    return [r["principal_id"] for r in conn.execute(_ENABLED_ADMINS).fetchall()]


_LOCK_IDENTITY = "LOCK TABLE cloud_principals IN SHARE ROW EXCLUSIVE MODE"


def lock_identity(conn: Conn) -> None:
    """Serialize identity changes that check a global state (first admin, last admin)."""
    conn.execute(_LOCK_IDENTITY)


# --- tokens --------------------------------------------------------------------------------

_TOKEN_COLUMNS = """
    t.id, t.principal_id, t.token_prefix, t.name, t.created_by_principal_id, t.created_at,
    t.last_used_at, t.revoked_at, t.revoked_reason
"""

_INSERT_TOKEN = """
    INSERT INTO cloud_tokens
        (id, principal_id, token_hash, token_prefix, name, created_by_principal_id)
    VALUES
        (%(id)s, %(principal_id)s, %(token_hash)s, %(token_prefix)s, %(name)s, %(created_by)s)
"""


def insert_token(
    conn: Conn,
    *,
    token_id: str,
    principal_id: str,
    token_hash: str,
    token_prefix: str,
    name: str,
    created_by: str | None,
) -> dict[str, Any]:
    """Store a token's hash and metadata; returns the metadata (never the hash)."""
    conn.execute(
        _INSERT_TOKEN,
        {
            "id": token_id,
            "principal_id": principal_id,
            "token_hash": token_hash,
            "token_prefix": token_prefix,
            "name": name,
            "created_by": created_by,
        },
    )
    token = get_token(conn, token_id)
    assert token is not None
    return token


_GET_TOKEN = f"SELECT {_TOKEN_COLUMNS} FROM cloud_tokens t WHERE t.id = %(id)s"

_LIST_TOKENS = f"""
    SELECT {_TOKEN_COLUMNS} FROM cloud_tokens t
    WHERE t.principal_id = %(principal_id)s
    ORDER BY t.created_at, t.id
"""

_ALL_TOKENS = f"SELECT {_TOKEN_COLUMNS} FROM cloud_tokens t ORDER BY t.created_at FOR UPDATE"


def get_token(conn: Conn, token_id: str) -> dict[str, Any] | None:
    """One token's metadata, or None."""
    return conn.execute(_GET_TOKEN, {"id": token_id}).fetchone()


def list_tokens(conn: Conn, principal_id: str) -> list[dict[str, Any]]:
    """A principal's tokens' metadata, oldest first."""
    return list(conn.execute(_LIST_TOKENS, {"principal_id": principal_id}).fetchall())


def all_tokens(conn: Conn) -> list[dict[str, Any]]:
    """Every token's metadata in the deployment, locked for the transaction."""
    return list(conn.execute(_ALL_TOKENS).fetchall())


_REVOKE_TOKEN = """
    UPDATE cloud_tokens SET revoked_at = NOW(), revoked_reason = %(reason)s
    WHERE id = %(id)s AND revoked_at IS NULL
"""


def revoke_token(conn: Conn, token_id: str, reason: str) -> bool:
    """Revoke an active token; False when it is unknown or already revoked."""
    return conn.execute(_REVOKE_TOKEN, {"id": token_id, "reason": reason}).rowcount == 1


_FIND_BY_HASH = """
    SELECT t.id AS token_id, t.token_hash, t.revoked_at, t.token_prefix,
           p.id AS principal_id, p.display_name, p.role, p.enabled, u.username
    FROM cloud_tokens t
    JOIN cloud_principals p ON p.id = t.principal_id
    LEFT JOIN cloud_human_users u ON u.principal_id = p.id
    WHERE t.token_hash = %(token_hash)s
"""


def find_by_hash(conn: Conn, token_hash: str) -> dict[str, Any] | None:
    """The token and its principal for a hash, or None."""
    return conn.execute(_FIND_BY_HASH, {"token_hash": token_hash}).fetchone()


_MARK_USED = """
    UPDATE cloud_tokens SET last_used_at = NOW()
    WHERE id = %(id)s AND (last_used_at IS NULL OR last_used_at < NOW() - INTERVAL '1 minute')
"""


def mark_used(conn: Conn, token_id: str) -> None:
    """Record that a token authenticated (at most one write a minute per token)."""
    conn.execute(_MARK_USED, {"id": token_id})


# --- grants --------------------------------------------------------------------------------

_GRANT_COLUMNS = "principal_id, project, granted_by_principal_id, created_at"

_INSERT_GRANT = f"""
    INSERT INTO cloud_project_grants (principal_id, project, granted_by_principal_id)
    VALUES (%(principal_id)s, %(project)s, %(granted_by)s)
    ON CONFLICT (principal_id, project) DO UPDATE SET project = EXCLUDED.project
    RETURNING {_GRANT_COLUMNS}
"""


def insert_grant(
    conn: Conn, principal_id: str, project: str, granted_by: str | None
) -> dict[str, Any]:
    """Grant ``project`` to a principal (idempotent); returns the grant object."""
    params = {"principal_id": principal_id, "project": project, "granted_by": granted_by}
    row = conn.execute(_INSERT_GRANT, params).fetchone()
    assert row is not None
    return row


_LIST_GRANTS = f"""
    SELECT {_GRANT_COLUMNS} FROM cloud_project_grants
    WHERE principal_id = %(principal_id)s ORDER BY project
"""


def list_grants(conn: Conn, principal_id: str) -> list[dict[str, Any]]:
    """A principal's project grants."""
    return list(conn.execute(_LIST_GRANTS, {"principal_id": principal_id}).fetchall())


_DELETE_GRANT = """
    DELETE FROM cloud_project_grants
    WHERE principal_id = %(principal_id)s AND project = %(project)s
"""


def delete_grant(conn: Conn, principal_id: str, project: str) -> bool:
    """Revoke a grant; False when there was none."""
    params = {"principal_id": principal_id, "project": project}
    return conn.execute(_DELETE_GRANT, params).rowcount == 1
