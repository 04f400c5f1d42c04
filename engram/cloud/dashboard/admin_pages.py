"""Admin pages and forms: projects and their sync switch, users, tokens, grants, health, audit.

Reading needs an admin session (managed admin or legacy ``ENGRAM_CLOUD_ADMIN``); the sync
switch too. Creating, enabling and disabling users, issuing and revoking tokens, granting and
revoking projects need a managed admin — the same rules, through the same operations
(:mod:`engram.cloud.identity`), as the ``/admin/*`` JSON API. A successful form redirects (303,
or ``HX-Redirect``); issuing a token renders it once instead, and it is never shown again.
"""

from __future__ import annotations

from starlette.responses import Response

from engram.cloud import identity
from engram.cloud.dashboard.screens import PAGE_SIZE, Screen, pages, screen
from engram.cloud.problems import CloudProblem
from engram.cloud.store import auth_audit, principals, readmodel
from engram.cloud.store import projects as project_store

USERS = "/dashboard/admin/users"


@screen("admin")
def admin_home(screen: Screen) -> Response:
    """GET /dashboard/admin — where each admin task lives."""
    totals = readmodel.totals(screen.conn)
    users = principals.list_users(screen.conn)
    return screen.render("admin/home.html", totals=totals, user_count=len(users))


@screen("admin")
def admin_projects(screen: Screen) -> Response:
    """GET /dashboard/admin/projects — every project with its sync switch."""
    return screen.render("admin/projects.html", rows=project_store.list_projects(screen.conn))


@screen("admin")
def sync_form(screen: Screen) -> Response:
    """GET /dashboard/admin/projects/{name}/sync/form — one project's switch (HTMX partial)."""
    found = project_store.get_project(screen.conn, screen.request.path_params["name"])
    if found is None:
        return screen.render("error.html", status=404, status_code=404, message="no such project")
    return screen.render("admin/sync_form.html", project=found)


@screen("admin")
def set_sync(screen: Screen) -> Response:
    """POST /dashboard/admin/projects/{name}/sync — pause or resume a project's sync."""
    name = screen.request.path_params["name"]
    if project_store.get_project(screen.conn, name) is None:
        return screen.render("error.html", status=404, status_code=404, message="no such project")
    enabled = screen.form.get("enabled") == "true"
    assert screen.viewer.principal is not None
    project_store.set_sync_enabled(screen.conn, name, enabled, screen.viewer.principal.label)
    if screen.request.headers.get("hx-request") == "true":
        found = project_store.get_project(screen.conn, name)
        return screen.render("admin/sync_form.html", project=found)
    return screen.redirect("/dashboard/admin/projects")


@screen("admin")
def users(screen: Screen) -> Response:
    """GET /dashboard/admin/users (and /users/list for HTMX) — managed users."""
    rows = principals.list_users(screen.conn)
    return screen.render(
        "admin/users.html", partial="admin/user_list.html", rows=rows, error="", form={}
    )


@screen("admin")
def user_detail(screen: Screen) -> Response:
    """GET /dashboard/admin/users/{principal_id} — one user, their tokens and grants."""
    return _user_page(screen, screen.request.path_params["principal_id"])


def _user_page(
    screen: Screen, principal_id: str, *, raw_token: str = "", error: str = "", status: int = 200
) -> Response:
    user = principals.get_user(screen.conn, principal_id)
    if user is None:
        return screen.render("error.html", status=404, status_code=404, message="no such user")
    return screen.render(
        "admin/user.html",
        status=status,
        user=user,
        tokens=principals.list_tokens(screen.conn, principal_id),
        grants=principals.list_grants(screen.conn, principal_id),
        projects=[row["name"] for row in project_store.list_projects(screen.conn)],
        raw_token=raw_token,
        error=error,
    )


@screen("manage")
def create_user(screen: Screen) -> Response:
    """POST /dashboard/admin/users — create a managed user."""
    form = screen.form
    try:
        user = identity.create_user(
            screen.conn,
            form.get("username", ""),
            email=form.get("email", ""),
            display_name=form.get("display_name", ""),
            role=form.get("role", "member") or "member",
        )
    except CloudProblem as problem:
        rows = principals.list_users(screen.conn)
        return screen.render(
            "admin/users.html", status=400, rows=rows, error=problem.message, form=form
        )
    return screen.redirect(f"{USERS}/{user['principal_id']}")


def _enable(enabled: bool):  # type: ignore[no-untyped-def]
    @screen("manage")
    def toggle(screen: Screen) -> Response:
        principal_id = screen.request.path_params["principal_id"]
        try:
            identity.set_enabled(screen.conn, principal_id, enabled)
        except CloudProblem as problem:
            return _user_page(screen, principal_id, error=problem.message, status=problem.status)
        return screen.redirect(f"{USERS}/{principal_id}")

    toggle.__name__ = "enable_user" if enabled else "disable_user"
    return toggle


enable_user = _enable(True)
disable_user = _enable(False)


@screen("manage")
def create_token(screen: Screen) -> Response:
    """POST /dashboard/admin/users/{principal_id}/tokens — issue a token, shown once."""
    principal_id = screen.request.path_params["principal_id"]
    pepper = screen.cloud.settings.token_pepper
    if not pepper:
        return _user_page(
            screen, principal_id, error="ENGRAM_CLOUD_TOKEN_PEPPER is not set", status=409
        )
    assert screen.viewer.principal is not None
    try:
        raw, _ = identity.issue_token(
            screen.conn,
            pepper,
            principal_id,
            screen.form.get("name", ""),
            screen.viewer.principal.id,
        )
    except CloudProblem as problem:
        return _user_page(screen, principal_id, error=problem.message, status=problem.status)
    return _user_page(screen, principal_id, raw_token=raw)


@screen("manage")
def revoke_token(screen: Screen) -> Response:
    """POST /dashboard/admin/tokens/{token_id}/revoke — revoke (its sessions end too)."""
    token_id = screen.request.path_params["token_id"]
    token = principals.get_token(screen.conn, token_id)
    if token is None:
        return screen.render("error.html", status=404, status_code=404, message="no such token")
    identity.revoke_token(screen.conn, token_id, screen.form.get("reason", "") or "revoked")
    return screen.redirect(f"{USERS}/{token['principal_id']}")


@screen("manage")
def create_grant(screen: Screen) -> Response:
    """POST /dashboard/admin/users/{principal_id}/grants — grant a project."""
    principal_id = screen.request.path_params["principal_id"]
    assert screen.viewer.principal is not None
    try:
        identity.grant(
            screen.conn, principal_id, screen.form.get("project", ""), screen.viewer.principal.id
        )
    except CloudProblem as problem:
        return _user_page(screen, principal_id, error=problem.message, status=problem.status)
    return screen.redirect(f"{USERS}/{principal_id}")


@screen("manage")
def revoke_grant(screen: Screen) -> Response:
    """POST /dashboard/admin/users/{principal_id}/grants/{project}/revoke."""
    params = screen.request.path_params
    try:
        identity.revoke_grant(screen.conn, params["principal_id"], params["project"])
    except CloudProblem as problem:
        return _user_page(screen, params["principal_id"], error=problem.message, status=404)
    return screen.redirect(f"{USERS}/{params['principal_id']}")


@screen("admin")
def admin_health(screen: Screen) -> Response:
    """GET /dashboard/admin/health — the database, the settings and the sizes."""
    version = screen.conn.execute("SHOW server_version").fetchone()
    settings = screen.cloud.settings
    facts = {
        "database": f"PostgreSQL {version['server_version'] if version else '?'}",
        "mode": "insecure (no auth)" if settings.insecure else "authenticated",
        "managed tokens": "on" if settings.managed_tokens else "off (no pepper)",
        "allowed projects": ", ".join(settings.allowed_projects),
        "max push bytes": str(settings.max_push_bytes),
    }
    return screen.render("admin/health.html", facts=facts, totals=readmodel.totals(screen.conn))


@screen("admin")
def audit_log(screen: Screen) -> Response:
    """GET /dashboard/admin/audit-log (and /audit-log/list for HTMX) — sync and auth audits."""
    page = screen.page_number()
    offset = (page - 1) * PAGE_SIZE
    sync_rows = project_store.list_sync_audit(screen.conn, limit=PAGE_SIZE + 1, offset=offset)
    auth_rows = auth_audit.list_events(screen.conn, limit=PAGE_SIZE + 1, offset=offset)
    paging = pages(offset + max(len(sync_rows), len(auth_rows)), page)
    return screen.render(
        "admin/audit.html",
        partial="admin/audit_list.html",
        sync_rows=sync_rows[:PAGE_SIZE],
        auth_rows=auth_rows[:PAGE_SIZE],
        paging=paging,
    )
