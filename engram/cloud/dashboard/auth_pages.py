"""Signing in and out, the dashboard's health, its static assets and the first-admin bootstrap.

Sign-in exchanges a token for the session cookie: a managed token (when managed tokens are
on) or the legacy ``ENGRAM_CLOUD_ADMIN`` token; the sync token is refused. Every attempt is in
the auth audit log, without the token. In insecure mode there is nothing to sign in to: the
login page redirects to the overview.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from engram.cloud import identity
from engram.cloud.auth import TOKEN_PREFIX, Principal, authenticate, token_prefix
from engram.cloud.dashboard.render import SECURITY_HEADERS, STATIC
from engram.cloud.dashboard.screens import Screen, fresh_session, screen
from engram.cloud.problems import CloudProblem
from engram.cloud.store import auth_audit, dashboard_sessions, principals

CONTENT_TYPES = {".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}


@screen("public")
def login_form(screen: Screen) -> Response:
    """GET /dashboard/login — the sign-in form (the overview when already signed in)."""
    if screen.viewer.signed_in:
        return screen.redirect("/dashboard/")
    return screen.render("login.html", error="")


# Refused sign-ins allowed in LOGIN_WINDOW_S from one client address, and for one claimed
# principal (a managed token's public prefix, or "legacy" for the legacy admin token).
LOGIN_WINDOW_S = 900
CLIENT_FAILURES = 20
PRINCIPAL_FAILURES = 10


def _audit_login(
    screen: Screen, principal: Principal | None, reason: str, claimed: str = ""
) -> None:
    metadata = {"client": _client(screen), "claimed": claimed}
    if principal and principal.token_id:
        metadata["token_id"] = principal.token_id
    auth_audit.record(
        screen.conn,
        event="dashboard.login",
        allowed=not reason,
        principal_id=principal.id if principal else None,
        credential=principal.kind if principal else "none",
        route="dashboard.login",
        reason=reason,
        metadata=metadata,
    )


def _client(screen: Screen) -> str:
    client = screen.request.client
    return client.host if client else ""


def _claimed(token: str) -> str:
    return token_prefix(token) if token.startswith(TOKEN_PREFIX) else "legacy"


def _rate_limited(screen: Screen, claimed: str) -> Response | None:
    """429 (audited) once a client or a claimed principal had too many refused sign-ins."""
    by_client, by_principal = dashboard_sessions.denied_logins(
        screen.conn, client=_client(screen), claimed=claimed, window_s=LOGIN_WINDOW_S
    )
    if by_client < CLIENT_FAILURES and by_principal < PRINCIPAL_FAILURES:
        return None
    _audit_login(screen, None, "rate_limited", claimed)
    response = screen.render(
        "login.html",
        status=429,
        error=f"too many refused sign-ins; wait {LOGIN_WINDOW_S // 60} minutes and try again",
    )
    response.headers["Retry-After"] = str(LOGIN_WINDOW_S)
    return response


@screen("public")
def login(screen: Screen) -> Response:
    """POST /dashboard/login — check the token, start a session (rate-limited)."""
    if screen.cloud.settings.insecure or screen.viewer.signed_in:
        return screen.redirect("/dashboard/")
    token = screen.form.get("token", "").strip()
    claimed = _claimed(token)
    limited = _rate_limited(screen, claimed)
    if limited is not None:
        return limited
    found = authenticate(screen.conn, screen.cloud.settings, f"Bearer {token}") if token else None
    principal = found if isinstance(found, Principal) else None
    reason = ""
    if principal is None:
        reason = "invalid_token"
    elif principal.kind not in ("managed", "legacy_admin"):
        reason, principal = "sync_token_not_for_dashboard", None
    _audit_login(screen, principal, reason, claimed)
    if principal is None:
        message = (
            "the sync token cannot sign in to the dashboard; use your own token"
            if reason == "sync_token_not_for_dashboard"
            else "that token is not valid (revoked, disabled or mistyped)"
        )
        return screen.render("login.html", status=401, error=message)
    screen.session = fresh_session(principal.kind, principal.token_id)
    return screen.redirect("/dashboard/")


@screen("public")
def logout(screen: Screen) -> Response:
    """POST /dashboard/logout — end the session, on the server too: the old cookie is refused
    from now on, even if someone kept a copy."""
    cookie = screen.cookie or {}
    if cookie.get("sid"):
        dashboard_sessions.sign_out(screen.conn, str(cookie["sid"]), int(cookie.get("exp", 0)))
    screen.session = {"logout": True}
    return screen.redirect("/dashboard/login")


async def health(request: Request) -> Response:
    """GET /dashboard/health — the dashboard answers and its assets are present."""
    ok = (STATIC / "htmx.min.js").is_file() and (STATIC / "dashboard.css").is_file()
    return JSONResponse(
        {"status": "ok" if ok else "degraded", "service": "engram-dashboard"},
        status_code=200 if ok else 503,
        headers=SECURITY_HEADERS,
    )


async def static(request: Request) -> Response:
    """GET /dashboard/static/{name} — the app's own CSS and JS (nothing from elsewhere)."""
    name = request.path_params["name"]
    path = (STATIC / name).resolve()
    if path.parent != STATIC.resolve() or not path.is_file() or path.suffix not in CONTENT_TYPES:
        raise CloudProblem(404, "invalid_request", "not_found", "no such asset")
    return FileResponse(
        path,
        media_type=CONTENT_TYPES[path.suffix],
        headers={"Cache-Control": "public, max-age=3600", "X-Content-Type-Options": "nosniff"},
    )


@screen("public")
def bootstrap_form(screen: Screen) -> Response:
    """GET /dashboard/bootstrap — the first managed admin form (legacy admin session only)."""
    if not screen.viewer.is_legacy_admin:
        return screen.render("error.html", status=403, status_code=403, message=_BOOTSTRAP_ONLY)
    exists = bool(principals.enabled_admins(screen.conn))
    return screen.render("bootstrap.html", exists=exists, error="")


_BOOTSTRAP_ONLY = "bootstrap needs the legacy ENGRAM_CLOUD_ADMIN session"


@screen("public")
def bootstrap(screen: Screen) -> Response:
    """POST /dashboard/bootstrap — create the first managed admin (refused when one exists)."""
    if not screen.viewer.is_legacy_admin:
        return screen.render("error.html", status=403, status_code=403, message=_BOOTSTRAP_ONLY)
    principals.lock_identity(screen.conn)
    if principals.enabled_admins(screen.conn):
        _audit_bootstrap(screen, reason="admin_exists")
        return screen.render("bootstrap.html", status=409, exists=True, error="an admin exists")
    try:
        user = identity.create_user(
            screen.conn,
            screen.form.get("username", ""),
            email=screen.form.get("email", ""),
            display_name=screen.form.get("display_name", ""),
            role="admin",
        )
    except CloudProblem as problem:
        return screen.render("bootstrap.html", status=400, exists=False, error=problem.message)
    _audit_bootstrap(screen, created=user["principal_id"])
    return screen.redirect(f"/dashboard/admin/users/{user['principal_id']}")


def _audit_bootstrap(screen: Screen, *, reason: str = "", created: str = "") -> None:
    auth_audit.record(
        screen.conn,
        event="dashboard.bootstrap",
        allowed=not reason,
        principal_id="legacy-admin",
        credential="legacy_admin",
        route="dashboard.bootstrap",
        reason=reason,
        metadata={"created": created} if created else None,
    )
