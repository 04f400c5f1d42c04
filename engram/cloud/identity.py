"""Managed users, tokens and grants: the operations behind ``/admin/*`` and the bootstrap CLI.

One set of rules for every path (admin API, dashboard forms, CLI bootstrap): usernames are
unique, roles are ``admin``/``member``, and the last enabled admin cannot be disabled.
Raw tokens are returned once by :func:`issue_token` and never stored.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from engram.cloud.auth import hash_token, new_raw_token, token_prefix
from engram.cloud.new_projects import project_name, require_not_a_variant
from engram.cloud.problems import CloudProblem, invalid
from engram.cloud.store import principals
from engram.cloud.store.db import Conn

ROLES = ("admin", "member")
_USERNAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _not_found(what: str, key: str) -> CloudProblem:
    return CloudProblem(404, "invalid_request", "not_found", f"no {what} {key!r}")


def create_user(
    conn: Conn, username: str, *, email: str = "", display_name: str = "", role: str = "member"
) -> dict[str, Any]:
    """Create a managed user. Raises CloudProblem 400 (bad field) or 409 (username taken)."""
    username = username.strip()
    if not _USERNAME.match(username):
        raise invalid("invalid_username", "username: 1-64 letters, digits, '.', '_' or '-'")
    if role not in ROLES:
        raise invalid("invalid_role", "role must be 'admin' or 'member'")
    if principals.user_by_username(conn, username) is not None:
        raise CloudProblem(409, "invalid_request", "username_taken", f"user {username!r} exists")
    principal_id = "usr_" + secrets.token_hex(8)
    return principals.insert_user(
        conn, principal_id, username, email.strip(), display_name.strip() or username, role
    )


def require_user(conn: Conn, principal_id: str) -> dict[str, Any]:
    """The user, or CloudProblem 404."""
    user = principals.get_user(conn, principal_id)
    if user is None:
        raise _not_found("user", principal_id)
    return user


def set_enabled(conn: Conn, principal_id: str, enabled: bool) -> dict[str, Any]:
    """Enable or disable a user; refuses to disable the last enabled admin (409)."""
    principals.lock_identity(conn)
    user = require_user(conn, principal_id)
    last_admin = user["role"] == "admin" and principals.enabled_admins(conn) == [principal_id]
    if not enabled and last_admin:
        raise CloudProblem(409, "blocked", "last_admin", "cannot disable the last enabled admin")
    principals.set_enabled(conn, principal_id, enabled)
    return {"status": "ok", "principal_id": principal_id, "enabled": enabled}


def issue_token(
    conn: Conn, pepper: str, principal_id: str, name: str, created_by: str | None
) -> tuple[str, dict[str, Any]]:
    """``(raw token, metadata)`` for a new token of ``principal_id``; only the hash is stored."""
    require_user(conn, principal_id)
    raw = new_raw_token()
    metadata = principals.insert_token(
        conn,
        token_id="tok_" + secrets.token_hex(8),
        principal_id=principal_id,
        token_hash=hash_token(pepper, raw),
        token_prefix=token_prefix(raw),
        name=name.strip(),
        created_by=created_by,
    )
    return raw, metadata


def revoke_token(conn: Conn, token_id: str, reason: str) -> dict[str, Any]:
    """Revoke a token (effective on its next request). Raises CloudProblem 404."""
    if principals.get_token(conn, token_id) is None:
        raise _not_found("token", token_id)
    principals.revoke_token(conn, token_id, reason.strip() or "revoked")
    return {"status": "ok", "token_id": token_id}


def grant(conn: Conn, principal_id: str, project: str, granted_by: str | None) -> dict[str, Any]:
    """Grant a project to a user (idempotent)."""
    require_user(conn, principal_id)
    name = project_name(project)
    require_not_a_variant(conn, name)
    return principals.insert_grant(conn, principal_id, name, granted_by)


def revoke_grant(conn: Conn, principal_id: str, project: str) -> dict[str, Any]:
    """Revoke a grant (effective on the next request). Raises CloudProblem 404."""
    require_user(conn, principal_id)
    if not principals.delete_grant(conn, principal_id, project):
        raise _not_found("grant", project)
    return {"status": "ok", "principal_id": principal_id, "project": project}
