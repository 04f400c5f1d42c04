"""Amp: ``"amp.mcpServers".engram`` in ``.amp/settings.json`` / ``~/.config/amp/settings.json``.

Amp's settings keys are flat, dotted names: the servers live under the single key
``"amp.mcpServers"``. Amp reads its settings as JSONC (comments and trailing commas both load).
A workspace server runs only after ``amp mcp approve engram``, which needs an Amp login; the
user-level file needs no approval. No hooks: Amp has no hook that reaches the model's context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl
from engram.hosts.syntax import Dialect

SERVERS = ("amp.mcpServers",)


class Amp(McpHost):
    """Sourcegraph's Amp (CLI and editor extensions share the settings file)."""

    name = "amp"
    title = "Amp"
    aliases = ("ampcode",)
    programs = ("amp",)
    config_dirs = (Location(Base.CONFIG_HOME, "amp"),)
    dialect = Dialect.JSONC
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "approve the workspace server: run `amp mcp approve engram` in {workspace} (Amp "
            "asks you to log in first); `amp mcp list` shows engram under Workspace",
        ),
        Scope.GLOBAL: ("`amp mcp list` shows engram under Global; nothing to approve",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".amp/settings.json"),), DocFormat.JSONC, SERVERS
        ),
        Scope.GLOBAL: McpTarget(
            (Location(Base.CONFIG_HOME, "amp/settings.json"),), DocFormat.JSONC, SERVERS
        ),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".agents/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            instructions=Location(Base.CONFIG_HOME, "amp/AGENTS.md"),
            skills=Location(Base.CONFIG_HOME, "agents/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args}``."""
        return {"command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Amp."""
    register(Amp())
