"""Claude Desktop: ``mcpServers.engram`` in ``claude_desktop_config.json`` (user level only).

The file lives in the app's settings folder: ``~/Library/Application Support/Claude/`` on
macOS, ``%APPDATA%\\Claude\\`` on Windows (Anthropic ships no Linux build; community builds
use ``~/.config/Claude/``). Entries are ``{command, args, env}``; the app parses the file as
strict JSON and reads it only at start-up, so it must be restarted. No hooks, instruction or
skill files: Claude Desktop has no such channel Engram could write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class ClaudeDesktop(McpHost):
    """Anthropic's Claude Desktop app."""

    name = "claude-desktop"
    title = "Claude Desktop"
    aliases = ("claude-app", "claudedesktop")
    programs = ("claude-desktop",)
    config_dirs = (Location(Base.APP_CONFIG, "Claude"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.GLOBAL: (
            "quit Claude Desktop completely and open it again (it reads the file at "
            "start-up); engram then shows under Settings → Developer",
        ),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.GLOBAL: McpTarget(
            (Location(Base.APP_CONFIG, "Claude/claude_desktop_config.json"),), DocFormat.JSON
        ),
    }
    skipped: ClassVar[dict[Scope, str]] = {
        Scope.WORKSPACE: (
            "Claude Desktop has no workspace config: it reads only its user-level "
            "claude_desktop_config.json (run `engram link claude-desktop --global`)."
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args}``."""
        return {"command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Claude Desktop."""
    register(ClaudeDesktop())
