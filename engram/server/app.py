"""The SDK ``Server`` for ``engram-mcp``: instructions, tools, resources and prompts.

Built on the lowlevel :class:`mcp.server.lowlevel.Server`, which already answers ``ping``,
``initialize`` version negotiation, ``server/discover`` and the 2026-07-28 cache hints. We add
the handlers: ``tools/list`` from the registry (filtered by ``--tools``), ``tools/call`` through
argument validation into the tool's ``run`` function, and resources / prompts from the catalog.
"""

from __future__ import annotations

import inspect
import logging
import sys
from typing import Any

import mcp_types as types
from mcp.server.caching import CacheHint
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from engram import __version__
from engram.errors import EngramError
from engram.server import catalog, tool_calls
from engram.server.options import ServerOptions
from engram.server.registry import ToolSpec, all_tools, select_tools
from engram.server.selection import unknown_tool_note

logger = logging.getLogger("engram.server")

INSTRUCTIONS = (
    "Engram is this project's long-term memory. Recall before acting: at the start of a task or "
    "when the user mentions past work, call mem_context, then mem_search (engram_load for "
    "project rules and decisions). Save as you go: after a fix, decision, discovery or "
    "convention call mem_save (What/Why/Where/Learned); before finishing call "
    "mem_session_summary. engram_save only proposes: call engram_commit only after the human "
    "approved the listed candidates in chat."
)

# Tool and prompt lists change only with a new release; resources follow the store.
_CACHE_HINTS: dict[Any, CacheHint] = {
    "tools/list": CacheHint(ttl_ms=300_000, scope="public"),
    "prompts/list": CacheHint(ttl_ms=300_000, scope="public"),
    "resources/list": CacheHint(ttl_ms=0, scope="private"),
    "resources/templates/list": CacheHint(ttl_ms=300_000, scope="public"),
}

ALWAYS_LOAD_META = "anthropic/alwaysLoad"


class EngramServer:
    """The tools a process serves and how to run them, independent of the wire.

    Args:
        options: the parsed command line.
    """

    def __init__(self, options: ServerOptions, *, announced_unknown: bool = False) -> None:
        self.options = options
        # The quick start already printed the --tools notes when it answered tools/list.
        self.announced_unknown = announced_unknown
        self._tools: dict[str, ToolSpec] | None = None

    @property
    def tools(self) -> dict[str, ToolSpec]:
        """The selected tools, loaded on first use so ``initialize`` never waits for them."""
        if self._tools is None:
            tools, unknown = select_tools(self.options.tools)
            for name in unknown:
                if not self.announced_unknown:
                    print(unknown_tool_note(name), file=sys.stderr)
            self._tools = {t.name: t for t in tools}
        return self._tools

    def list_tools(self) -> list[dict[str, Any]]:
        """The ``tools/list`` entries, ``engram_load`` marked always-load when asked."""
        out = []
        for tool in self.tools.values():
            extra = {ALWAYS_LOAD_META: True} if self._always_load(tool) else None
            out.append(tool.listing(extra))
        return out

    def _always_load(self, tool: ToolSpec) -> bool:
        return self.options.always_load and tool.name == "engram_load"

    async def call_tool(self, name: str, arguments: Any, request: Any = None) -> dict[str, Any]:
        """Run one tool and return the ``tools/call`` result (tool errors included)."""
        tool = self.tools.get(name)
        if tool is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Unknown tool: {name!r} (not served by this engram-mcp --tools selection)",
                data={"tool": name},
            )
        diagnostics: list[str] = []
        try:
            outcome = tool_calls.begin(tool, arguments, request, diagnostics)
            if inspect.isawaitable(outcome):
                outcome = await outcome
        except MCPError:
            raise  # a protocol error (e.g. a forged requestState) is a JSON-RPC error
        except Exception as exc:
            return tool_calls.failed(name, exc, diagnostics)
        return tool_calls.finished(outcome, diagnostics)  # type: ignore[no-any-return]


def build_server(
    options: ServerOptions, *, announced_unknown: bool = False
) -> tuple[Server[Any], EngramServer]:
    """The SDK server wired to an :class:`EngramServer` for ``options``."""
    engram = EngramServer(options, announced_unknown=announced_unknown)

    # Typed results: the SDK fills resultType / ttlMs / cacheScope for the 2026-07-28 era.
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult.model_validate({"tools": engram.list_tools()})

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> Any:
        result = await engram.call_tool(params.name, params.arguments, ctx)
        return types.CallToolResult.model_validate(result) if isinstance(result, dict) else result

    server: Server[Any] = Server(
        "engram",
        version=__version__,
        title="Engram",
        instructions=INSTRUCTIONS,
        cache_hints=_CACHE_HINTS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=_list_resources,
        on_list_resource_templates=_list_resource_templates,
        on_read_resource=_read_resource,
        on_list_prompts=_list_prompts,
        on_get_prompt=_get_prompt,
    )
    # One span per message costs start-up time and nothing here exports spans.
    server.middleware = []
    return server, engram


def _providers() -> list[catalog.ResourceProvider]:
    """The resource providers, with every tool module loaded: the families register their
    resources and prompts on import, so a fresh connection must not see an empty catalog."""
    all_tools()
    return catalog.RESOURCE_PROVIDERS


def _as_protocol_error(exc: EngramError) -> MCPError:
    """A store or config problem behind a resource or prompt: a JSON-RPC internal error that
    names its code and remedy (the SDK would send any other exception as code 0)."""
    return MCPError(code=INTERNAL_ERROR, message=exc.one_line(), data={"code": exc.code})


async def _list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    resources: list[dict[str, Any]] = []
    try:
        for provider in _providers():
            resources.extend(provider.list_resources())
    except EngramError as exc:
        raise _as_protocol_error(exc) from exc
    return types.ListResourcesResult.model_validate({"resources": resources})


async def _list_resource_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    templates = [t for p in _providers() for t in p.templates]
    return types.ListResourceTemplatesResult.model_validate({"resourceTemplates": templates})


async def _read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
    uri = str(params.uri)
    try:
        for provider in _providers():
            contents = provider.read(uri)
            if contents is not None:
                return types.ReadResourceResult.model_validate({"contents": contents})
    except EngramError as exc:
        raise _as_protocol_error(exc) from exc
    raise MCPError(code=-32002, message=f"Resource not found: {uri}", data={"uri": uri})


async def _list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    all_tools()
    prompts = [
        {"name": p.name, "description": p.description, "arguments": list(p.arguments)}
        for p in catalog.PROMPTS.values()
    ]
    return types.ListPromptsResult.model_validate({"prompts": prompts})


async def _get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> Any:
    all_tools()
    prompt = catalog.PROMPTS.get(params.name)
    if prompt is None:
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {params.name!r}")
    try:
        messages = prompt.get(dict(params.arguments or {}))
        if inspect.isawaitable(messages):
            messages = await messages
    except EngramError as exc:
        raise _as_protocol_error(exc) from exc
    return types.GetPromptResult.model_validate(
        {"description": prompt.description, "messages": messages}
    )
