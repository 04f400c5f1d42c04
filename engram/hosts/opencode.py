"""OpenCode: the ``mcp`` field of ``opencode.json(c)`` / ``~/.config/opencode/opencode.json(c)``.

The entry is the v1 shape (``type: local``, ``command`` an array, ``enabled``). A file that
already keeps its servers under ``mcp.servers`` (OpenCode 2) gets the entry there, in that
shape (``disabled`` replaces ``enabled``, so neither is written). ``opencode.jsonc`` is
preferred when it exists; JSONC comments and trailing commas are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl
from engram.hosts.syntax import Dialect


class OpenCode(McpHost):
    """OpenCode (sst/opencode)."""

    name = "opencode"
    title = "OpenCode"
    aliases = ("open-code", "opencode-ai")
    programs = ("opencode",)
    config_dirs = (Location(Base.CONFIG_HOME, "opencode"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: ("nothing to approve: `opencode mcp list` shows engram connected",),
        Scope.GLOBAL: ("nothing to approve: `opencode mcp list` shows engram connected",),
    }
    dialect = Dialect.JSONC
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (Location(Base.WORKSPACE, "opencode.jsonc"), Location(Base.WORKSPACE, "opencode.json")),
            DocFormat.JSONC,
            ("mcp",),
            create=Location(Base.WORKSPACE, "opencode.json"),
        ),
        Scope.GLOBAL: McpTarget(
            (
                Location(Base.CONFIG_HOME, "opencode/opencode.jsonc"),
                Location(Base.CONFIG_HOME, "opencode/opencode.json"),
            ),
            DocFormat.JSONC,
            ("mcp",),
        ),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".opencode/plugins/engram.js"),
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".opencode/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.CONFIG_HOME, "opencode/plugins/engram.js"),
            instructions=Location(Base.CONFIG_HOME, "opencode/AGENTS.md"),
            skills=Location(Base.CONFIG_HOME, "opencode/skills"),
        ),
    }

    def entry_path(self, ctx: HostContext, document: JSONValue) -> tuple[str, ...]:
        """``mcp.servers.engram`` in a file that keeps its servers there (OpenCode 2), else
        ``mcp.engram``."""
        mcp = document.get("mcp") if isinstance(document, dict) else None
        if isinstance(mcp, dict) and isinstance(mcp.get("servers"), dict):
            return ("mcp", "servers", "engram")
        return ("mcp", "engram")

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """The seed's v1 entry, or the OpenCode 2 shape under ``mcp.servers``."""
        entry: dict[str, JSONValue] = {"type": "local", "command": list(ctx.server.argv)}
        if keys == ("mcp", "servers", "engram"):
            return entry
        return {**entry, "args": [], "enabled": True}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register OpenCode."""
    register(OpenCode())
