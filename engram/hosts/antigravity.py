"""Antigravity: ``mcpServers.engram`` in its own ``mcp_config.json``.

Global: ``~/.gemini/config/mcp_config.json`` (the seed's "Gemini MCP config file"), or the older
``~/.gemini/antigravity/mcp_config.json`` when that is the one that exists. Workspace:
``.agents/mcp_config.json``. A syntax error in this file stops Antigravity at start-up, so it is
written as strict JSON and never when it does not parse. Antigravity has no reliable hook
contract: Engram installs none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class Antigravity(McpHost):
    """Google Antigravity."""

    name = "antigravity"
    title = "Antigravity"
    aliases = ("google-antigravity",)
    programs = ("antigravity",)
    config_dirs = (Location(Base.HOME, ".gemini/antigravity"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: ("in Antigravity, refresh the MCP servers panel",),
        Scope.GLOBAL: ("in Antigravity, refresh the MCP servers panel",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".agents/mcp_config.json"),), DocFormat.JSON
        ),
        Scope.GLOBAL: McpTarget(
            (
                Location(Base.HOME, ".gemini/config/mcp_config.json"),
                Location(Base.HOME, ".gemini/antigravity/mcp_config.json"),
            ),
            DocFormat.JSON,
        ),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".agents/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            instructions=Location(Base.HOME, ".gemini/GEMINI.md"),
            skills=Location(Base.HOME, ".agents/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args}``."""
        return {"command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Antigravity."""
    register(Antigravity())
