"""Who may talk to the local runtime: local ``Host`` / ``Origin`` only, and the bearer token.

Every request (the JSON routes and ``/mcp``) passes :mod:`engram.browser_guard` (the check
``engram cloud serve`` shares): ``Host`` names loopback (or the address the server was told to
bind), and an ``Origin``, when present, is a loopback origin. ``ENGRAM_HTTP_TOKEN`` is read on
every request (no restart needed) and compared in constant time; it is never logged.
"""

from __future__ import annotations

import hmac
import os
from typing import Literal

from starlette.requests import Request
from starlette.types import ASGIApp

from engram.browser_guard import BrowserGuard, is_loopback
from engram.http.problems import HttpProblem

__all__ = [
    "TOKEN_ENV",
    "LocalOnly",
    "TokenRule",
    "bearer_matches",
    "check_token",
    "is_loopback",
]

TOKEN_ENV = "ENGRAM_HTTP_TOKEN"
TokenRule = Literal["none", "when_set", "required"]


def _local_refusal(reason: str, message: str) -> dict[str, object]:
    return {"error": message, "code": f"http.{reason}"}


class LocalOnly(BrowserGuard):
    """The shared :class:`~engram.browser_guard.BrowserGuard` with ``engram serve``'s envelope
    (``http.host_not_local`` / ``http.origin_not_local``).

    Args:
        app: the wrapped app.
        extra_hosts: host names also accepted (the address the server binds when not loopback).
    """

    def __init__(self, app: ASGIApp, extra_hosts: frozenset[str] = frozenset()) -> None:
        super().__init__(app, _local_refusal, extra_hosts)


def check_token(request: Request, rule: TokenRule) -> None:
    """Enforce the bearer-token rule of a route.

    Raises:
        HttpProblem: 503 when the route requires a token and none is configured; 401 when the
            request's ``Authorization: Bearer`` credential is missing or wrong.
    """
    if rule == "none":
        return
    expected = os.environ.get(TOKEN_ENV, "")
    if not expected.strip():
        if rule == "required":
            raise HttpProblem(
                503,
                "http.token_not_configured",
                "this route is served only when ENGRAM_HTTP_TOKEN is set on the server",
                remedy="set ENGRAM_HTTP_TOKEN for `engram serve`, or run the CLI equivalent",
            )
        return
    valid = bearer_matches(request.headers.get("authorization", ""))
    if not valid:
        raise HttpProblem(
            401,
            "http.unauthorized",
            "missing or wrong bearer token",
            remedy="send `Authorization: Bearer <ENGRAM_HTTP_TOKEN>`",
        )


def bearer_matches(header: str) -> bool:
    """Whether an ``Authorization`` header carries ``Bearer <ENGRAM_HTTP_TOKEN>`` (compared in
    constant time; False when no token is configured)."""
    expected = os.environ.get(TOKEN_ENV, "").strip()
    scheme, _, credential = header.partition(" ")
    if not expected or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(credential.strip().encode("utf-8"), expected.encode("utf-8"))
