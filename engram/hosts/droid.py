"""Factory Droid: ``mcpServers.engram`` in ``.factory/mcp.json`` / ``~/.factory/mcp.json``.

The entry is what ``droid mcp add`` writes (``type: "stdio"``, ``command``, ``args``,
``disabled: false``); ``droid mcp list`` starts every server and says ``connected``. Droid reads
its files with comments but refuses a trailing comma (``droid doctor --config`` says where), so
comments are kept and a trailing comma is refused before link writes. Hooks
follow Claude Code's shape under ``hooks`` in ``.factory/settings.json`` /
``~/.factory/settings.json`` (timeouts in seconds), and ``SessionStart`` /
``UserPromptSubmit`` answers carry ``hookSpecificOutput.additionalContext`` into the model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl
from engram.hosts.syntax import Dialect


class FactoryDroid(McpHost):
    """Factory's Droid CLI."""

    name = "droid"
    title = "Factory Droid"
    aliases = ("factory", "factory-droid")
    dialect = Dialect.JSON_COMMENTS
    programs = ("droid",)
    config_dirs = (Location(Base.HOME, ".factory"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: ("`droid mcp list` in {workspace} shows engram connected",),
        Scope.GLOBAL: ("`droid mcp list` shows engram connected",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".factory/mcp.json"),), DocFormat.JSONC
        ),
        Scope.GLOBAL: McpTarget((Location(Base.HOME, ".factory/mcp.json"),), DocFormat.JSONC),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".factory/settings.json"),
            hooks_format=DocFormat.JSONC,
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".factory/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.HOME, ".factory/settings.json"),
            hooks_format=DocFormat.JSONC,
            instructions=Location(Base.HOME, ".factory/AGENTS.md"),
            skills=Location(Base.HOME, ".factory/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{"type": "stdio", "command", "args", "disabled": false}``."""
        return {
            "type": "stdio",
            "command": ctx.server.command,
            "args": list(ctx.server.args),
            "disabled": False,
        }


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Factory Droid."""
    register(FactoryDroid())
