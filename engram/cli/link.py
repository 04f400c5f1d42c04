"""``engram link`` and ``engram unlink``: register Engram in agent hosts, and take it back.

The host plugins plan (:mod:`engram.hosts`), the engine writes (:mod:`engram.edit`); this module
only builds the context, hands plans to the engine and prints what happened, file by file.
Heavy imports happen inside the commands so ``engram --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from engram.edit.ledger import Ledger
    from engram.edit.report import Report
    from engram.hosts import Host, HostContext

HOST_HELP = "A host (`engram link --help` lists them) or `all` (every host found here)."
GLOBAL_HELP = "Register for your user (home folder) instead of this workspace."
DRY_RUN_HELP = "Print a unified diff per file and write nothing."


def register(app: typer.Typer) -> None:
    """Add ``link`` and ``unlink`` to the root app."""
    app.command("link")(link_command)
    app.command("unlink")(unlink_command)


def link_command(
    host: Annotated[str, typer.Argument(help=HOST_HELP, show_default=False)],
    global_: Annotated[bool, typer.Option("--global", help=GLOBAL_HELP)] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help=DRY_RUN_HELP)] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing engram entry that differs.")
    ] = False,
    always_load: Annotated[
        bool,
        typer.Option("--always-load", help="Claude Code only: load engram_load up front."),
    ] = False,
    no_hooks: Annotated[
        bool,
        typer.Option(
            "--no-hooks", help="Install no hooks (MCP entry, skill and instructions only)."
        ),
    ] = False,
) -> None:
    """Register Engram in a host (or every host, with `all`): MCP server, hooks, skill,
    instructions."""
    ctx = host_context(global_, force=force, always_load=always_load, hooks=not no_hooks)
    link_hosts(host, ctx, dry_run=dry_run)


def link_hosts(host: str, ctx: HostContext, *, dry_run: bool) -> None:
    """Plan and apply the link of ``host`` (``all``: every host) in ``ctx``, then report."""
    from engram.edit.engine import apply

    force = ctx.force
    plans, refused = [], False
    for h in _present(_hosts(host), ctx) if _is_all(host) else _hosts(host):
        plan = h.link_plan(ctx)
        problems = h.unreadable([edit.file for edit in plan.edits])
        if problems:
            _refuse(h, ctx, problems)
            refused = True
        else:
            plans.append(plan)
    changes: dict[tuple[str, Path], list[str]] = {}
    for plan in plans:
        for edit in plan.edits:
            keys = getattr(edit, "path", None) or (getattr(edit, "block_id", ""),)
            listed = changes.setdefault((plan.host, edit.file), [])
            if ".".join(keys) not in listed:  # Kimi's four [[hooks]] tables: one "hooks"
                listed.append(".".join(keys))
    reports = apply(plans, _ledger(ctx), dry_run=dry_run, force=force)
    _finish(reports, ctx, dry_run, changes, refused=refused)


def _refuse(host: Host, ctx: HostContext, problems: list[tuple[Path, str]]) -> None:
    """Say which files ``host`` itself cannot read; link writes nothing for that host."""
    typer.echo(f"{host.title} ({ctx.scope}):")
    for path, problem in problems:
        typer.echo(f"  refused   {_display(path, ctx)}: {host.title} cannot read it ({problem})")
    typer.echo(
        f"  fix:      correct the file by hand (the host fails on it too), then run "
        f"`engram link {host.name}{' --global' if ctx.scope == 'global' else ''}` again; "
        "nothing was written for this host"
    )


def unlink_command(
    host: Annotated[str, typer.Argument(help=HOST_HELP, show_default=False)],
    global_: Annotated[bool, typer.Option("--global", help=GLOBAL_HELP)] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help=DRY_RUN_HELP)] = False,
) -> None:
    """Remove exactly what `engram link` added (other servers and keys stay untouched)."""
    from engram.edit.engine import reverse

    ctx = host_context(global_)
    ledger = _ledger(ctx)
    reports = []
    for h in _hosts(host):
        found = h.unlink_plan(ctx)
        report = reverse(h.name, ctx.scope, ledger, dry_run=dry_run, root=ctx.root)
        touched = {f.file for f in report.files}
        report.notices = list(found.notices)
        for edit in found.edits:
            if edit.file not in touched:
                where = _display(edit.file, ctx)
                report.notices.append(
                    f"{where}: its engram entry was not written by Engram; left alone "
                    "(remove it by hand)"
                )
        if not report.files and not found.edits and ctx.scope in h.scopes:
            report.notices.append("not linked")
        reports.append(report)
    _finish(reports, ctx, dry_run, {})


def _is_all(label: str) -> bool:
    return label.strip().lower() == "all"


def _hosts(label: str) -> list[Host]:
    """The hosts ``label`` names (``all`` is every host); ``hosts.unknown`` otherwise."""
    from engram.hosts.registry import all_hosts, find_host

    if _is_all(label):
        return list(all_hosts().values())
    return [find_host(label)]


def _present(hosts: list[Host], ctx: HostContext) -> list[Host]:
    """The hosts found on this machine (``link all``); one line per host skipped, and why."""
    from engram.hosts.presence import presence

    found = []
    for host in hosts:
        seen = presence(host, ctx)
        if seen.found:
            found.append(host)
        else:
            typer.echo(f"skipped   {host.title}: {seen.reason}")
    if not found:
        typer.echo("no host found on this machine: name one, e.g. `engram link claude`")
    return found


def host_context(global_: bool, **options: bool) -> HostContext:
    """The context for ``host`` from this process: real home, cwd, environment."""
    import os

    from engram.edit.plan import Scope
    from engram.hosts import HostContext
    from engram.hosts.command import resolve_server_command
    from engram.store.datadir import resolve_data_dir

    env = dict(os.environ)
    home = env.get("HOME") or env.get("USERPROFILE") or str(Path.home())
    return HostContext(
        scope=Scope.GLOBAL if global_ else Scope.WORKSPACE,
        home=Path(home),
        workspace=Path.cwd(),
        data_dir=resolve_data_dir(env),
        server=resolve_server_command(env),
        env=env,
        **options,
    )


def _ledger(ctx: HostContext) -> Ledger:
    """The link ledger in the data dir."""
    from engram.edit.ledger import Ledger

    return Ledger.at(ctx.data_dir)


def _finish(
    reports: list[Report],
    ctx: HostContext,
    dry_run: bool,
    changes: dict[tuple[str, Path], list[str]],
    refused: bool = False,
) -> None:
    """Print every report, file by file, then the next steps; exit 1 when an edit was refused."""
    for report in reports:
        host = _title(report.host)
        typer.echo(f"{host} ({report.scope}):")
        for notice in report.notices:
            typer.echo(f"  {notice}")
        for file in report.files:
            what = ", ".join(changes.get((report.host, file.file), []))
            details = [d for d in dict.fromkeys((what, *file.notes)) if d]  # one note per kind
            suffix = f" ({'; '.join(details)})" if details else ""
            typer.echo(f"  {file.status:<9} {_display(file.file, ctx)}{suffix}")
            for conflict in file.conflicts:
                typer.echo(f"            {conflict}")
            if file.diff:
                typer.echo(file.diff, nl=False)
        if changes and not dry_run and not report.conflicts:
            for line in _next_steps(report, ctx, changes):
                typer.echo(f"  {line}")
    if dry_run:
        typer.echo("dry run: nothing was written")
    if refused or any(report.conflicts for report in reports):
        raise typer.Exit(1)


def _next_steps(
    report: Report, ctx: HostContext, changes: dict[tuple[str, Path], list[str]]
) -> list[str]:
    """``next:`` (the host's approval or trust step) and ``commit:`` (workspace links)."""
    from engram.hosts.registry import all_hosts

    host = all_hosts().get(report.host)
    lines = [f"next:     {step}" for step in (host.after_link(ctx) if host else [])]
    written = [f.file for f in report.files if f.file.is_relative_to(ctx.workspace)]
    if ctx.scope != "workspace" or not written:
        return lines
    portable = ctx.server.form == "path"
    local = [] if portable else [p for p in written if _names_a_command(report.host, p, changes)]
    shared = [_display(p, ctx) for p in written if p not in local]
    from engram.memory.git_repo import find_git_repo

    if shared and find_git_repo(ctx.workspace) is not None:
        lines.append(f"commit:   {', '.join(shared)}")
    if local:
        where = ctx.server.engram_argv()[0]
        lines.append(
            f"local:    {', '.join(_display(p, ctx) for p in local)} name {where} on this "
            "machine; keep them out of the repo (install Engram so `engram-mcp` is on PATH, "
            "see the README, and link again to make them portable)"
        )
    return lines


def _names_a_command(host: str, path: Path, changes: dict[tuple[str, Path], list[str]]) -> bool:
    """Whether the file holds Engram's server or hook command (machine-specific when absolute)."""
    keys = " ".join(changes.get((host, path), []))
    return path.name == "engram.js" or "hooks" in keys or "mcp" in keys.lower()


def _title(name: str) -> str:
    from engram.hosts.registry import all_hosts

    host = all_hosts().get(name)
    return host.title if host is not None else name


def _display(path: Path, ctx: HostContext) -> str:
    """``path`` relative to the workspace, or with ``~`` for the home, when it is under them."""
    for base, prefix in ((ctx.workspace, ""), (ctx.home, "~/")):
        if path.is_relative_to(base):
            return prefix + path.relative_to(base).as_posix()
    return str(path)
