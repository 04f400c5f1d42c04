"""MCP over streamable HTTP at ``/mcp``: the same server (tools, resources, prompts) as
``engram-mcp``, on the SDK's streamable HTTP transport.

Both protocol eras: the legacy ``initialize`` handshake opens a session (``Mcp-Session-Id``);
a request carrying a 2026-07-28 ``MCP-Protocol-Version`` header is served statelessly. Host and
Origin are checked by :class:`engram.http.guard.LocalOnly` before a request gets here.

The MCP SDK takes most of a second to import, and hooks spawn ``engram serve`` and give it half
a second before they ask ``GET /health``. So the lifespan does not wait for it: the SDK is
imported in a worker thread :data:`WARM_UP_AFTER_S` after start-up (so it does not compete with
the first answers), or at once when a request to ``/mcp`` comes first; such a request waits for
the session manager.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import anyio.to_thread
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from engram.http.app import Lifespan

logger = logging.getLogger("engram.http")

# Seconds after start-up at which the MCP SDK is loaded when no /mcp request asked for it.
WARM_UP_AFTER_S = 1.0


def _build_manager() -> Any:
    """The SDK's streamable HTTP session manager over Engram's MCP server (slow: imports)."""
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    from engram.server.app import build_server
    from engram.server.options import current_options

    server, _engram = build_server(current_options())
    # Host/Origin are already checked by LocalOnly for every route.
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return StreamableHTTPSessionManager(server, security_settings=security)


class _McpEndpoint:
    """The ASGI app behind ``/mcp`` (a class, so Starlette passes it every method)."""

    def __init__(self) -> None:
        self.manager: Any = None
        self.wanted: anyio.Event | None = None
        self.ready: anyio.Event | None = None

    async def run(self, wanted: anyio.Event, ready: anyio.Event) -> None:
        """Build the session manager off the event loop, then run it until cancelled."""
        with anyio.move_on_after(WARM_UP_AFTER_S):
            await wanted.wait()
        try:
            manager = await anyio.to_thread.run_sync(_build_manager)
        except Exception:
            logger.exception("the MCP endpoint could not start")
            ready.set()
            return
        async with manager.run():
            self.manager = manager
            ready.set()
            try:
                await anyio.sleep_forever()
            finally:
                self.manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.wanted is not None and self.ready is not None:
            self.wanted.set()
            await self.ready.wait()
        if self.manager is None:
            answer = JSONResponse(
                {"error": "the MCP endpoint is not running", "code": "mcp.unavailable"}, 503
            )
            await answer(scope, receive, send)
            return
        await self.manager.handle_request(scope, receive, send)


def mcp_endpoint() -> tuple[Route, Lifespan]:
    """The ``/mcp`` route and the lifespan that starts its session manager in the background."""
    endpoint = _McpEndpoint()

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            endpoint.wanted, endpoint.ready = anyio.Event(), anyio.Event()
            group.start_soon(endpoint.run, endpoint.wanted, endpoint.ready)
            try:
                yield
            finally:
                group.cancel_scope.cancel()

    return Route("/mcp", endpoint), lifespan
