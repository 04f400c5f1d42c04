"""What a host is: the interface every host plugin implements, and the data-shaped base the
built-in hosts share.

A third-party host subclasses :class:`Host` (or :class:`McpHost` when it registers an MCP
server in a JSON / JSONC / TOML file) and registers an instance through the ``register_hosts``
hook. A host plans; it never writes a file.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from engram.doctor.findings import Finding, Severity
from engram.edit import read_document
from engram.edit.plan import DocFormat, JSONValue, LinkPlan, RemoveValue, Scope, SetValue
from engram.errors import EngramError
from engram.hosts.context import HostContext, Location
from engram.hosts.syntax import Dialect, host_cannot_read


@dataclass(frozen=True)
class McpTarget:
    """Where a host keeps its MCP servers for one scope.

    Args:
        candidates: the files the host reads, preferred first; Engram edits the first one that
            exists, or creates the first.
        format: how the file is parsed and written.
        servers: keys from the root to the object that holds the servers by name.
        create: the file to create when none of the candidates exists (default: the first).
    """

    candidates: tuple[Location, ...]
    format: DocFormat
    servers: tuple[str, ...] = ("mcpServers",)
    create: Location | None = None


@dataclass(frozen=True)
class HostFiles:
    """The other files a host reads for one scope (hooks, instructions, skills, rules).

    Declared here so hook, skill and instruction planning stays data; ``None`` means the host
    has no such file in that scope.
    """

    hooks: Location | None = None
    hooks_format: DocFormat = DocFormat.JSON
    instructions: Location | None = None
    skills: Location | None = None
    rules: Location | None = None


class Host(ABC):
    """A host Engram can link into.

    Attributes:
        name: canonical name used on the command line (``"claude"``).
        title: the product's name for people (``"Claude Code"``).
        aliases: other names accepted on the command line (``"claude-code"``).
        scopes: the scopes :meth:`link_plan` supports.
        dialect: how strictly the host reads its ``.json`` files (``.jsonc`` files are JSONC).
        next_steps: per scope, what the user does after link before the host uses Engram
            (``{workspace}`` is replaced by the folder).
        programs: the host's programs; one on ``PATH`` means it is installed (``link all``).
        config_dirs: user-level folders whose presence means the host is used here.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    scopes: ClassVar[tuple[Scope, ...]] = (Scope.WORKSPACE, Scope.GLOBAL)
    dialect: ClassVar[Dialect] = Dialect.JSON
    next_steps: ClassVar[dict[Scope, tuple[str, ...]]] = {}
    programs: ClassVar[tuple[str, ...]] = ()
    config_dirs: ClassVar[tuple[Location, ...]] = ()

    def unreadable(self, files: list[Path]) -> list[tuple[Path, str]]:
        """The existing ``files`` this host cannot parse, each with where and why."""
        out: list[tuple[Path, str]] = []
        for path in dict.fromkeys(files):
            if path.suffix not in (".json", ".jsonc"):
                continue
            dialect = Dialect.JSONC if path.suffix == ".jsonc" else self.dialect
            problem = host_cannot_read(path, dialect)
            if problem:
                out.append((path, f"{problem}; {self.title} reads {dialect.value}"))
        return out

    def after_link(self, ctx: HostContext) -> list[str]:
        """The user's next step(s) once this link is written."""
        return [s.format(workspace=ctx.workspace) for s in self.next_steps.get(ctx.scope, ())]

    @abstractmethod
    def link_plan(self, ctx: HostContext) -> LinkPlan:
        """The edits (and notices) that register Engram for ``ctx.scope``."""

    @abstractmethod
    def unlink_plan(self, ctx: HostContext) -> LinkPlan:
        """The edits (and notices) that take Engram's registration back out."""

    @abstractmethod
    def doctor(self, ctx: HostContext) -> list[Finding]:
        """Read-only checks of this host's registration for ``ctx.scope``."""


class McpHost(Host):
    """A host whose MCP registration is one ``engram`` entry in a structured config file.

    Subclasses declare ``mcp`` (a target per supported scope), ``skipped`` (a notice per scope
    Engram deliberately leaves alone) and ``files``, and say what the entry looks like in
    :meth:`mcp_entry`.
    """

    mcp: ClassVar[dict[Scope, McpTarget]]
    skipped: ClassVar[dict[Scope, str]] = {}
    files: ClassVar[dict[Scope, HostFiles]] = {}
    # Install hooks, skill, instructions and rules even in a scope whose MCP entry is skipped.
    extras_when_skipped: ClassVar[bool] = False

    @property
    def scopes(self) -> tuple[Scope, ...]:  # type: ignore[override]
        """The scopes this host has an MCP target for (a skipped scope is not supported)."""
        return tuple(scope for scope in Scope if scope in self.mcp)

    @abstractmethod
    def mcp_entry(self, ctx: HostContext, keys: tuple[str, ...]) -> dict[str, JSONValue]:
        """The value of the ``engram`` server entry at ``keys``, in this host's shape."""

    def entry_path(self, ctx: HostContext, document: JSONValue) -> tuple[str, ...]:
        """Keys from the root of ``document`` (the parsed config; None when missing) to the
        ``engram`` entry."""
        return (*self.mcp[ctx.scope].servers, "engram")

    def config_file(self, ctx: HostContext) -> Path:
        """The MCP config file Engram edits for ``ctx.scope``."""
        target = self.mcp[ctx.scope]
        for location in target.candidates:
            if ctx.path(location).exists():
                return ctx.path(location)
        return ctx.path(target.create or target.candidates[0])

    def scope_notices(self, ctx: HostContext) -> list[str]:
        """Notices that accompany a plan for this scope (skips, ignored options)."""
        notices = [self.skipped[ctx.scope]] if ctx.scope in self.skipped else []
        if ctx.always_load and not self.takes_always_load(ctx):
            notices.append(f"--always-load is ignored for {self.title}: only Claude Code reads it.")
        return notices

    def takes_always_load(self, ctx: HostContext) -> bool:
        """Whether this host's entry gets ``--always-load`` (only Claude Code's ever does)."""
        return False

    def link_plan(self, ctx: HostContext) -> LinkPlan:
        """One :class:`SetValue` of the ``engram`` entry (replacing a different one only when
        forced), or only notices when this scope is skipped."""
        plan = ctx.plan(self.name, self.scope_notices(ctx))
        target = self.mcp.get(ctx.scope)
        if target is not None:
            path = self.config_file(ctx)
            keys = self.entry_path(ctx, read_document(path, target.format))
            entry = self.mcp_entry(ctx, keys)
            plan.edits.append(SetValue(path, target.format, keys, entry, replace=ctx.force))
        if target is not None or self.extras_when_skipped:
            from engram.hosts.extras import extra_edits  # extras builds on this module

            plan.edits += extra_edits(self.name, self.scope_files(ctx), ctx)
        return plan

    def scope_files(self, ctx: HostContext) -> HostFiles | None:
        """The hook, instruction, skill and rule files for ``ctx.scope`` (``files`` by default;
        a host whose instruction file depends on what exists overrides this)."""
        return self.files.get(ctx.scope)

    def unlink_plan(self, ctx: HostContext) -> LinkPlan:
        """A :class:`RemoveValue` of the ``engram`` entry in every candidate file that has one."""
        plan = ctx.plan(self.name)
        if ctx.scope in self.skipped:
            plan.notices.append(self.skipped[ctx.scope])
        target = self.mcp.get(ctx.scope)
        if target is None:
            return plan
        for location in target.candidates:
            path = ctx.path(location)
            document = read_document(path, target.format)
            keys = self.entry_path(ctx, document)
            if _lookup(document, keys) is not None:
                plan.edits.append(RemoveValue(path, target.format, keys))
        return plan

    def doctor(self, ctx: HostContext) -> list[Finding]:
        """Is Engram registered for this scope, is the entry what link would write, and does
        more than one of the host's candidate config files exist?"""
        return [*self.registration_findings(ctx), *self.candidate_findings(ctx)]

    def candidate_findings(self, ctx: HostContext) -> list[Finding]:
        """``host.<name>.configs`` (warn) when several candidate config files exist."""
        target = self.mcp.get(ctx.scope)
        found = [ctx.path(c) for c in target.candidates if ctx.path(c).exists()] if target else []
        if len(found) < 2:
            return []
        names = ", ".join(str(path) for path in found)
        return [
            Finding(
                f"host.{self.name}.configs",
                Severity.WARN,
                f"{self.title} has several config files ({names}); Engram uses the first",
                str(found[0]),
                "keep one of them, so you and the host agree on which one counts",
            )
        ]

    def registration_findings(self, ctx: HostContext) -> list[Finding]:
        """``host.<name>.registered``: missing (warn), different (warn), unreadable (fail)."""
        code = f"host.{self.name}.registered"
        target = self.mcp.get(ctx.scope)
        if target is None:
            return [
                Finding(code, Severity.SKIP, self.skipped.get(ctx.scope, "scope not supported"))
            ]
        path = self.config_file(ctx)
        remedy = f"engram link {self.name}{' --global' if ctx.scope is Scope.GLOBAL else ''}"
        try:
            document = read_document(path, target.format)
        except EngramError as exc:
            return [Finding(code, Severity.FAIL, exc.message, str(path), exc.remedy)]
        keys = self.entry_path(ctx, document)
        entry = _lookup(document, keys)
        if entry is None:
            message = f"Engram is not registered for {self.title}"
            return [Finding(code, Severity.WARN, message, str(path), remedy)]
        if entry != self.mcp_entry(ctx, keys):
            message = "the engram entry differs from what `engram link` writes"
            return [Finding(code, Severity.WARN, message, str(path), f"{remedy} --force")]
        return [Finding(code, Severity.PASS, f"Engram is registered for {self.title}", str(path))]


def _lookup(document: JSONValue, keys: tuple[str, ...]) -> JSONValue:
    """The value at ``keys`` in ``document``, or None when any step is missing."""
    node = document
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node
