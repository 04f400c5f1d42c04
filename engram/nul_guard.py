"""NUL bytes never reach a route: the check shared by ``engram serve`` and ``engram cloud serve``.

A NUL (``\\x00``, or ``%00`` once decoded) in the path, the query string or a header value is
refused with ``400`` in the app's own JSON envelope before any route runs: SQLite and Postgres
text, file paths and subprocess arguments cannot hold it, and a route that met one would
answer a 500. JSON bodies are checked where they are parsed (:func:`holds_nul`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

# (message) -> the JSON body of the refusal, in the app's envelope.
NulRefusal = Callable[[str], dict[str, object]]
MESSAGE = "refused: the request holds a NUL byte (in its path, query or headers)"


def holds_nul(value: Any) -> bool:
    """Whether a parsed JSON value holds a NUL in any string (keys included)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


# re finds this literal faster than bytes' ``in`` does: in a 2,000-row push body (1.7 MB)
# 0.46 ms instead of 1.13, 0.65 instead of 1.02 with a backslash every 36 bytes.
_ESCAPED_NUL = re.compile(rb"\\u0000")


def body_holds_nul(raw: bytes | bytearray, parsed: Any) -> bool:
    """Whether the JSON body ``raw``, parsed as ``parsed``, holds a NUL in any string.

    Strict UTF-8 JSON can carry a NUL only as the escape ``\\u0000``: a body without those six
    bytes and without a zero byte (UTF-16 and UTF-32 bodies have them) is clean without walking
    every value.
    """
    return body_may_hold_nul(raw) and holds_nul(parsed)


def body_may_hold_nul(raw: bytes | bytearray) -> bool:
    """Whether the JSON text ``raw`` may hold a NUL in a string (the escape or a zero byte)."""
    return _ESCAPED_NUL.search(raw) is not None or b"\x00" in raw


def _request_holds_nul(scope: Scope) -> bool:
    raw_path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogateescape")
    if b"\x00" in unquote_to_bytes(raw_path) or "\x00" in scope.get("path", ""):
        return True
    query = scope.get("query_string", b"")
    if b"\x00" in unquote_to_bytes(query.replace(b"+", b" ")):
        return True
    return any(b"\x00" in value for _, value in scope.get("headers", ()))


class NulGuard:
    """ASGI middleware answering 400 to a request with a NUL in its path, query or headers.

    Args:
        app: the wrapped app.
        refusal: renders the refusal body for the app's envelope.
    """

    def __init__(self, app: ASGIApp, refusal: NulRefusal) -> None:
        self.app = app
        self.refusal = refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _request_holds_nul(scope):
            await self.app(scope, receive, send)
            return
        await JSONResponse(self.refusal(MESSAGE), 400)(scope, receive, send)
