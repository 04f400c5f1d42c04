"""The one place requests are admitted: authenticate, check access, audit the decision.

Each decision is written to ``cloud_auth_audit_log`` in its own committed transaction, so a
refusal is recorded even though the request then fails. Only non-secret facts are recorded: the
credential kind and token id, never the token, its hash, or the header.
"""

from __future__ import annotations

from collections.abc import Callable

from engram.cloud.auth import Denial, Principal, authenticate, project_access
from engram.cloud.problems import CloudProblem
from engram.cloud.settings import CloudSettings
from engram.cloud.store import auth_audit
from engram.cloud.store.db import CloudStore


def _problem(denial: Denial) -> CloudProblem:
    if denial.status == 400:
        return CloudProblem(400, "invalid_request", denial.code, denial.message)
    return CloudProblem(denial.status, "policy", denial.code, denial.message)


def admit(
    store: CloudStore,
    settings: CloudSettings,
    header: str | None,
    *,
    route: str,
    project: str | None = None,
    require: Callable[[Principal], Denial | None] | None = None,
) -> Principal:
    """The caller of ``route``, allowed to touch ``project`` (when given) and passing
    ``require`` (when given).

    Raises:
        CloudProblem: 401 ``auth_required``, 403 ``policy_forbidden``/``admin_required``,
            400 ``project_required``.
    """
    with store.transaction() as conn:
        result = authenticate(conn, settings, header)
        denial: Denial | None = result if isinstance(result, Denial) else None
        principal = result if isinstance(result, Principal) else None
        if principal is not None and require is not None:
            denial = require(principal)
        if principal is not None and denial is None and project is not None:
            denial = project_access(conn, settings, principal, project)
        auth_audit.record(
            conn,
            event=f"request.{route}",
            allowed=denial is None,
            principal_id=principal.id if principal else None,
            credential=principal.kind if principal else "none",
            project=project,
            route=route,
            reason=denial.code if denial else "",
            metadata={"token_id": principal.token_id} if principal and principal.token_id else None,
        )
    if denial is not None:
        raise _problem(denial)
    assert principal is not None
    return principal


def managed_admin(principal: Principal) -> Denial | None:
    """Only a managed-token admin may administer users, tokens and grants."""
    if principal.is_managed_admin:
        return None
    return Denial(403, "admin_required", "a managed admin token is required")


def project_controller(principal: Principal) -> Denial | None:
    """Managed admins and the legacy admin token may pause projects and read audit logs."""
    if principal.can_control_projects:
        return None
    return Denial(403, "admin_required", "an admin token is required")


def bearer_required(principal: Principal) -> Denial | None:
    """Routes that make no sense without an identity (insecure mode answers 401)."""
    if principal.kind == "insecure":
        return Denial(401, "auth_required", "this route requires a bearer token")
    return None
