"""Zed: ``context_servers.engram`` in ``.zed/settings.json`` / ``~/.config/zed/settings.json``.

Zed reads custom MCP servers from ``context_servers`` in its settings (``{command, args,
env}``); its settings files are JSONC (comments and trailing commas are kept). The Zed agent
reads exactly one project instruction file: the first that exists of ``.rules``,
``.cursorrules``, ``.windsurfrules``, ``.clinerules``, ``.github/copilot-instructions.md``,
``AGENT.md``, ``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md``; so Engram's block goes into that one
(``AGENTS.md`` when none exists), and into ``~/.config/zed/AGENTS.md`` for ``--global``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl
from engram.hosts.syntax import Dialect

# Zed's settings folder: %APPDATA%\Zed on Windows, ~/.config/zed elsewhere (macOS too).
CONFIG_DIR = Location.config_folder("Zed", "zed")


# Zed's project instruction files, in the order it looks for them; it uses the first one.
RULE_FILES = (
    ".rules",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".github/copilot-instructions.md",
    "AGENT.md",
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
)


class Zed(McpHost):
    """The Zed editor and its agent panel."""

    name = "zed"
    title = "Zed"
    aliases = ("zed-editor",)
    programs = ("zed", "zeditor")
    config_dirs = (CONFIG_DIR,)
    dialect = Dialect.JSONC
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "open {workspace} in Zed: engram shows a green dot in Agent Panel → Settings → "
            "Model Context Protocol",
        ),
        Scope.GLOBAL: (
            "in Zed, engram shows a green dot in Agent Panel → Settings → Model Context Protocol",
        ),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".zed/settings.json"),), DocFormat.JSONC, ("context_servers",)
        ),
        Scope.GLOBAL: McpTarget(
            (CONFIG_DIR.child("settings.json"),),
            DocFormat.JSONC,
            ("context_servers",),
        ),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(instructions=Location(Base.WORKSPACE, "AGENTS.md")),
        Scope.GLOBAL: HostFiles(instructions=CONFIG_DIR.child("AGENTS.md")),
    }

    def scope_files(self, ctx: HostContext) -> HostFiles | None:
        """In a workspace, the instruction file Zed will really read (the first that exists)."""
        files = self.files.get(ctx.scope)
        if ctx.scope is not Scope.WORKSPACE or files is None:
            return files
        for rel in RULE_FILES:
            if (ctx.workspace / rel).is_file():
                return replace(files, instructions=Location(Base.WORKSPACE, rel))
        return files

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args, env: {}}``."""
        return {"command": ctx.server.command, "args": list(ctx.server.args), "env": {}}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Zed."""
    register(Zed())
