"""Claude Code: ``.mcp.json`` in the workspace; user scope is a command the user runs.

Claude Code keeps user-scope MCP servers in ``~/.claude.json``, a file it rewrites itself, so
``engram link claude --global`` prints ``claude mcp add --scope user engram -- engram-mcp``
instead of editing it. A project server stays "pending approval" until the user approves it
(or lists it in ``.claude/settings.local.json`` ``enabledMcpjsonServers``): that choice is the
user's, so link never writes it. Only Claude Code configs take ``--always-load``, and only when
no Engram Claude hook injects context already (seed 000).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.doctor.findings import Finding, Severity
from engram.edit import read_document
from engram.edit.plan import DocFormat, JSONValue, LinkPlan, Scope, SetValue
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.extras import extra_edits, installs_hooks
from engram.hosts.hookspecs import hookimpl

HOOK_COMMAND = "engram hook claude"


class ClaudeCode(McpHost):
    """Claude Code (CLI, IDE extensions, desktop app's Code tab)."""

    name = "claude"
    title = "Claude Code"
    aliases = ("claude-code", "claudecode")
    programs = ("claude",)
    config_dirs = (Location(Base.HOME, ".claude"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "start `claude` in {workspace}, trust the folder and approve the project MCP server "
            "`engram` when asked (later: /mcp); `claude mcp list` then shows engram Connected",
        ),
        Scope.GLOBAL: ("run the `claude mcp add` line above; `claude mcp list` then shows engram",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget((Location(Base.WORKSPACE, ".mcp.json"),), DocFormat.JSON),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".claude/settings.json"),
            instructions=Location(Base.WORKSPACE, "CLAUDE.md"),
            skills=Location(Base.WORKSPACE, ".claude/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.HOME, ".claude/settings.json"),
            instructions=Location(Base.HOME, ".claude/CLAUDE.md"),
            skills=Location(Base.HOME, ".claude/skills"),
        ),
    }
    user_config = Location(Base.HOME, ".claude.json")

    @property
    def scopes(self) -> tuple[Scope, ...]:  # type: ignore[override]
        """Both: the workspace is a file, global is a printed command."""
        return (Scope.WORKSPACE, Scope.GLOBAL)

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{"type": "stdio", "command", "args"}`` as in Claude Code's ``.mcp.json``."""
        server = (
            ctx.server.with_args("--always-load") if self.takes_always_load(ctx) else ctx.server
        )
        return {"type": "stdio", "command": server.command, "args": list(server.args)}

    def takes_always_load(self, ctx: HostContext) -> bool:
        """``--always-load`` was asked for and no Engram Claude hook is installed or being
        installed (``--no-hooks``): the hooks inject context already (seed 000)."""
        return (
            ctx.always_load
            and not self.has_engram_hook(ctx)
            and not installs_hooks(self.files.get(ctx.scope), ctx)
        )

    def has_engram_hook(self, ctx: HostContext) -> bool:
        """Whether an Engram hook is installed in either scope's Claude settings (a user-level
        hook injects context into every workspace too)."""
        for files in self.files.values():
            if files.hooks is None:
                continue
            settings = read_document(ctx.path(files.hooks), DocFormat.JSON)
            if isinstance(settings, dict) and HOOK_COMMAND in str(settings.get("hooks", "")):
                return True
        return False

    def scope_notices(self, ctx: HostContext) -> list[str]:
        """Say when ``--always-load`` is dropped because a hook already injects context."""
        if ctx.always_load and not self.takes_always_load(ctx):
            return [
                "--always-load is not added: Engram's Claude Code hooks already inject context."
            ]
        return []

    def add_command(self, ctx: HostContext) -> str:
        """The ``claude mcp add`` command that registers Engram for the user."""
        server = (
            ctx.server.with_args("--always-load") if self.takes_always_load(ctx) else ctx.server
        )
        return f"claude mcp add --scope user engram -- {server.shell_words()}"

    def link_plan(self, ctx: HostContext) -> LinkPlan:
        """Workspace: the ``.mcp.json`` entry. Global: the command to run (no MCP edit).

        Both scopes also get hooks, the skill and the ``CLAUDE.md`` block."""
        if ctx.scope is Scope.WORKSPACE:
            return super().link_plan(ctx)
        notices = [
            *self.scope_notices(ctx),
            "Claude Code keeps user MCP servers in ~/.claude.json, which it rewrites itself; run:",
            f"  {self.add_command(ctx)}",
        ]
        plan = ctx.plan(self.name, notices)
        if ctx.extras:
            plan.edits += extra_edits(self.name, self.files.get(ctx.scope), ctx)
        else:
            plan.edits += self.go_registration_file(ctx)
        return plan

    def go_registration_file(self, ctx: HostContext) -> list[SetValue]:
        """``~/.claude/mcp/engram.json``, the file the Go tool's Claude Code plugin checks at
        every session start: while it is missing (or a symlink) that plugin runs
        ``engram setup claude-code --mcp-only`` and tells the agent to restart. Written only by
        ``engram setup claude --mcp-only``, as a regular file naming this Engram's server."""
        path = ctx.home / ".claude" / "mcp" / "engram.json"
        server = ctx.server
        return [
            SetValue(path, DocFormat.JSON, ("command",), server.command, replace=True),
            SetValue(path, DocFormat.JSON, ("args",), list(server.args), replace=True),
        ]

    def unlink_plan(self, ctx: HostContext) -> LinkPlan:
        """Workspace: remove the ``.mcp.json`` entry. Global: the command to run, no edit."""
        if ctx.scope is Scope.WORKSPACE:
            return super().unlink_plan(ctx)
        notices = [
            "Claude Code manages ~/.claude.json itself; run:",
            "  claude mcp remove --scope user engram",
        ]
        return ctx.plan(self.name, notices)

    def doctor(self, ctx: HostContext) -> list[Finding]:
        """Workspace: the ``.mcp.json`` entry. Global: whether ``~/.claude.json`` lists engram."""
        if ctx.scope is Scope.WORKSPACE:
            return super().doctor(ctx)
        code, path = "host.claude.registered", ctx.path(self.user_config)
        config = read_document(path, DocFormat.JSON)
        servers = config.get("mcpServers") if isinstance(config, dict) else None
        if isinstance(servers, dict) and "engram" in servers:
            return [
                Finding(
                    code, Severity.PASS, "Engram is registered for Claude Code (user)", str(path)
                )
            ]
        return [
            Finding(
                code,
                Severity.WARN,
                "Engram is not registered for Claude Code (user)",
                str(path),
                self.add_command(ctx),
            )
        ]


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Claude Code."""
    register(ClaudeCode())
