"""Augment's Auggie CLI: ``mcpServers.engram`` in ``.augment/settings.json`` /
``~/.augment/settings.json``.

The entry is the shape ``auggie mcp add`` writes (``type: "stdio"``, ``command``, ``args``).
Auggie lists project and user servers without any trust or approval step. It reads
``AGENTS.md`` for instructions and ``.augment/skills`` for skills. No hooks: Auggie's hooks
guard tool calls and sessions, and none of them carries text into the model's context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class Auggie(McpHost):
    """Augment Code's Auggie CLI."""

    name = "auggie"
    title = "Augment Auggie"
    aliases = ("augment", "augment-code")
    programs = ("auggie",)
    config_dirs = (Location(Base.HOME, ".augment"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: ("`auggie mcp list` in {workspace} shows engram; nothing to approve",),
        Scope.GLOBAL: ("`auggie mcp list` shows engram; nothing to approve",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".augment/settings.json"),), DocFormat.JSON
        ),
        Scope.GLOBAL: McpTarget((Location(Base.HOME, ".augment/settings.json"),), DocFormat.JSON),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".augment/skills"),
        ),
        Scope.GLOBAL: HostFiles(skills=Location(Base.HOME, ".augment/skills")),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{"type": "stdio", "command", "args"}``."""
        return {"type": "stdio", "command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Augment Auggie."""
    register(Auggie())
