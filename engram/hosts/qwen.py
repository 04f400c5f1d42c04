"""Qwen Code: ``mcpServers.engram`` in ``.qwen/settings.json`` / ``~/.qwen/settings.json``.

Qwen Code (a Gemini CLI fork) reads its settings with comments stripped, so comments are kept
and no trailing comma is ever added. A project's server waits as "Pending approval" until the
user approves it (``qwen mcp approve engram``, bound to the entry's hash in
``~/.qwen/mcpApprovals.json``): that choice is the user's, so link never writes it. Hooks follow
Claude Code's shape in the same settings file, timeouts in seconds; what ``SessionStart`` and
``UserPromptSubmit`` print becomes context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl
from engram.hosts.syntax import Dialect


class QwenCode(McpHost):
    """Qwen Code (the ``qwen`` terminal agent)."""

    name = "qwen"
    title = "Qwen Code"
    aliases = ("qwen-code",)
    programs = ("qwen",)
    config_dirs = (Location(Base.HOME, ".qwen"),)
    dialect = Dialect.JSON_COMMENTS
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "approve the project's server: run `qwen mcp approve engram` in {workspace} (Qwen "
            "Code does not start a project server before that); `qwen mcp list` then shows "
            "engram Connected",
        ),
        Scope.GLOBAL: ("`qwen mcp list` shows engram Connected",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".qwen/settings.json"),), DocFormat.JSONC
        ),
        Scope.GLOBAL: McpTarget((Location(Base.HOME, ".qwen/settings.json"),), DocFormat.JSONC),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".qwen/settings.json"),
            hooks_format=DocFormat.JSONC,
            instructions=Location(Base.WORKSPACE, "QWEN.md"),
            skills=Location(Base.WORKSPACE, ".qwen/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.HOME, ".qwen/settings.json"),
            hooks_format=DocFormat.JSONC,
            instructions=Location(Base.HOME, ".qwen/QWEN.md"),
            skills=Location(Base.HOME, ".qwen/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args}`` as ``qwen mcp add`` writes it (no ``trust``)."""
        return {"command": ctx.server.command, "args": list(ctx.server.args)}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Qwen Code."""
    register(QwenCode())
