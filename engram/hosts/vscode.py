"""VS Code (GitHub Copilot agent mode): ``servers.engram`` in ``.vscode/mcp.json`` / the user
profile's ``mcp.json``.

VS Code keeps MCP servers in their own ``mcp.json`` (no longer in ``settings.json``), under a
top-level ``servers`` object, each stdio entry ``{"type": "stdio", "command", "args"}``. The
user file sits in the profile folder: ``~/.config/Code/User/mcp.json`` on Linux,
``~/Library/Application Support/Code/User/mcp.json`` on macOS, ``%APPDATA%\\Code\\User\\mcp.json``
on Windows. VS Code reads its JSON files as JSONC (comments and trailing commas are kept).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl
from engram.hosts.syntax import Dialect


class VsCode(McpHost):
    """Visual Studio Code with GitHub Copilot's agent mode."""

    name = "vscode"
    title = "VS Code"
    aliases = ("code", "vs-code", "copilot-vscode")
    programs = ("code", "code-insiders")
    config_dirs = (Location(Base.APP_CONFIG, "Code"),)
    dialect = Dialect.JSONC
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "open {workspace} in VS Code, run `MCP: List Servers`, start engram and trust it "
            "when VS Code asks; then pick Agent mode in the Chat view",
        ),
        Scope.GLOBAL: (
            "in VS Code, run `MCP: List Servers`, start engram and trust it when VS Code asks",
        ),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".vscode/mcp.json"),), DocFormat.JSONC, ("servers",)
        ),
        Scope.GLOBAL: McpTarget(
            (Location(Base.APP_CONFIG, "Code/User/mcp.json"),), DocFormat.JSONC, ("servers",)
        ),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".github/skills"),
        ),
        Scope.GLOBAL: HostFiles(skills=Location(Base.HOME, ".copilot/skills")),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{"type": "stdio", "command", "args"}``."""
        return {"type": "stdio", "command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register VS Code."""
    register(VsCode())
