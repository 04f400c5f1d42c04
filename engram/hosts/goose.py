"""Goose: ``extensions.engram`` in ``~/.config/goose/config.yaml`` (user level only).

Goose keeps its extensions in one YAML file per user (``$XDG_CONFIG_HOME/goose/config.yaml``;
``%APPDATA%\\Block\\goose\\config\\config.yaml`` on Windows, which Engram uses there), each a flat mapping ``{enabled,
type: stdio, name, description, cmd, args, envs, timeout}`` keyed by name. Engram edits it with
the round-trip YAML editor (comments, order, quoting, anchors kept; unlink gives back the bytes).
Goose has no project-level extension config, so a workspace link writes only the instruction
block (``AGENTS.md``, which Goose reads beside ``.goosehints``), the skill (``.agents/skills``)
and the hooks. Hooks come as Engram's own Goose plugin (``.agents/plugins/engram/`` or
``~/.agents/plugins/engram/``: ``plugin.json`` + ``hooks/hooks.json``): SessionStart opens the
session, UserPromptSubmit records the prompt, SessionEnd closes it. Goose hooks observe only,
so no context is injected that way; the memory comes in through the MCP tools and the block.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from engram.edit.plan import DocFormat, JSONValue, Scope
from engram.hosts.base import Host, HostFiles, McpHost, McpTarget
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl

TIMEOUT_SECONDS = 300  # Goose's own default for a command-line extension
# Goose's config folder: %APPDATA%\Block\goose\config on Windows, ~/.config/goose elsewhere.
CONFIG_DIR = Location.config_folder("Block/goose/config", "goose")


class Goose(McpHost):
    """Goose (block/goose), the CLI and the desktop app."""

    name = "goose"
    title = "Goose"
    aliases = ("goose-cli", "block-goose")
    programs = ("goose",)
    config_dirs = (CONFIG_DIR,)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.GLOBAL: (
            "start a new `goose session` (or restart Goose Desktop): engram is enabled under "
            "Extensions; `goose info -v` shows it",
        ),
    }
    mcp: ClassVar[dict[Scope, McpTarget]] = {
        Scope.GLOBAL: McpTarget(
            (CONFIG_DIR.child("config.yaml"),), DocFormat.YAML, ("extensions",)
        ),
    }
    skipped: ClassVar[dict[Scope, str]] = {
        Scope.WORKSPACE: (
            "Goose workspace MCP is skipped: Goose reads extensions only from "
            "~/.config/goose/config.yaml (run `engram link goose --global`)."
        ),
    }
    extras_when_skipped = True  # AGENTS.md and the skill help without workspace MCP
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(
            hooks=Location(Base.WORKSPACE, ".agents/plugins/engram"),
            instructions=Location(Base.WORKSPACE, "AGENTS.md"),
            skills=Location(Base.WORKSPACE, ".agents/skills"),
        ),
        Scope.GLOBAL: HostFiles(
            hooks=Location(Base.HOME, ".agents/plugins/engram"),
            instructions=CONFIG_DIR.child(".goosehints"),
            skills=CONFIG_DIR.child("skills"),
        ),
    }

    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """Goose's stdio extension mapping (``cmd``, not ``command``; timeout in seconds)."""
        return {
            "enabled": True,
            "type": "stdio",
            "name": "engram",
            "description": "Engram: persistent memory for this project",
            "cmd": ctx.server.command,
            "args": list(ctx.server.args),
            "envs": {},
            "timeout": TIMEOUT_SECONDS,
        }


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Goose."""
    register(Goose())
