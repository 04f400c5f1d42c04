"""``engram cloud bootstrap admin`` and ``recover-token``: the CLI's managed-admin entry points.

Both run against ``ENGRAM_DATABASE_URL`` directly (no server needed), reuse the identity rules
of :mod:`engram.cloud.identity`, and write a ``bootstrap.cli`` row to ``cloud_auth_audit_log``
for every attempt, accepted or denied. A raw token is returned only after the transaction that
stores its hash and its audit row has committed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.cloud import identity
from engram.cloud.problems import CloudProblem
from engram.cloud.store import auth_audit, principals
from engram.cloud.store.db import CloudStore
from engram.errors import EngramError

EVENT = "bootstrap.cli"


@dataclass(frozen=True)
class BootstrapResult:
    """What the command prints: the user, its grants, and a raw token shown once (or None)."""

    user: dict[str, Any]
    grants: list[str]
    raw_token: str | None
    token: dict[str, Any] | None


def _deny(store: CloudStore, action: str, reason: str, message: str, remedy: str) -> EngramError:
    with store.transaction() as conn:
        auth_audit.record(
            conn,
            event=EVENT,
            allowed=False,
            credential="cli",
            reason=reason,
            metadata={"action": action},
        )
    return EngramError(f"cloud.bootstrap_{reason}", message, remedy)


def bootstrap_admin(
    store: CloudStore,
    *,
    username: str,
    email: str = "",
    grant_projects: list[str] | None = None,
    token_name: str | None = None,
    pepper: str = "",
) -> BootstrapResult:
    """Create the first managed admin (with grants, and a token when ``token_name`` is set).

    Raises:
        EngramError: ``cloud.bootstrap_admin_exists`` when an enabled admin already exists;
            ``cloud.bootstrap_invalid`` for a bad username.
    """
    try:
        with store.transaction() as conn:
            principals.lock_identity(conn)
            exists = bool(principals.enabled_admins(conn))
            if not exists:
                result = _create_first_admin(
                    conn, username, email, grant_projects, token_name, pepper
                )
    except CloudProblem as exc:
        raise _deny(store, "admin", "invalid", exc.message, "fix the option and retry") from exc
    if exists:
        raise _deny(
            store,
            "admin",
            "admin_exists",
            "a managed admin already exists; nothing was created",
            "ask that admin to create users and tokens (admin API or dashboard)",
        )
    return result


def _create_first_admin(
    conn: Any,
    username: str,
    email: str,
    grant_projects: list[str] | None,
    token_name: str | None,
    pepper: str,
) -> BootstrapResult:
    user = identity.create_user(conn, username, email=email, role="admin")
    admin_id = user["principal_id"]
    grants = [identity.grant(conn, admin_id, p, admin_id)["project"] for p in grant_projects or []]
    raw, token = (None, None)
    if token_name is not None:
        raw, token = identity.issue_token(
            conn, pepper, admin_id, token_name or "bootstrap", admin_id
        )
    auth_audit.record(
        conn,
        event=EVENT,
        allowed=True,
        principal_id=admin_id,
        credential="cli",
        reason="admin_created",
        metadata={"action": "admin", "grants": grants, "token_id": token["id"] if token else None},
    )
    return BootstrapResult(user, grants, raw, token)


def recover_token(
    store: CloudStore, *, pepper: str, name: str = "recovered", revoke_existing: bool = False
) -> BootstrapResult:
    """Issue a token for the stranded sole admin (see docs/cloud.md for the exact states).

    Raises:
        EngramError: ``cloud.bootstrap_refused`` for every state other than the documented one.
    """
    with store.transaction() as conn:
        principals.lock_identity(conn)
        refusal = _recovery_refusal(conn, revoke_existing)
        if refusal is None:
            admin_id = principals.enabled_admins(conn)[0]
            tokens = principals.all_tokens(conn)
            if revoke_existing:
                replaced = _active(tokens)[0]["id"]
                principals.revoke_token(conn, replaced, "replaced by recover-token")
            raw, token = identity.issue_token(conn, pepper, admin_id, name, admin_id)
            auth_audit.record(
                conn,
                event=EVENT,
                allowed=True,
                principal_id=admin_id,
                credential="cli",
                reason="token_recovered",
                metadata={
                    "action": "recover-token",
                    "token_id": token["id"],
                    "revoked_existing": revoke_existing,
                },
            )
            user = principals.get_user(conn, admin_id)
            grants = [g["project"] for g in principals.list_grants(conn, admin_id)]
    if refusal is not None:
        raise _deny(store, "recover-token", "refused", refusal, _RECOVERY_REMEDY)
    assert user is not None
    return BootstrapResult(user, grants, raw, token)


_RECOVERY_REMEDY = "use a managed admin token (admin API) to issue tokens instead"


def _active(tokens: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for t in tokens if t["revoked_at"] is None]


def _recovery_refusal(conn: Any, revoke_existing: bool) -> str | None:
    admins = principals.enabled_admins(conn)
    if len(admins) != 1:
        return f"recovery needs exactly one enabled managed admin (found {len(admins)})"
    tokens = principals.all_tokens(conn)
    if not revoke_existing:
        if tokens:
            return "a principal token already exists; nothing was created"
        return None
    active = _active(tokens)
    if len(active) != 1:
        return f"--revoke-existing needs exactly one active token (found {len(active)})"
    token = active[0]
    if token["principal_id"] != admins[0]:
        return "the active token does not belong to the sole enabled admin"
    if token["last_used_at"] is not None:
        return "the active token has been used; it cannot be replaced by recovery"
    return None
