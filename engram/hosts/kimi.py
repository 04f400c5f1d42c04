"""Kimi Code CLI: ``mcpServers.engram`` in ``~/.kimi/mcp.json`` (global only).

Kimi reads MCP servers from its share folder (``$KIMI_SHARE_DIR``, default ``~/.kimi``) and from
files passed with ``--mcp-config-file``; there is no project file, so a workspace link installs
only the instructions (``AGENTS.md``) and the skill, and says so. ``kimi mcp test engram``
starts the server and lists its tools. Hooks are ``[[hooks]]`` tables (``{event, command,
timeout}``) in ``~/.kimi/config.toml``; Kimi passes nothing they print to the model, so they record
sessions and prompts only. They go only into a config.toml Kimi already made: creating that file
would stop Kimi's one-time migration of a legacy ``config.json`` and its own defaults.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, LinkPlan, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class KimiCli(McpHost):
    """Moonshot's Kimi Code CLI (``kimi``)."""

    name = "kimi"
    title = "Kimi Code CLI"
    aliases = ("kimi-cli", "kimi-code")
    programs = ("kimi",)
    config_dirs = (Location(Base.KIMI_HOME, ""),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.GLOBAL: (
            "`kimi mcp list` shows engram; `kimi mcp test engram` connects and lists its tools",
        ),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.GLOBAL: McpTarget((Location(Base.KIMI_HOME, "mcp.json"),), DocFormat.JSON),
    }
    skipped: ClassVar[dict[Scope, str]] = {
        Scope.WORKSPACE: (
            "Kimi Code CLI reads MCP servers only from ~/.kimi/mcp.json: "
            "run `engram link kimi --global` (AGENTS.md and the skill are installed here)."
        ),
    }
    extras_when_skipped = True
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".kimi/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.KIMI_HOME, "config.toml"),
            hooks_format=DocFormat.TOML,
            skills=Location(Base.KIMI_HOME, "skills"),
        ),
    }

    def link_plan(self, ctx: HostContext) -> LinkPlan:
        """As for every host, but hooks only into a config.toml Kimi created itself."""
        hooks = self.files[Scope.GLOBAL].hooks
        if ctx.scope is Scope.GLOBAL and ctx.hooks and hooks and not ctx.path(hooks).exists():
            plan = super().link_plan(dataclasses.replace(ctx, hooks=False))
            plan.notices.append(
                "Kimi hooks skipped: ~/.kimi/config.toml does not exist yet; start `kimi` once "
                "(it writes its config), then run `engram link kimi --global` again."
            )
            return plan
        return super().link_plan(ctx)

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args}`` as ``kimi mcp add`` writes it."""
        return {"command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Kimi Code CLI."""
    register(KimiCli())
