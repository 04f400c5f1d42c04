"""Crush (Charm): ``mcp.engram`` in ``.crush.json`` / ``crush.json`` /
``~/.config/crush/crush.json``.

Crush merges its config from the project (``.crush.json`` first, then ``crush.json``) and the
user file ``$XDG_CONFIG_HOME/crush/crush.json``; MCP servers live under ``mcp`` as
``{"type": "stdio", "command", "args"}``. Engram edits the first project file that exists and
creates ``.crush.json``. Written as strict JSON. Crush reads ``AGENTS.md`` as project context and
discovers skills in ``~/.config/crush/skills``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class Crush(McpHost):
    """Crush, Charm's terminal coding agent."""

    name = "crush"
    title = "Crush"
    aliases = ("charm-crush",)
    programs = ("crush",)
    config_dirs = (Location(Base.CONFIG_HOME, "crush"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: ("start `crush` in {workspace}: engram is listed under MCPs",),
        Scope.GLOBAL: ("start `crush` in any folder: engram is listed under MCPs",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".crush.json"), Location(Base.WORKSPACE, "crush.json")),
            DocFormat.JSON,
            ("mcp",),
        ),
        Scope.GLOBAL: McpTarget(
            (Location(Base.CONFIG_HOME, "crush/crush.json"),), DocFormat.JSON, ("mcp",)
        ),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(instructions=Location(Base.WORKSPACE, "AGENTS.md")),
        Scope.GLOBAL: HostFiles(skills=Location(Base.CONFIG_HOME, "crush/skills")),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{"type": "stdio", "command", "args"}``."""
        return {"type": "stdio", "command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Crush."""
    register(Crush())
