"""GitHub Copilot CLI: ``mcpServers.engram`` in ``~/.copilot/mcp-config.json`` / ``.github/mcp.json``.

Copilot CLI reads user servers from ``~/.copilot/mcp-config.json`` and workspace servers from
``.mcp.json`` or ``.github/mcp.json``, the workspace ones only in a folder the user trusted
(``trustedFolders`` in ``~/.copilot/config.json``, which Copilot writes when the user answers its
trust prompt). Engram writes ``.github/mcp.json``: ``.mcp.json`` is Claude Code's file, whose
entry has another shape. The entry is what ``copilot mcp add`` writes: ``type: "local"`` and
``tools: ["*"]``. No hooks: Copilot CLI discards what a ``sessionStart`` hook prints and has no
other channel into the model's context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class CopilotCli(McpHost):
    """GitHub Copilot CLI (the ``copilot`` terminal agent)."""

    name = "copilot"
    title = "GitHub Copilot CLI"
    aliases = ("copilot-cli", "github-copilot")
    programs = ("copilot",)
    config_dirs = (Location(Base.HOME, ".copilot"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "start `copilot` in {workspace} and trust the folder when it asks (Copilot CLI "
            "ignores .github/mcp.json in untrusted folders); `copilot mcp list` then shows "
            "engram under Workspace servers",
        ),
        Scope.GLOBAL: ("`copilot mcp list` shows engram under User servers",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget((Location(Base.WORKSPACE, ".github/mcp.json"),), DocFormat.JSON),
        Scope.GLOBAL: McpTarget((Location(Base.HOME, ".copilot/mcp-config.json"),), DocFormat.JSON),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            instructions=Location(Base.WORKSPACE, ".github/copilot-instructions.md"),
            skills=Location(Base.WORKSPACE, ".github/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            instructions=Location(Base.HOME, ".copilot/copilot-instructions.md"),
            skills=Location(Base.HOME, ".copilot/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{"type": "local", "command", "args", "tools": ["*"]}`` as ``copilot mcp add``."""
        return {
            "type": "local",
            "command": ctx.server.command,
            "args": list(ctx.server.args),
            "tools": ["*"],
        }


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register GitHub Copilot CLI."""
    register(CopilotCli())
