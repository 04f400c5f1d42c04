"""Mistral Vibe: an ``[[mcp_servers]]`` table named ``engram`` in ``~/.vibe/config.toml``.

Vibe keeps its servers as a TOML array of tables, each ``{name, transport, command, args}``, so
Engram's entry is one more element, found by its ``name``; it is appended as its own
``[[mcp_servers]]`` block so unlink gives back the file byte for byte (tomlkit keeps comments).
Global only: in a trusted folder Vibe reads ``.vibe/config.toml`` *instead of* the user's
config, so a project file holding only Engram would hide the user's models and keys.
Vibe has no hooks; it reads ``AGENTS.md`` in trusted folders and skills from ``~/.vibe/skills``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.doctor.findings import Finding, Severity
from engram.edit import read_document
from engram.edit.plan import AddToList, DocFormat, JSONValue, LinkPlan, RemoveFromList, Scope
from engram.errors import EngramError
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl

SERVERS = ("mcp_servers",)


class MistralVibe(McpHost):
    """Mistral's Vibe CLI (``vibe``)."""

    name = "vibe"
    title = "Mistral Vibe"
    aliases = ("mistral-vibe",)
    programs = ("vibe",)
    config_dirs = (Location(Base.VIBE_HOME, ""),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.GLOBAL: ("start `vibe`: it starts engram with its other MCP servers",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.GLOBAL: McpTarget(
            (Location(Base.VIBE_HOME, "config.toml"),), DocFormat.TOML, SERVERS
        ),
    }
    skipped: ClassVar[dict[Scope, str]] = {
        Scope.WORKSPACE: (
            "Mistral Vibe reads .vibe/config.toml instead of ~/.vibe/config.toml in a trusted "
            "folder, so Engram registers it only for the user: run `engram link vibe --global` "
            "(AGENTS.md is installed here)."
        ),
    }
    extras_when_skipped = True
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(instructions=Location(Base.WORKSPACE, "AGENTS.md")),
        Scope.GLOBAL: HostFiles(skills=Location(Base.VIBE_HOME, "skills")),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{name: "engram", transport: "stdio", command, args}``."""
        return {
            "name": "engram",
            "transport": "stdio",
            "command": ctx.server.command,
            "args": list(ctx.server.args),
        }

    def servers(self, ctx: HostContext) -> list[JSONValue]:
        """The ``engram`` elements of ``mcp_servers`` in the config (usually none or one)."""
        document = read_document(self.config_file(ctx), DocFormat.TOML)
        listed = document.get("mcp_servers") if isinstance(document, dict) else None
        items = listed if isinstance(listed, list) else []
        return [s for s in items if isinstance(s, dict) and s.get("name") == "engram"]

    def link_plan(self, ctx: HostContext) -> LinkPlan:
        """Append Engram's table; an ``engram`` table that differs stays unless ``--force``."""
        if ctx.scope is not Scope.GLOBAL:
            return super().link_plan(ctx)
        from engram.hosts.extras import extra_edits

        plan, path, entry = ctx.plan(self.name), self.config_file(ctx), self.mcp_entry(ctx, ())
        others = [s for s in self.servers(ctx) if s != entry]
        if others and not ctx.force:
            plan.notices.append(
                f"{path} already has an engram server Engram did not write; left alone "
                "(run `engram link vibe --global --force` to replace it)"
            )
        else:
            plan.edits += [RemoveFromList(path, DocFormat.TOML, SERVERS, s) for s in others]
            plan.edits.append(AddToList(path, DocFormat.TOML, SERVERS, entry))
        plan.edits += extra_edits(self.name, self.files.get(ctx.scope), ctx)
        return plan

    def unlink_plan(self, ctx: HostContext) -> LinkPlan:
        """Remove each ``engram`` table (the engine keeps those Engram did not write)."""
        if ctx.scope is not Scope.GLOBAL:
            return super().unlink_plan(ctx)
        plan, path = ctx.plan(self.name), self.config_file(ctx)
        plan.edits += [RemoveFromList(path, DocFormat.TOML, SERVERS, s) for s in self.servers(ctx)]
        return plan

    def registration_findings(self, ctx: HostContext) -> list[Finding]:
        """``host.vibe.registered``: missing or different (warn), unreadable (fail)."""
        if ctx.scope is not Scope.GLOBAL:
            return super().registration_findings(ctx)
        code, path = "host.vibe.registered", self.config_file(ctx)
        try:
            found = self.servers(ctx)
        except EngramError as exc:
            return [Finding(code, Severity.FAIL, exc.message, str(path), exc.remedy)]
        if not found:
            message, remedy = (
                "Engram is not registered for Mistral Vibe",
                "engram link vibe --global",
            )
            return [Finding(code, Severity.WARN, message, str(path), remedy)]
        if self.mcp_entry(ctx, ()) not in found:
            message = "the engram server differs from what `engram link` writes"
            return [
                Finding(
                    code, Severity.WARN, message, str(path), "engram link vibe --global --force"
                )
            ]
        return [Finding(code, Severity.PASS, "Engram is registered for Mistral Vibe", str(path))]


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Mistral Vibe."""
    register(MistralVibe())
