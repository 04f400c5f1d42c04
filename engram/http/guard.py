"""Who may talk to the local runtime: local ``Host`` / ``Origin`` only, and the bearer token.

A web page in the user's browser can make requests to 127.0.0.1; DNS rebinding can even make
them look same-origin. So every request (the JSON routes and ``/mcp``) must name a loopback host
(or the address the server was told to bind) in ``Host``, and an ``Origin``, when present, must be
a loopback origin. ``ENGRAM_HTTP_TOKEN`` is read on every request (no restart needed) and
compared in constant time; it is never logged.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from typing import Literal
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from engram.http.problems import HttpProblem

TOKEN_ENV = "ENGRAM_HTTP_TOKEN"
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
TokenRule = Literal["none", "when_set", "required"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address, without port) is this machine's loopback."""
    name = host.strip().strip("[]").lower()
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_name(value: str) -> str:
    """The host part of a ``Host`` header (``[::1]:7437`` -> ``::1``)."""
    parsed = urlsplit(f"//{value}")
    return (parsed.hostname or "").lower()


class LocalOnly:
    """ASGI middleware refusing requests whose ``Host`` or ``Origin`` is not local.

    Args:
        app: the wrapped app.
        extra_hosts: host names also accepted (the address the server binds when not loopback).
    """

    def __init__(self, app: ASGIApp, extra_hosts: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.extra_hosts = frozenset(h.lower().strip("[]") for h in extra_hosts)

    def _allowed(self, host: str) -> bool:
        return is_loopback(host) or host in self.extra_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(headers, unix_socket=_over_unix_socket(scope))
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, code, error = refusal
        body = json.dumps({"error": error, "code": code}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", b"%d" % len(body)),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _refusal(
        self, headers: dict[str, str], *, unix_socket: bool
    ) -> tuple[int, str, str] | None:
        host = headers.get("host")
        # No browser can open a Unix socket, so no page can rebind a name onto it: any Host
        # (curl --unix-socket sends the URL's) is fine there. Origin is still checked.
        if not unix_socket and (host is None or not self._allowed(_host_name(host))):
            return (
                421,
                "http.host_not_local",
                "refused: the Host header must name this machine (localhost or 127.0.0.1)",
            )
        origin = headers.get("origin")
        if origin is not None:
            parsed = urlsplit(origin)
            ok = parsed.scheme in ("http", "https") and self._allowed(parsed.hostname or "")
            if not ok:
                return (
                    403,
                    "http.origin_not_local",
                    "refused: requests from web pages of other origins may not use Engram",
                )
        return None


def _over_unix_socket(scope: Scope) -> bool:
    """Whether the request came through a Unix socket (uvicorn reports ``(path, None)``)."""
    server = scope.get("server")
    return isinstance(server, tuple | list) and len(server) == 2 and server[1] is None


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
