"""Where ``ENGRAM_HTTP_TOKEN`` is asked for beyond the route table: MCP tools and wide binds.

The JSON routes declare their own rule (``@endpoint(token=...)``). Two places cannot:

- ``/mcp`` is one route for every tool, and a tool that deletes, overwrites or moves memories
  (:data:`GUARDED_TOOLS`) does the same damage as ``DELETE /observations/{id}``. When a token
  is configured, a ``POST /mcp`` calling one of them without the bearer token is refused with
  ``401 http.unauthorized`` before the MCP server sees it; every other tool stays open.
- A server bound beyond loopback (``engram serve --host``) is reachable by other machines, so
  every route but ``GET /health`` needs the token there (``everywhere=True``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engram.http.guard import TOKEN_ENV, bearer_matches

# Tools that delete, overwrite or move memories: the same damage as the guarded routes.
GUARDED_TOOLS = frozenset({"mem_delete", "mem_update", "mem_merge_projects"})
# An MCP request body is read at most this far to find the tools it calls.
MCP_INSPECT_LIMIT = 4 * 1024 * 1024
_OPEN_ROUTES = frozenset({("GET", "/health")})


class TokenGate:
    """ASGI middleware asking for the bearer token on guarded MCP calls (and, with
    ``everywhere``, on every route but ``GET /health``).

    Args:
        app: the wrapped app.
        everywhere: every route needs the token (the server binds beyond loopback).
    """

    def __init__(self, app: ASGIApp, everywhere: bool = False) -> None:
        self.app = app
        self.everywhere = everywhere

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or _authorized(scope):
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        if self.everywhere and (method, path) not in _OPEN_ROUTES:
            await JSONResponse(_UNAUTHORIZED, 401)(scope, receive, send)
            return
        if method != "POST" or path.rstrip("/") != "/mcp" or not _token_configured():
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive, MCP_INSPECT_LIMIT)
        if body is None:
            await JSONResponse(_TOO_LARGE, 413)(scope, receive, send)
            return
        called = sorted(set(_called_tools(body)) & GUARDED_TOOLS)
        if called:
            refusal = dict(_UNAUTHORIZED)
            refusal["error"] = (
                f"{called[0]} deletes, overwrites or moves memories: {refusal['error']}"
            )
            await JSONResponse(refusal, 401)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive), send)


_UNAUTHORIZED = {
    "error": "missing or wrong bearer token",
    "code": "http.unauthorized",
    "remedy": "send `Authorization: Bearer <ENGRAM_HTTP_TOKEN>`",
}
_TOO_LARGE = {
    "error": f"the request body is larger than {MCP_INSPECT_LIMIT} bytes",
    "code": "http.body_too_large",
}


def _token_configured() -> bool:
    return bool(os.environ.get(TOKEN_ENV, "").strip())


def _authorized(scope: Scope) -> bool:
    """Whether the request carries the configured token (False when none is configured)."""
    for key, value in scope["headers"]:
        if key.lower() == b"authorization":
            return bearer_matches(value.decode("latin-1"))
    return False


def _called_tools(body: bytes) -> Iterator[str]:
    """The tool names a JSON-RPC message (or batch) calls: ``tools/call`` or a bare name."""
    try:
        parsed: Any = json.loads(body)
    except (ValueError, RecursionError):
        return  # the MCP server answers the parse error itself
    for message in parsed if isinstance(parsed, list) else [parsed]:
        if not isinstance(message, dict):
            continue
        method, params = message.get("method"), message.get("params")
        if method == "tools/call" and isinstance(params, dict):
            name = params.get("name")
            if isinstance(name, str):
                yield name
        elif isinstance(method, str):
            yield method


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body, or None once it grows past ``limit``."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then the real channel."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
