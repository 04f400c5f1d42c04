"""``engram upgrade``: re-pin every registration the ledger knows to the installed release.

For each link in the ledger (every host, scope and workspace), the host plans its link again
with the server command of the installed Engram, and the engine applies it without ``--force``:
entries still exactly as Engram wrote them are re-pinned (MCP entries) or refreshed (hooks,
skill, instruction blocks, rules); anything the user edited since is left alone and reported.
Hook commands are ``engram hook <host>`` in every release, so they never change.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from engram.cli.output import plural

if TYPE_CHECKING:
    from engram.edit.ledger import Entry, Ledger
    from engram.edit.plan import LinkPlan
    from engram.edit.report import Report
    from engram.hosts.context import ServerCommand


def register(app: typer.Typer) -> None:
    """Add ``engram upgrade`` to the root app."""
    app.command("upgrade")(upgrade_command)


def upgrade_plans(
    ledger: Ledger, env: Mapping[str, str], home: Path, data_dir: Path, server: ServerCommand
) -> tuple[list[LinkPlan], list[str]]:
    """A fresh link plan for every link in ``ledger``, and notices for links it cannot redo."""
    from engram.edit.plan import Scope
    from engram.errors import EngramError
    from engram.hosts.context import HostContext
    from engram.hosts.registry import find_host

    plans: list[LinkPlan] = []
    notices: list[str] = []
    for link in ledger.links:
        scope = Scope(link.scope)
        root = Path(link.root)
        if scope is Scope.WORKSPACE and not root.is_dir():
            notices.append(f"{link.host} ({link.scope}) in {root}: the folder is gone; skipped")
            continue
        try:
            host = find_host(link.host)
        except EngramError:
            notices.append(f"{link.host}: no such host is installed any more; skipped")
            continue
        ctx = HostContext(
            scope=scope,
            home=home,
            workspace=root if scope is Scope.WORKSPACE else Path.cwd(),
            data_dir=data_dir,
            server=server,
            env=env,
            hooks=_made_with_hooks(link.entries),
        )
        plans.append(host.link_plan(ctx))
    return plans, notices


def _made_with_hooks(entries: list[Entry]) -> bool:
    """Whether a link holds hook entries (a ``--no-hooks`` link is upgraded without them)."""
    return not entries or any(
        entry.path[:1] == ["hooks"] or entry.file.endswith("engram.js") for entry in entries
    )


def run_upgrade(
    env: Mapping[str, str], *, dry_run: bool, server: ServerCommand | None = None
) -> tuple[list[Report], list[str]]:
    """Re-link everything the ledger knows; returns the engine's reports and skip notices."""
    from engram.edit.engine import apply
    from engram.edit.ledger import Ledger
    from engram.hosts.command import resolve_server_command
    from engram.store.datadir import resolve_data_dir

    data_dir = resolve_data_dir(env)
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    ledger = Ledger.at(data_dir)
    command = server if server is not None else resolve_server_command(env)
    plans, notices = upgrade_plans(ledger, env, home, data_dir, command)
    reports = apply(plans, ledger, dry_run=dry_run) if plans else []
    return reports, notices


def upgrade_command(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what would change; write nothing.")
    ] = False,
) -> None:
    """Re-pin every registration to the installed release and refresh Engram's hooks, skill
    and instructions; entries you edited are left alone."""
    import os

    from engram import __version__

    reports, notices = run_upgrade(dict(os.environ), dry_run=dry_run)
    for notice in notices:
        typer.echo(notice)
    if not reports and not notices:
        typer.echo("nothing to upgrade: no links in the ledger (run `engram link <host>`)")
        return
    left_alone = 0
    for report in reports:
        typer.echo(f"{report.host} ({report.scope}):")
        for file in report.files:
            typer.echo(f"  {file.status:<9} {file.file}")
            for conflict in file.conflicts:
                left_alone += 1
                typer.echo(f"            left alone (you edited it): {conflict}")
            if file.diff:
                typer.echo(file.diff, nl=False)
    typer.echo(
        f"{'would re-pin' if dry_run else 're-pinned'} {plural(len(reports), 'link')} to Engram "
        f"{__version__}; {left_alone} edited entr{'y' if left_alone == 1 else 'ies'} left alone"
    )
    if dry_run:
        typer.echo("dry run: nothing was written")
