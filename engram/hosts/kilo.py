"""Kilo Code: the ``mcp`` field of ``kilo.jsonc`` / ``.kilo/kilo.jsonc`` /
``~/.config/kilo/kilo.jsonc``.

Current Kilo Code (the VS Code extension and the ``kilo`` CLI share one config) keeps MCP
servers in its main config file under ``mcp``, OpenCode's shape: ``{"type": "local",
"command": [argv], "enabled": true}``. Project files are ``kilo.jsonc`` / ``kilo.json`` at the
root, or ``.kilo/kilo.jsonc`` / ``.kilo/kilo.json``; Engram edits the first that exists and
creates ``.kilo/kilo.jsonc`` (the layout Kilo's docs suggest). JSONC: comments and trailing
commas are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl
from engram.hosts.syntax import Dialect


def _ws(rel: str) -> Location:
    return Location(Base.WORKSPACE, rel)


class KiloCode(McpHost):
    """Kilo Code (Kilo-Org/kilocode)."""

    name = "kilo"
    title = "Kilo Code"
    aliases = ("kilocode", "kilo-code")
    programs = ("kilo", "kilocode")
    config_dirs = (Location(Base.CONFIG_HOME, "kilo"), Location(Base.HOME, ".kilocode"))
    dialect = Dialect.JSONC
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: ("`kilo mcp list` in {workspace} shows engram",),
        Scope.GLOBAL: ("`kilo mcp list` shows engram in any folder",),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.WORKSPACE: McpTarget(
            (
                _ws("kilo.jsonc"),
                _ws("kilo.json"),
                _ws(".kilo/kilo.jsonc"),
                _ws(".kilo/kilo.json"),
            ),
            DocFormat.JSONC,
            ("mcp",),
            create=_ws(".kilo/kilo.jsonc"),
        ),
        Scope.GLOBAL: McpTarget(
            (
                Location(Base.CONFIG_HOME, "kilo/kilo.jsonc"),
                Location(Base.CONFIG_HOME, "kilo/kilo.json"),
            ),
            DocFormat.JSONC,
            ("mcp",),
        ),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(instructions=_ws("AGENTS.md"), skills=_ws(".kilo/skills")),
        Scope.GLOBAL: HostFiles(
            instructions=Location(Base.CONFIG_HOME, "kilo/AGENTS.md"),
            skills=Location(Base.CONFIG_HOME, "kilo/skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """``{"type": "local", "command": [argv], "enabled": true}``."""
        return {"type": "local", "command": list(ctx.server.argv), "enabled": True}


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Kilo Code."""
    register(KiloCode())
