"""Who is looking at the dashboard, and what they may see and do.

Resolved from the session cookie on every request, against the database: a managed session
names a token id, and a revoked token or a disabled user ends the session on the very next
request; so does signing out (the session id is recorded as signed out). Who may do what:

- anyone signed in (and everyone in insecure mode) reads the pages; a managed *member* sees only
  the projects granted to them (and allowlisted), admins every project;
- admin pages need a managed admin or the legacy ``ENGRAM_CLOUD_ADMIN`` session (read, plus
  project sync controls); user, token and grant mutations need a managed admin;
- the first-admin bootstrap form needs the legacy admin session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engram.cloud.auth import INSECURE, Principal, grant_key
from engram.cloud.settings import CloudSettings
from engram.cloud.store import dashboard_sessions, principals, projects
from engram.cloud.store.db import Conn

LEGACY_ADMIN = Principal(id="legacy-admin", kind="legacy_admin", display_name="legacy-admin")


@dataclass(frozen=True)
class Viewer:
    """The person behind one request (``principal`` None: not signed in)."""

    principal: Principal | None
    csrf: str
    visible: tuple[str, ...] | None = None  # project names a member may see; None: all

    @property
    def signed_in(self) -> bool:
        """Whether the request carries a valid session (always true in insecure mode)."""
        return self.principal is not None

    @property
    def can_read_admin(self) -> bool:
        """Admin pages and project sync controls."""
        return self.principal is not None and self.principal.can_control_projects

    @property
    def can_manage_users(self) -> bool:
        """Create/enable/disable users, issue/revoke tokens, grant/revoke projects."""
        return self.principal is not None and self.principal.is_managed_admin

    @property
    def is_legacy_admin(self) -> bool:
        """The legacy ``ENGRAM_CLOUD_ADMIN`` session (the only one that may bootstrap)."""
        return self.principal is not None and self.principal.kind == "legacy_admin"

    @property
    def name(self) -> str:
        """What the header shows."""
        if self.principal is None:
            return ""
        if self.principal.kind == "insecure":
            return "local (no auth)"
        return self.principal.label

    def projects(self) -> list[str] | None:
        """The project filter for read-model queries (None: every project)."""
        return None if self.visible is None else list(self.visible)

    def may_see(self, project: str) -> bool:
        """Whether this viewer may see ``project``."""
        return self.visible is None or project in self.visible


def resolve(
    conn: Conn, settings: CloudSettings, session: dict[str, Any] | None, csrf: str
) -> Viewer:
    """The viewer for a request whose verified cookie data is ``session`` (None: none)."""
    if settings.insecure:
        return Viewer(INSECURE, csrf)
    if not session:
        return Viewer(None, csrf)
    sid = str(session.get("sid") or "")
    if not sid or dashboard_sessions.is_signed_out(conn, sid):  # signed out: the cookie is dead
        return Viewer(None, csrf)
    kind = session.get("kind")
    if kind == "legacy_admin" and settings.admin_token:
        return Viewer(LEGACY_ADMIN, csrf)
    if kind != "managed" or not settings.managed_tokens:
        return Viewer(None, csrf)
    principal = managed_principal(conn, str(session.get("token_id", "")))
    if principal is None:
        return Viewer(None, csrf)
    if principal.is_managed_admin:
        return Viewer(principal, csrf)
    return Viewer(principal, csrf, tuple(granted_projects(conn, settings, principal)))


def managed_principal(conn: Conn, token_id: str) -> Principal | None:
    """The principal of a live token (not revoked, user enabled), or None."""
    token = principals.get_token(conn, token_id) if token_id else None
    if token is None or token["revoked_at"] is not None:
        return None
    user = principals.get_user(conn, token["principal_id"])
    if user is None or not user["enabled"]:
        return None
    return Principal(
        id=user["principal_id"],
        kind="managed",
        display_name=user["display_name"] or user["username"],
        role=user["role"],
        token_id=token_id,
    )


def granted_projects(conn: Conn, settings: CloudSettings, principal: Principal) -> list[str]:
    """The existing projects a member may see: granted (grant-normalized) and allowlisted."""
    keys = {grant_key(g["project"]) for g in principals.list_grants(conn, principal.id)}
    names = [row["name"] for row in projects.list_projects(conn)]
    allowed = settings.allows_every_project
    return [
        name
        for name in names
        if grant_key(name) in keys and (allowed or name in settings.allowed_projects)
    ]
