"""Cursor: ``mcpServers.engram`` in ``.cursor/mcp.json`` / ``~/.cursor/mcp.json``.

The seed registers global Cursor "bundled in the local plugin". Engram ships no Cursor
extension, and Cursor's documented user-level file is ``~/.cursor/mcp.json``, which every Cursor
window reads, so that is what ``engram link cursor --global`` writes. Strict JSON: Cursor's
parser rejects comments and trailing commas.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class Cursor(McpHost):
    """Cursor (the editor and its agent)."""

    name = "cursor"
    title = "Cursor"
    aliases = ("cursor-ide",)
    programs = ("cursor", "cursor-agent")
    config_dirs = (Location(Base.HOME, ".cursor"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: ("open {workspace} in Cursor and turn engram on in Settings → MCP",),
        Scope.GLOBAL: ("in Cursor, turn engram on in Settings → MCP",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget((Location(Base.WORKSPACE, ".cursor/mcp.json"),), DocFormat.JSON),
        Scope.GLOBAL: McpTarget((Location(Base.HOME, ".cursor/mcp.json"),), DocFormat.JSON),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".cursor/hooks.json"),
            skills=Location(Base.WORKSPACE, ".cursor/skills"),
            rules=Location(Base.WORKSPACE, ".cursor/rules/engram.mdc"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.HOME, ".cursor/hooks.json"),
            skills=Location(Base.HOME, ".cursor/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{"type": "stdio", "command", "args"}``."""
        return {"type": "stdio", "command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Cursor."""
    register(Cursor())
