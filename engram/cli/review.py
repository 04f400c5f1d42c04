"""``engram review``: memories due for review, and (``--stale``) memories whose code moved."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from engram.cli.output import emit_json

if TYPE_CHECKING:
    from engram.memory.stale import StaleItem

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]


def review_command(
    stale: Annotated[
        bool,
        typer.Option("--stale", help="Memories whose cited code is gone or moved, with the fix."),
    ] = False,
    project: Annotated[
        str | None,
        typer.Option("--project", help="Project name (default: ENGRAM_PROJECT, then detection)."),
    ] = None,
    all_projects: Annotated[bool, typer.Option("--all", help="Every project.")] = False,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=100, help="Results (default 10, max 100).")
    ] = 10,
    as_json: JsonOption = False,
) -> None:
    """List memories due for review (their review date passed), or with --stale those whose
    cited files or symbols are gone or moved."""
    from engram.cli.selection import open_store, read_project

    with open_store(reading=True) as store:
        name = read_project(store, project, all_projects)
        if stale:
            from engram.memory.stale import list_stale

            items = list_stale(store, project=name, limit=limit)
        else:
            from engram.memory.review import list_due

            due = list_due(store, project=name, limit=limit)
    if stale:
        _print_stale(items, as_json)
        return
    if as_json:
        emit_json({"project": name, "results": [item.to_dict() for item in due]})
        return
    typer.echo(f"{len(due)} memories need review" + (":" if due else ""))
    for item in due:
        o = item.observation
        typer.echo(f"#{o.id} [{o.type}] {o.title} (review_after {o.review_after})")


def _print_stale(items: list[StaleItem], as_json: bool) -> None:
    if as_json:
        emit_json({"results": [item.to_dict() for item in items]})
        return
    typer.echo(f"{len(items)} memories cite code that moved or is gone" + (":" if items else ""))
    for item in items:
        o = item.observation
        typer.echo(f"#{o.id} [{o.type}] {o.title} (state: {item.state})")
        for reason in item.code.reasons:
            typer.echo(f"    stale: {reason}")
        for fix in item.fixes:
            typer.echo(f"    fix: {fix}")


def register(app: typer.Typer) -> None:
    """Add ``engram review`` to the root app."""
    app.command("review")(review_command)
