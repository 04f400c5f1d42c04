"""``engram projects consolidate`` and ``engram projects prune``: tidy project names.

``consolidate`` merges names that spell one project (``Acme-API``, ``acme_api``, ``acmeapi``)
into the one to keep, asking per group unless ``--all``; ``--dry-run`` only shows the plan.
``prune`` removes projects that hold no observation (their prompts and sessions);
``--paths-only`` limits it to path-like names (``/`` or ``\\``) that older tools stored.
"""

from __future__ import annotations

from typing import Annotated

import typer

from engram.cli.output import emit_json

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]
DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Show the plan; change nothing.")]


def consolidate_command(
    all_groups: Annotated[
        bool, typer.Option("--all", help="Merge every group without asking.")
    ] = False,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
) -> None:
    """Merge names that spell one project into the one to keep (asks per group unless --all)."""
    from engram.cli.selection import open_store
    from engram.memory.project_cleanup import variant_groups
    from engram.memory.projects import merge_projects

    with open_store() as store:
        groups = variant_groups(store)
        done = []
        for group in groups:
            wanted = ", ".join(repr(n) for n in group.merge)
            if not as_json:
                typer.echo(f"{wanted} -> {group.keep!r}")
            if dry_run:
                continue
            if not all_groups and not typer.confirm(f"merge {wanted} into {group.keep!r}?"):
                continue
            report = merge_projects(store, list(group.merge), group.keep, apply=True)
            done.append(report.to_dict())
            if not as_json:
                total = report.total
                typer.echo(
                    f"  moved {total.observations} observations, {total.sessions} sessions, "
                    f"{total.prompts} prompts"
                )
    if as_json:
        emit_json({"groups": [g.to_dict() for g in groups], "merged": done, "dry_run": dry_run})
    elif not groups:
        typer.echo("no project names to consolidate")
    elif dry_run:
        typer.echo("dry run: nothing was merged")


def prune_command(
    dry_run: DryRunOption = False,
    paths_only: Annotated[
        bool, typer.Option("--paths-only", help="Only names containing / or \\.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Remove projects that hold no observation (their prompts and empty sessions)."""
    from engram.cli.selection import open_store
    from engram.memory.project_cleanup import prune_projects

    with open_store() as store:
        removed = prune_projects(store, paths_only=paths_only, apply=not dry_run)
    if as_json:
        emit_json({"projects": [r.to_dict() for r in removed], "dry_run": dry_run})
        return
    if not removed:
        typer.echo("no projects to prune")
        return
    verb = "would remove" if dry_run else "removed"
    for item in removed:
        typer.echo(f"{verb} {item.project!r} ({item.prompts} prompts)")
    if dry_run:
        typer.echo("dry run: nothing was removed")


def register(app: typer.Typer) -> None:
    """Add ``consolidate`` and ``prune`` to the ``projects`` group."""
    from engram.cli.projects import projects_app

    projects_app.command("consolidate")(consolidate_command)
    projects_app.command("prune")(prune_command)
