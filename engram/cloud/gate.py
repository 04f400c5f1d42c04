"""The one place requests are admitted: authenticate, check access, audit the decision.

Each decision is written to ``cloud_auth_audit_log``. :func:`admit` commits it in a
transaction of its own; :func:`admit_and_run` commits it with the request's own work (one
commit per request, not two). The row is sent with the ``COMMIT`` itself
(:func:`~engram.cloud.store.db.send_with_commit`): no round trip of its own. Either way a refusal is recorded even though the request then
fails, and so is an admitted request whose work failed and was rolled back. Only non-secret
facts are recorded: the credential kind and token id, never the token, its hash, or the header.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

import psycopg

from engram.cloud.auth import Denial, Principal, authenticate, project_access
from engram.cloud.problems import CloudProblem
from engram.cloud.settings import CloudSettings
from engram.cloud.store import auth_audit
from engram.cloud.store.db import CloudStore, Conn, send_with_commit

T = TypeVar("T")
Requirement = Callable[[Principal], Denial | None]


def _problem(denial: Denial) -> CloudProblem:
    if denial.status == 400:
        return CloudProblem(400, "invalid_request", denial.code, denial.message)
    return CloudProblem(denial.status, "policy", denial.code, denial.message)


def _decide(
    conn: Conn,
    settings: CloudSettings,
    header: str | None,
    route: str,
    project: str | None,
    require: Requirement | None,
) -> Principal | Denial:
    result = authenticate(conn, settings, header)
    denial: Denial | None = result if isinstance(result, Denial) else None
    principal = result if isinstance(result, Principal) else None
    if principal is not None and require is not None:
        denial = require(principal)
    if principal is not None and denial is None and project is not None:
        denial = project_access(conn, settings, principal, project)
    _record(conn, route, project, principal, denial)
    return denial if denial is not None else result


def _record(
    conn: Conn, route: str, project: str | None, principal: Principal | None, denial: Denial | None
) -> None:
    send_with_commit(conn, functools.partial(_write_record, route, project, principal, denial))


def _write_record(
    route: str, project: str | None, principal: Principal | None, denial: Denial | None, conn: Conn
) -> None:
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


def admit(
    store: CloudStore,
    settings: CloudSettings,
    header: str | None,
    *,
    route: str,
    project: str | None = None,
    require: Requirement | None = None,
) -> Principal:
    """The caller of ``route``, allowed to touch ``project`` (when given) and passing
    ``require`` (when given); the decision is committed on its own.

    Raises:
        CloudProblem: 401 ``auth_required``, 403 ``policy_forbidden``/``admin_required``,
            400 ``project_required``.
    """
    with store.transaction() as conn:
        decision = _decide(conn, settings, header, route, project, require)
    if isinstance(decision, Denial):
        raise _problem(decision)
    return decision


def admit_and_run(
    store: CloudStore,
    settings: CloudSettings,
    header: str | None,
    work: Callable[[Conn, Principal], T],
    *,
    route: str,
    project: str | None = None,
) -> T:
    """Admit the caller as :func:`admit` does, then run ``work(conn, principal)`` in the same
    transaction: the audit row and the work commit together.

    A :class:`CloudProblem` raised by ``work`` commits the transaction before it propagates:
    ``work`` raises one only before it writes anything but audit rows (a malformed batch, a
    refusal it records). Any other exception rolls everything back, and the admission is then
    audited in a transaction of its own.
    """
    admitted: Principal | None = None
    refusal: CloudProblem | None = None
    try:
        with store.transaction() as conn:
            decision = _decide(conn, settings, header, route, project, None)
            if isinstance(decision, Denial):
                refusal = _problem(decision)
            else:
                admitted = decision
                try:
                    return work(conn, decision)
                except CloudProblem as problem:
                    refusal = problem
    except Exception:
        if admitted is not None:
            _audit_alone(store, route, project, admitted)
        raise
    assert refusal is not None
    raise refusal


def _audit_alone(store: CloudStore, route: str, project: str | None, principal: Principal) -> None:
    """Record an admission whose transaction was rolled back (best effort: when the database
    is what failed, the request's own error is the one to report)."""
    try:
        with store.transaction() as conn:
            _record(conn, route, project, principal, None)
    except psycopg.Error:
        pass


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
