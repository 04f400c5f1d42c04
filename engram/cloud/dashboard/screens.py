"""The plumbing every dashboard route shares: session, viewer, access gate, CSRF, errors.

A route is a plain function ``(Screen) -> Response`` run in a worker thread inside one
database transaction; :func:`screen` wraps it into a Starlette endpoint. Who may call it is
declared on the wrapper (``need=``), checked in one place here:

- ``public``: anyone (login, health, bootstrap do their own checks);
- ``viewer``: signed in (always, in insecure mode);
- ``admin``: a managed admin or the legacy admin session;
- ``manage``: a managed admin (user, token and grant mutations).

Every POST must carry the session's CSRF token (form field ``csrf`` or header
``X-CSRF-Token``); a missing or wrong token is refused before anything is read or written.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from engram.cloud.dashboard import render
from engram.cloud.dashboard.session import COOKIE, LIFETIME_S, new_csrf, seal, session_key, unseal
from engram.cloud.dashboard.viewer import Viewer, resolve
from engram.cloud.problems import CloudProblem
from engram.cloud.routes.requests import CloudContext, context, offload
from engram.cloud.store.db import Conn

Need = Literal["public", "viewer", "admin", "manage"]
FORM_LIMIT = 64 * 1024
PAGE_SIZE = 20
log = logging.getLogger("engram.cloud.dashboard")


@dataclass
class Screen:
    """What a route function gets: the request, who asks, a connection, the form fields."""

    request: Request
    viewer: Viewer
    conn: Conn
    cloud: CloudContext
    form: dict[str, str] = field(default_factory=dict)
    session: dict[str, Any] | None = None  # set by a route to replace the session cookie
    cookie: dict[str, Any] | None = None  # the verified data of the request's own cookie

    def query(self, name: str, default: str = "") -> str:
        """A query parameter, stripped."""
        return self.request.query_params.get(name, default).strip()

    def page_number(self) -> int:
        """``?page=N`` (1 when absent or not a positive number)."""
        raw = self.query("page", "1")
        digits = raw.isascii() and raw.isdigit()
        return int(raw) if digits and 0 < int(raw) < 1_000_000 else 1

    def render(
        self, template: str, partial: str | None = None, status: int = 200, **context: Any
    ) -> Response:
        """A page (or, for HTMX, its partial) with the viewer and CSRF token in context."""
        context.setdefault("viewer", self.viewer)
        context.setdefault("csrf", self.viewer.csrf)
        return render.page(self.request, template, context, status=status, partial=partial)

    def redirect(self, url: str) -> Response:
        """After a successful form: 303, or ``HX-Redirect`` for HTMX."""
        if render.is_htmx(self.request):
            return Response(status_code=204, headers={"HX-Redirect": url})
        return RedirectResponse(url, status_code=303)


@lru_cache(maxsize=4)
def _key(secret: str) -> bytes:
    return session_key(secret)


def _refusal(screen: Screen, status: int, message: str) -> Response:
    return screen.render("error.html", status=status, status_code=status, message=message)


def _gate(need: Need, viewer: Viewer) -> tuple[int, str] | None:
    if need == "public":
        return None
    if not viewer.signed_in:
        return 401, "sign in first"
    if need == "admin" and not viewer.can_read_admin:
        return 403, "this page is for admins"
    if need == "manage" and not viewer.can_manage_users:
        return 403, "managing users, tokens and grants needs a managed admin"
    return None


async def _read_form(request: Request) -> dict[str, str]:
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > FORM_LIMIT:
            raise CloudProblem(413, "invalid_request", "payload_too_large", "form too large")
    try:
        parsed = parse_qs(raw.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        return {}
    return {k: v[-1] for k, v in parsed.items()}


def screen(need: Need = "viewer") -> Callable[[Callable[[Screen], Response]], Any]:
    """Wrap a route function; see the module docstring."""

    def wrap(route: Callable[[Screen], Response]) -> Any:
        async def endpoint(request: Request) -> Response:
            cloud = context(request)
            key = _key(cloud.settings.jwt_secret if not cloud.settings.insecure else "")
            data = unseal(key, request.cookies.get(COOKIE))
            csrf = str((data or {}).get("csrf") or new_csrf())
            form = await _read_form(request) if request.method == "POST" else {}

            def work() -> tuple[Response, dict[str, Any] | None]:
                with cloud.store.transaction() as conn:
                    viewer = resolve(conn, cloud.settings, data, csrf)
                    current = Screen(request, viewer, conn, cloud, form, cookie=data)
                    refused = _gate(need, viewer)
                    if refused is not None and refused[0] == 401:
                        return current.redirect("/dashboard/login"), None
                    if refused is not None:
                        return _refusal(current, *refused), None
                    if request.method == "POST" and not _csrf_ok(request, form, csrf):
                        return _refusal(
                            current, 403, "the form expired; reload and try again"
                        ), None
                    return route(current), current.session

            try:
                response, replaced = await offload(work)
            except CloudProblem:
                raise
            except Exception:  # never a traceback in the browser; the log has it
                log.exception("dashboard %s %s failed", request.method, request.url.path)
                html = (
                    render.environment()
                    .get_template("error.html")
                    .render(
                        request=request,
                        viewer=Viewer(None, csrf),
                        csrf=csrf,
                        status_code=500,
                        message="the dashboard failed to answer; the server log has the details",
                    )
                )
                response, replaced = HTMLResponse(html, status_code=500), None
                response.headers.update(render.SECURITY_HEADERS)
            _set_cookie(request, response, key, data, csrf, replaced)
            return response

        endpoint.__name__ = route.__name__
        endpoint.__doc__ = route.__doc__
        return endpoint

    return wrap


def _csrf_ok(request: Request, form: dict[str, str], csrf: str) -> bool:
    sent = form.get("csrf") or request.headers.get("x-csrf-token", "")
    return bool(sent) and hmac.compare_digest(sent.encode(), csrf.encode())


def _set_cookie(
    request: Request,
    response: Response,
    key: bytes,
    data: dict[str, Any] | None,
    csrf: str,
    replaced: dict[str, Any] | None,
) -> None:
    secure = request.url.scheme == "https"
    if replaced is not None and replaced.get("logout"):
        response.delete_cookie(COOKIE, path="/dashboard", secure=secure, httponly=True)
        return
    if replaced is None and data is not None:
        return
    value = seal(key, replaced if replaced is not None else {"csrf": csrf})
    response.set_cookie(
        COOKIE,
        value,
        max_age=LIFETIME_S,
        path="/dashboard",
        httponly=True,
        samesite="strict",
        secure=secure,
    )


def pages(total: int, page: int, size: int = PAGE_SIZE) -> dict[str, Any]:
    """Pagination facts for templates: page, pages, offset, first/last shown, prev/next."""
    count = max(1, (total + size - 1) // size)
    page = min(page, count)
    offset = (page - 1) * size
    return {
        "page": page,
        "pages": count,
        "offset": offset,
        "first": offset + 1 if total else 0,
        "last": min(offset + size, total),
        "total": total,
        "prev": page - 1 if page > 1 else None,
        "next": page + 1 if page < count else None,
    }


def fresh_session(principal_kind: str, token_id: str | None) -> dict[str, Any]:
    """Session data for a new sign-in (a new CSRF token too)."""
    # sid: what sign-out records, so this cookie is refused afterwards (session.py is stateless)
    data: dict[str, Any] = {"kind": principal_kind, "csrf": new_csrf(), "sid": new_csrf()}
    if token_id:
        data["token_id"] = token_id
    return data
