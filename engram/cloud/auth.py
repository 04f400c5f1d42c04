"""Who is calling and what they may reach: bearer parsing, principals, project access.

Resolution order on every ``/sync/*`` and ``/admin/*`` request: a managed token (when
``ENGRAM_CLOUD_TOKEN_PEPPER`` is set), then the legacy ``ENGRAM_CLOUD_TOKEN`` (sync) and
``ENGRAM_CLOUD_ADMIN`` (admin read surfaces and project controls). Every lookup reads the
database, so a disabled user, a revoked token or a revoked grant fails on the very next request.
Project access is deny-by-default: the allowlist always applies, and a managed principal also
needs a grant for the project.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Literal

from engram.cloud.settings import CloudSettings
from engram.cloud.store import principals
from engram.cloud.store.db import Conn, send_with_commit
from engram.project_names import project_key

Kind = Literal["managed", "legacy_sync", "legacy_admin", "insecure"]
TOKEN_PREFIX = "egc_"


@dataclass(frozen=True)
class Principal:
    """An authenticated caller."""

    id: str
    kind: Kind
    display_name: str = ""
    role: str = ""
    token_id: str | None = None

    @property
    def label(self) -> str:
        """Attribution for materialized chunks: display name, then id, then ``unknown``."""
        return self.display_name.strip() or self.id.strip() or "unknown"

    @property
    def is_managed_admin(self) -> bool:
        return self.kind == "managed" and self.role == "admin"

    @property
    def can_control_projects(self) -> bool:
        """Managed admins and the legacy admin token may pause/resume and read audit logs."""
        return self.is_managed_admin or self.kind == "legacy_admin"


@dataclass(frozen=True)
class Denial:
    """Why a request was refused: HTTP status, stable code, message."""

    status: int
    code: str
    message: str


INSECURE = Principal(id="insecure-local", kind="insecure", display_name="")


def parse_bearer(header: str | None) -> str | None:
    """The credential of ``Authorization: Bearer <credential>``, or None.

    Outer whitespace is trimmed; exactly two whitespace-separated fields are required, the
    first ``bearer`` in any case. A scheme glued to the credential or whitespace inside the
    credential gives None.
    """
    if not header:
        return None
    fields = header.strip().split()
    if len(fields) != 2 or fields[0].lower() != "bearer":
        return None
    return fields[1]


def hash_token(pepper: str, raw: str) -> str:
    """HMAC-SHA256 of a raw token under the pepper, hex; what ``cloud_tokens`` stores."""
    return hmac.new(pepper.encode("utf-8"), raw.encode("utf-8"), hashlib.sha256).hexdigest()


def new_raw_token() -> str:
    """A fresh managed token (shown once, never stored)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_prefix(raw: str) -> str:
    """The non-secret prefix kept to recognise a token in listings."""
    return raw[: len(TOKEN_PREFIX) + 6]


def authenticate(conn: Conn, settings: CloudSettings, header: str | None) -> Principal | Denial:
    """Resolve the caller of a ``/sync/*`` or ``/admin/*`` request."""
    if settings.insecure:
        return INSECURE
    raw = parse_bearer(header)
    if raw is None:
        return Denial(401, "auth_required", "a valid 'Authorization: Bearer <token>' is required")
    if settings.managed_tokens and raw.startswith(TOKEN_PREFIX):
        managed = _managed(conn, settings, raw)
        if managed is not None:
            return managed
    if settings.sync_token and hmac.compare_digest(raw.encode(), settings.sync_token.encode()):
        return Principal(id="legacy-sync", kind="legacy_sync", display_name="legacy-sync")
    if settings.admin_token and hmac.compare_digest(raw.encode(), settings.admin_token.encode()):
        return Principal(id="legacy-admin", kind="legacy_admin", display_name="legacy-admin")
    return Denial(401, "auth_required", "the bearer token is not valid")


def _managed(conn: Conn, settings: CloudSettings, raw: str) -> Principal | Denial | None:
    digest = hash_token(settings.token_pepper, raw)
    row = principals.find_by_hash(conn, digest)
    if row is None or not hmac.compare_digest(row["token_hash"], digest):
        return None
    if row["revoked_at"] is not None:
        return Denial(401, "auth_required", "the bearer token has been revoked")
    if not row["enabled"]:
        return Denial(401, "auth_required", "the user of this token is disabled")
    send_with_commit(conn, functools.partial(principals.mark_used, token_id=row["token_id"]))
    return Principal(
        id=row["principal_id"],
        kind="managed",
        display_name=row["display_name"] or row["username"] or "",
        role=row["role"],
        token_id=row["token_id"],
    )


def grant_key(project: str) -> str:
    """The form grants compare in: the shared :func:`engram.project_names.project_key` (a grant
    for ``alpha-foo`` authorizes ``alpha/foo``; the server never creates both, so a grant
    reaches exactly one project)."""
    return project_key(project)


def project_access(
    conn: Conn, settings: CloudSettings, principal: Principal, project: str
) -> Denial | None:
    """None when ``principal`` may sync ``project``; otherwise why not."""
    if not project.strip():
        return Denial(400, "project_required", "a non-empty project is required")
    if principal.kind == "legacy_admin":
        return Denial(403, "policy_forbidden", "the admin token cannot sync projects")
    if not settings.allows_every_project and project not in settings.allowed_projects:
        return Denial(403, "policy_forbidden", f"project {project!r} is not allowed on this server")
    if principal.kind == "managed":
        granted = {grant_key(g["project"]) for g in principals.list_grants(conn, principal.id)}
        if grant_key(project) not in granted:
            return Denial(
                403, "policy_forbidden", f"project {project!r} is not granted to this user"
            )
    return None
