"""What a web page in the user's browser may reach: the ``Host`` / ``Origin`` check shared by
``engram serve`` and ``engram cloud serve``.

A page can send requests to 127.0.0.1, and DNS rebinding can make them look same-origin. So a
guarded app answers only requests whose ``Host`` names loopback (or a name the server was told
to accept) and whose ``Origin``, when present, is an ``http(s)`` origin on one of those names.
A cross-origin ``text/plain`` POST carries the page's ``Origin`` and is refused before any route
runs; a rebound read carries the attacker's name in ``Host`` and is refused the same way.
Each app renders the refusal in its own JSON envelope (:data:`Refusal`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
HOST_NOT_LOCAL = "host_not_local"
ORIGIN_NOT_LOCAL = "origin_not_local"
# (reason, message) -> the JSON body of the refusal; reason is HOST_NOT_LOCAL or ORIGIN_NOT_LOCAL.
Refusal = Callable[[str, str], dict[str, object]]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address, without port) is this machine's loopback."""
    name = host.strip().strip("[]").lower()
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name(value: str) -> str:
    """The host part of a ``Host`` header (``[::1]:7437`` -> ``::1``)."""
    parsed = urlsplit(f"//{value}")
    return (parsed.hostname or "").lower()


class BrowserGuard:
    """ASGI middleware refusing requests whose ``Host`` or ``Origin`` is not local.

    Args:
        app: the wrapped app.
        refusal: renders the refusal body for the app's envelope.
        extra_hosts: host names also accepted (a non-loopback bind address, a proxy's name).
    """

    def __init__(
        self, app: ASGIApp, refusal: Refusal, extra_hosts: frozenset[str] = frozenset()
    ) -> None:
        self.app = app
        self.refusal = refusal
        self.extra_hosts = frozenset(h.lower().strip("[]") for h in extra_hosts)

    def allowed(self, host: str) -> bool:
        """Whether a host name may be served."""
        return is_loopback(host) or host in self.extra_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refused = self.refused(headers, unix_socket=over_unix_socket(scope))
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, reason, message = refused
        await JSONResponse(self.refusal(reason, message), status)(scope, receive, send)

    def refused(self, headers: dict[str, str], *, unix_socket: bool) -> tuple[int, str, str] | None:
        """``(status, reason, message)`` of a refused request, or None."""
        host = headers.get("host")
        # No browser can open a Unix socket, so no page can rebind a name onto it: any Host
        # (curl --unix-socket sends the URL's) is fine there. Origin is still checked.
        if not unix_socket and (host is None or not self.allowed(host_name(host))):
            return (
                421,
                HOST_NOT_LOCAL,
                "refused: the Host header must name this machine (localhost or 127.0.0.1)",
            )
        origin = headers.get("origin")
        if origin is not None:
            parsed = urlsplit(origin)
            ok = parsed.scheme in ("http", "https") and self.allowed(parsed.hostname or "")
            if not ok:
                return (
                    403,
                    ORIGIN_NOT_LOCAL,
                    "refused: requests from web pages of other origins may not use Engram",
                )
        return None


def over_unix_socket(scope: Scope) -> bool:
    """Whether the request came through a Unix socket (uvicorn reports ``(path, None)``)."""
    server = scope.get("server")
    return isinstance(server, tuple | list) and len(server) == 2 and server[1] is None
