"""MCP over streamable HTTP at ``/mcp``: the same server (tools, resources, prompts) as
``engram-mcp``, on the SDK's streamable HTTP transport.

Both protocol eras: the legacy ``initialize`` handshake opens a session (``Mcp-Session-Id``);
a request carrying a 2026-07-28 ``MCP-Protocol-Version`` header is served statelessly. Host and
Origin are checked by :class:`engram.http.guard.LocalOnly` before a request gets here.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from engram.http.app import Lifespan


class _McpEndpoint:
    """The ASGI app behind ``/mcp`` (a class, so Starlette passes it every method)."""

    def __init__(self) -> None:
        self.manager: Any = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.manager is None:  # pragma: no cover - only before the lifespan started
            raise RuntimeError("the MCP session manager is not running")
        await self.manager.handle_request(scope, receive, send)


def mcp_endpoint() -> tuple[Route, Lifespan]:
    """The ``/mcp`` route and the lifespan that runs its session manager."""
    endpoint = _McpEndpoint()

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        from engram.server.app import build_server
        from engram.server.options import current_options

        server, _engram = build_server(current_options())
        # Host/Origin are already checked by LocalOnly for every route.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        manager = StreamableHTTPSessionManager(server, security_settings=security)
        async with manager.run():
            endpoint.manager = manager
            try:
                yield
            finally:
                endpoint.manager = None

    return Route("/mcp", endpoint), lifespan
