"""Continue: an ``engram`` item in ``mcpServers`` — its own block file in a workspace
(``.continue/mcpServers/engram.yaml``), the ``mcpServers`` list of ``~/.continue/config.yaml``
for ``--global``.

Continue's YAML config lists MCP servers as a sequence of ``{name, command, args, env}``.
A workspace gets a block file Engram owns (Continue loads every file in
``.continue/mcpServers/``); the user's ``config.yaml`` is edited with the round-trip YAML
editor, the item appended after the last one (comments, anchors and quoting kept; unlink gives
back the bytes). A config.yaml that does not exist is created with the three keys Continue
requires (``name``, ``version``, ``schema``). A user still on the legacy ``config.json`` is told
to migrate first: a new config.yaml would hide every setting in it. The memory protocol is a
rule Continue always applies (``.continue/rules/engram.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from engram.doctor.findings import Finding, Severity
from engram.edit import read_document
from engram.edit.plan import (
    AddToList,
    DocFormat,
    Edit,
    JSONValue,
    LinkPlan,
    OwnedFile,
    RemoveFile,
    RemoveFromList,
    Scope,
    SetValue,
)
from engram.errors import EngramError
from engram.hosts.base import Host, HostFiles
from engram.hosts.context import Base, HostContext, Location
from engram.hosts.hookspecs import hookimpl

BLOCK = Location(Base.WORKSPACE, ".continue/mcpServers/engram.yaml")
CONFIG = Location(Base.HOME, ".continue/config.yaml")
LEGACY = Location(Base.HOME, ".continue/config.json")
SERVERS = ("mcpServers",)
# What Continue itself writes into a new config.yaml: it refuses a file without them.
REQUIRED = (("name", "Local Config"), ("version", "1.0.0"), ("schema", "v1"))


class Continue(Host):
    """Continue (continuedev/continue), the VS Code / JetBrains extension and ``cn``."""

    name = "continue"
    title = "Continue"
    aliases = ("continue-dev", "continuedev")
    programs = ("cn",)
    config_dirs = (Location(Base.HOME, ".continue"),)
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {
        Scope.WORKSPACE: (
            "reload {workspace} in your editor: Continue lists engram under MCP "
            "servers in Agent mode",
        ),
        Scope.GLOBAL: ("reload Continue: engram is listed under MCP servers in Agent mode",),
    }
    files: ClassVar[dict[Scope, HostFiles]] = {
        Scope.WORKSPACE: HostFiles(rules=Location(Base.WORKSPACE, ".continue/rules/engram.md")),
        Scope.GLOBAL: HostFiles(rules=Location(Base.HOME, ".continue/rules/engram.md")),
    }

    def server(self, ctx: HostContext) -> dict[str, JSONValue]:
        """Engram's item: ``{name: engram, command, args}``."""
        return {"name": "engram", "command": ctx.server.command, "args": list(ctx.server.args)}

    def link_plan(self, ctx: HostContext) -> LinkPlan:
        """The block file (workspace) or the config.yaml item (global), then the rule."""
        from engram.hosts.extras import extra_edits

        plan = ctx.plan(self.name)
        if ctx.always_load:
            plan.notices.append("--always-load is ignored for Continue: only Claude Code reads it.")
        if ctx.scope is Scope.WORKSPACE:
            plan.edits.append(OwnedFile(ctx.path(BLOCK), block_file(self.server(ctx))))
        elif ctx.path(LEGACY).exists() and not ctx.path(CONFIG).exists():
            plan.notices.append(_legacy_notice(ctx))
            return plan
        else:
            plan.edits += self._config_edits(ctx)
        plan.edits += extra_edits(self.name, self.files.get(ctx.scope), ctx)
        return plan

    def _config_edits(self, ctx: HostContext) -> list[Edit]:
        path = ctx.path(CONFIG)
        edits: list[Edit] = []
        if not path.exists():
            edits += [SetValue(path, DocFormat.YAML, (key,), value) for key, value in REQUIRED]
        edits.append(AddToList(path, DocFormat.YAML, SERVERS, self.server(ctx), key="name"))
        return edits

    def unlink_plan(self, ctx: HostContext) -> LinkPlan:
        """What there is to take back: the block file, or every ``engram`` item in config.yaml."""
        plan = ctx.plan(self.name)
        if ctx.scope is Scope.WORKSPACE:
            if ctx.path(BLOCK).exists():
                plan.edits.append(RemoveFile(ctx.path(BLOCK)))
            return plan
        for item in _engram_items(_servers(ctx.path(CONFIG))):
            plan.edits.append(RemoveFromList(ctx.path(CONFIG), DocFormat.YAML, SERVERS, item))
        return plan

    def doctor(self, ctx: HostContext) -> list[Finding]:
        """``host.continue.registered``: Engram's item is there as link writes it."""
        code = "host.continue.registered"
        where = ctx.path(BLOCK if ctx.scope is Scope.WORKSPACE else CONFIG)
        remedy = f"engram link continue{' --global' if ctx.scope is Scope.GLOBAL else ''}"
        if ctx.scope is Scope.GLOBAL and ctx.path(LEGACY).exists() and not where.exists():
            return [Finding(code, Severity.WARN, _legacy_notice(ctx), str(ctx.path(LEGACY)))]
        try:
            servers = _servers(where)
        except EngramError as exc:
            return [Finding(code, Severity.FAIL, exc.message, str(where), exc.remedy)]
        items = _engram_items(servers)
        if not items:
            message = "Engram is not registered for Continue"
            return [Finding(code, Severity.WARN, message, str(where), remedy)]
        if self.server(ctx) not in items:
            message = "the engram server differs from what `engram link` writes"
            return [Finding(code, Severity.WARN, message, str(where), f"{remedy} --force")]
        return [Finding(code, Severity.PASS, "Engram is registered for Continue", str(where))]


def block_file(server: dict[str, JSONValue]) -> str:
    """``.continue/mcpServers/engram.yaml``: a Continue block holding Engram's server."""
    from engram.edit.yaml_layout import render

    block = {"name": "Engram", "version": "0.0.1", "schema": "v1", "mcpServers": [server]}
    return render(block, 2, 2)


def _servers(path: Path) -> Any:
    """The ``mcpServers`` list of config.yaml or of Engram's block file."""
    document = read_document(path, DocFormat.YAML)
    return document.get("mcpServers") if isinstance(document, dict) else None


def _engram_items(servers: Any) -> list[JSONValue]:
    items = servers if isinstance(servers, list) else []
    return [item for item in items if isinstance(item, dict) and item.get("name") == "engram"]


def _legacy_notice(ctx: HostContext) -> str:
    return (
        f"Continue still uses {ctx.path(LEGACY)}: a new config.yaml would hide it, so Engram "
        "wrote nothing. Convert it to config.yaml (Continue docs: 'Migrating Config to YAML'), "
        "then run `engram link continue --global` again."
    )


@hookimpl
def register_hosts(register: Callable[[Host], None]) -> None:
    """Register Continue."""
    register(Continue())
