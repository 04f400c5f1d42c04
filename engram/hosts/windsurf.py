"""Windsurf (Cascade): ``mcpServers.engram`` in ``~/.codeium/windsurf/mcp_config.json``.

Windsurf documents only a user-level MCP config, so a workspace link skips MCP and says so
(seed 000) instead of inventing a file Windsurf would not read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class Windsurf(McpHost):
    """Windsurf, whose agent is Cascade."""

    name = "windsurf"
    title = "Windsurf"
    aliases = ("cascade", "codeium")
    programs = ("windsurf",)
    config_dirs = (Location(Base.HOME, ".codeium/windsurf"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.GLOBAL: ("in Windsurf, press Refresh in Settings → Cascade → MCP servers",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.GLOBAL: McpTarget(
            (Location(Base.HOME, ".codeium/windsurf/mcp_config.json"),), DocFormat.JSON
        ),
    }
    skipped: ClassVar[dict[Scope, str]] = {
        Scope.WORKSPACE: (
            "Windsurf workspace MCP is skipped: Windsurf reads MCP servers only from "
            "~/.codeium/windsurf/mcp_config.json (run `engram link windsurf --global`)."
        ),
    }
    extras_when_skipped = True  # workspace rules and prompt hook help without workspace MCP
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".windsurf/hooks.json"),
            rules=Location(Base.WORKSPACE, ".windsurf/rules/engram.md"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.HOME, ".codeium/windsurf/hooks.json"),
            rules=Location(Base.HOME, ".codeium/windsurf/memories/global_rules.md"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args}``."""
        return {"command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Windsurf."""
    register(Windsurf())
