"""Cline: ``mcpServers.engram`` in ``cline_mcp_settings.json`` (user level only).

Cline keeps MCP servers per user, never per workspace: the Cline CLI (and current extension
builds) in ``~/.cline/data/settings/cline_mcp_settings.json``, the VS Code extension in VS
Code's global storage (``<app config>/Code/User/globalStorage/saoudrizwan.claude-dev/settings/``).
Engram edits the first of them that exists (doctor lists both when both do). The file is read
with ``JSON.parse``: strict JSON. A workspace link skips MCP and writes the rule
``.clinerules/engram.md`` (Cline always applies it) and the hooks. Hooks are executables named
for the hook in ``.clinerules/hooks/`` (``~/Documents/Cline/Hooks/`` globally): TaskStart and
TaskResume bring the memory pack, UserPromptSubmit records the prompt and adds what changed,
PreCompact and TaskComplete keep the session's state; each answers Cline's
``{"cancel": false, "contextModification": ...}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl

EXTENSION_DIR = "Code/User/globalStorage/saoudrizwan.claude-dev"
EXTENSION = f"{EXTENSION_DIR}/settings/cline_mcp_settings.json"


class Cline(McpHost):
    """Cline (the VS Code extension and the Cline CLI)."""

    name = "cline"
    title = "Cline"
    aliases = ("cline-cli", "claude-dev")
    programs = ("cline",)
    config_dirs = (Location(Base.HOME, ".cline"), Location(Base.APP_CONFIG, EXTENSION_DIR))
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "turn hooks on in Cline (Settings → Hooks, or `cline config set hooks-enabled=true`) "
            "so TaskStart and UserPromptSubmit bring Engram's memory in",
        ),
        Scope.GLOBAL: (
            "in Cline, open MCP Servers → Installed and check engram is enabled",
            "turn hooks on in Cline (Settings → Hooks, or `cline config set hooks-enabled=true`)",
        ),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.GLOBAL: McpTarget(
            (
                Location(Base.HOME, ".cline/data/settings/cline_mcp_settings.json"),
                Location(Base.APP_CONFIG, EXTENSION),
            ),
            DocFormat.JSON,
        ),
    }
    skipped: ClassVar[dict[Scope, str]] = {
        Scope.WORKSPACE: (
            "Cline workspace MCP is skipped: Cline reads MCP servers only from its user-level "
            "cline_mcp_settings.json (run `engram link cline --global`)."
        ),
    }
    extras_when_skipped = True  # the workspace rule helps without workspace MCP
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".clinerules/hooks"),
            rules=Location(Base.WORKSPACE, ".clinerules/engram.md"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.HOME, "Documents/Cline/Hooks"),
            rules=Location(Base.HOME, "Documents/Cline/Rules/engram.md"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args, disabled: false}``: no ``autoApprove``, so a commit still asks."""
        return {"command": ctx.server.command, "args": list(ctx.server.args), "disabled": False}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Cline."""
    register(Cline())
