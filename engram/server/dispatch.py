"""Serve every request in its own protocol era, on one connection.

The SDK's stream loop fixes the era of a whole connection from its first request. The seed asks
for more: *a request* whose ``params._meta`` carries ``io.modelcontextprotocol/protocolVersion``
is served statelessly (2026-07-28), whatever came before it, and everything else follows the
legacy ``initialize`` handshake. So we drive the SDK's own dispatcher and kernels per request:

- enveloped: ``initialize``, ``ping`` and bare tool-name methods are -32601; otherwise the SDK's
  inbound ladder (-32602 without clientCapabilities, -32022 for an unsupported version) and its
  single-exchange kernel ``serve_one`` (``resultType``, ``ttlMs`` / ``cacheScope``).
- not enveloped: the SDK's handshake kernel (version echo for the four known versions, 2025-11-25
  otherwise). A bare call of a tool name answers with the tool's plain text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.connection import Connection, NotifyOnlyOutbound
from mcp.server.lowlevel import Server
from mcp.server.models import InitializationOptions
from mcp.server.runner import (
    ServerRunner,
    _NoServerRequestsDispatchContext,
    aclose_shielded,
    serve_one,
)
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.dispatcher import DispatchContext
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from mcp.shared.transport_context import TransportContext
from mcp_types import METHOD_NOT_FOUND, PROTOCOL_VERSION_META_KEY

from engram.server.app import EngramServer

_MODERN_REFUSED = frozenset({"initialize", "ping"})


def is_enveloped(params: Mapping[str, Any] | None) -> bool:
    """Whether a request carries the 2026-07-28 per-request protocol version."""
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    return isinstance(meta, Mapping) and PROTOCOL_VERSION_META_KEY in meta


async def serve_both_eras(
    server: Server[Any],
    engram: EngramServer,
    read_stream: ReadStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
    init_options: InitializationOptions,
) -> None:
    """Serve requests from ``read_stream`` until it closes, each in its own era."""
    dispatcher: JSONRPCDispatcher[TransportContext] = JSONRPCDispatcher(
        read_stream,
        write_stream,
        # The handshake runs inline so requests pipelined behind it see the negotiated version.
        inline_methods=frozenset({"initialize"}),
    )
    connection = Connection.for_loop(dispatcher)
    legacy = ServerRunner(server, connection, {}, init_options=init_options)
    outbound = NotifyOnlyOutbound(dispatcher)

    async def on_request(
        dctx: DispatchContext[TransportContext], method: str, params: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        if is_enveloped(params):
            return await _serve_modern(server, engram, outbound, dctx, method, params)
        if _is_bare_tool(engram, method):
            return await _bare_tool_call(engram, method, params)
        return await legacy.on_request(dctx, method, params)

    try:
        await dispatcher.run(on_request, legacy.on_notify)
    finally:
        await aclose_shielded(connection)


async def _serve_modern(
    server: Server[Any],
    engram: EngramServer,
    outbound: NotifyOnlyOutbound,
    dctx: DispatchContext[TransportContext],
    method: str,
    params: Mapping[str, Any] | None,
) -> dict[str, Any]:
    route = classify_inbound_request({"method": method, "params": params})
    if isinstance(route, InboundLadderRejection):
        raise MCPError(code=route.code, message=route.message, data=route.data)
    if method in _MODERN_REFUSED or _is_bare_tool(engram, method):
        raise MCPError(
            code=METHOD_NOT_FOUND,
            message=f"Method not found: {method} is not a 2026-07-28 method",
            data=method,
        )
    connection = Connection.from_envelope(
        route.protocol_version, route.client_info, route.client_capabilities, outbound=outbound
    )
    return await serve_one(
        server,
        _NoServerRequestsDispatchContext(dctx),
        method,
        params,
        connection=connection,
        lifespan_state={},
    )


def _is_bare_tool(engram: EngramServer, method: str) -> bool:
    """A tool name used as the method. MCP methods never qualify (they hold a "/" or are
    ``initialize`` / ``ping``), so the handshake never waits for the tool modules to load."""
    return "/" not in method and method not in _MODERN_REFUSED and method in engram.tools


async def _bare_tool_call(
    engram: EngramServer, method: str, params: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A legacy call of a tool name as the method: the tool's human text, nothing else."""
    arguments = {k: v for k, v in (params or {}).items() if k != "_meta"}
    result = await engram.call_tool(method, arguments)
    return {"content": result.get("content", []), "isError": bool(result.get("isError"))}
