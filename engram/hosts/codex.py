"""Codex CLI: a managed ``[mcp_servers.engram]`` table in ``~/.codex/config.toml`` (global only).

Codex rejects unknown keys, so the table holds only ``command`` and ``args``, plus the per-tool
table ``[mcp_servers.engram.tools.engram_commit]`` with ``approval_mode = "approve"``, which makes
Codex ask the human before every commit. A workspace ``.codex/config.toml`` loads only in
trusted projects, so Engram registers Codex globally and says so when asked for a workspace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl


class Codex(McpHost):
    """OpenAI Codex CLI (and the Codex IDE extension, which reads the same config)."""

    name = "codex"
    title = "Codex"
    aliases = ("codex-cli", "openai-codex")
    programs = ("codex",)
    config_dirs = (Location(Base.CODEX_HOME, ""),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.GLOBAL: (
            "start `codex` and trust the engram hooks when it asks (or in /hooks); "
            "`codex mcp list` shows engram",
        ),
    }
    without_hooks: ClassVar[tuple[str, ...]] = (
        "`codex mcp list` shows engram enabled; nothing to trust (no hooks were written)",
    )
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.GLOBAL: McpTarget(
            (Location(Base.CODEX_HOME, "config.toml"),), DocFormat.TOML, ("mcp_servers",)
        ),
    }
    skipped: ClassVar[dict[Scope, str]] = {
        Scope.WORKSPACE: (
            "Codex reads MCP servers only from ~/.codex/config.toml: "
            "run `engram link codex --global`."
        ),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".agents/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.CODEX_HOME, "hooks.json"),
            instructions=Location(Base.CODEX_HOME, "AGENTS.md"),
            skills=Location(Base.HOME, ".agents/skills"),
        ),
    }

    def after_link(self, ctx: HostContext) -> list[str]:
        """The hook-trust step only when hooks were written (``--no-hooks`` writes none)."""
        if ctx.scope is Scope.GLOBAL and not ctx.hooks:
            return list(self.without_hooks)
        return super().after_link(ctx)

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``command`` + ``args`` and the approval rule for ``engram_commit``; nothing else."""
        return {
            "command": ctx.server.command,
            "args": list(ctx.server.args),
            "tools": {"engram_commit": {"approval_mode": "approve"}},
        }


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Codex."""
    register(Codex())
