"""Kiro: ``mcpServers.engram`` in ``.kiro/settings/mcp.json`` / ``~/.kiro/settings/mcp.json``.

Kiro (the IDE and ``kiro-cli``) reads MCP servers from a workspace and a user ``mcp.json``
(workspace wins on a name clash), each stdio entry ``{command, args, env, disabled,
autoApprove}``. Engram writes ``{command, args, disabled: false}`` and never ``autoApprove``
(a commit must still ask). The memory protocol goes in a steering file Kiro always includes
(``.kiro/steering/engram.md``, front matter ``inclusion: always``); the skill in ``.kiro/skills``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class Kiro(McpHost):
    """Kiro (kiro.dev), the IDE and ``kiro-cli``."""

    name = "kiro"
    title = "Kiro"
    aliases = ("kiro-cli", "kiro-ide")
    programs = ("kiro", "kiro-cli")
    config_dirs = (Location(Base.HOME, ".kiro"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: ("open {workspace} in Kiro: engram appears in the MCP servers panel",),
        Scope.GLOBAL: ("in Kiro, engram appears in the MCP servers panel of every workspace",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".kiro/settings/mcp.json"),), DocFormat.JSON
        ),
        Scope.GLOBAL: McpTarget((Location(Base.HOME, ".kiro/settings/mcp.json"),), DocFormat.JSON),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            rules=Location(Base.WORKSPACE, ".kiro/steering/engram.md"),
            skills=Location(Base.WORKSPACE, ".kiro/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            rules=Location(Base.HOME, ".kiro/steering/engram.md"),
            skills=Location(Base.HOME, ".kiro/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args, disabled: false}``."""
        return {"command": ctx.server.command, "args": list(ctx.server.args), "disabled": False}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Kiro."""
    register(Kiro())
