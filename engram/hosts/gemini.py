"""Gemini CLI: ``mcpServers.engram`` in ``.gemini/settings.json`` / ``~/.gemini/settings.json``.

The settings file allows comments (kept) but not trailing commas (never added). The entry never
sets ``trust: true``, which would skip the confirmation ``engram_commit`` relies on; doctor
warns (``host.gemini_trust``) when someone else set it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.doctor.findings import Finding, Severity
from engram.edit import read_document
from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl
from engram.hosts.syntax import Dialect


class GeminiCli(McpHost):
    """Google Gemini CLI."""

    name = "gemini"
    title = "Gemini CLI"
    aliases = ("gemini-cli",)
    programs = ("gemini",)
    config_dirs = (Location(Base.HOME, ".gemini"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "trust the folder: start `gemini` in {workspace} and choose to trust it (Gemini CLI "
            "ignores .gemini/settings.json in untrusted folders); `gemini mcp list` then shows "
            "engram Connected",
        ),
        Scope.GLOBAL: (
            "trust each folder you work in: start `gemini` there and choose to trust it (Gemini "
            "CLI disables user MCP servers in untrusted folders); `gemini mcp list` in a trusted "
            "folder then shows engram Connected",
        ),
    }
    dialect = Dialect.JSON_COMMENTS
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, ".gemini/settings.json"),), DocFormat.JSONC
        ),
        Scope.GLOBAL: McpTarget((Location(Base.HOME, ".gemini/settings.json"),), DocFormat.JSONC),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".gemini/settings.json"),
            hooks_format=DocFormat.JSONC,
            instructions=Location(Base.WORKSPACE, "GEMINI.md"),
            skills=Location(Base.WORKSPACE, ".gemini/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.HOME, ".gemini/settings.json"),
            hooks_format=DocFormat.JSONC,
            instructions=Location(Base.HOME, ".gemini/GEMINI.md"),
            skills=Location(Base.HOME, ".gemini/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{command, args}``: no ``trust``, so Gemini keeps asking before a commit."""
        return {"command": ctx.server.command, "args": list(ctx.server.args)}

    def doctor(self, ctx: HostContext) -> list[Finding]:
        """The registration check, plus ``host.gemini_trust`` when the entry trusts the server."""
        findings = super().doctor(ctx)
        path = ctx.path(self.mcp[ctx.scope].candidates[0])
        if findings[0].severity is Severity.FAIL:
            return findings
        document = read_document(path, DocFormat.JSONC)
        servers = document.get("mcpServers") if isinstance(document, dict) else None
        entry = servers.get("engram") if isinstance(servers, dict) else None
        if isinstance(entry, dict) and entry.get("trust") is True:
            findings.append(
                Finding(
                    "host.gemini_trust",
                    Severity.WARN,
                    "mcpServers.engram sets trust: true, so Gemini commits memories without asking",
                    str(path),
                    'remove "trust": true from mcpServers.engram',
                )
            )
        return findings


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Gemini CLI."""
    register(GeminiCli())
