"""``engram obsidian-export``: write the journal as an Obsidian vault (see docs/obsidian.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from engram.cli.output import emit_json, plural

# In the home folder, not the working directory: a vault never lands untracked inside the
# project's repository.
DEFAULT_OUT = Path("~/engram-vault")


def obsidian_export_command(
    project: Annotated[
        str | None,
        typer.Option("--project", help="Project name (default: ENGRAM_PROJECT, then detection)."),
    ] = None,
    all_projects: Annotated[bool, typer.Option("--all", help="Every project.")] = False,
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="The vault folder (or a folder inside a vault); default ~/engram-vault."
        ),
    ] = DEFAULT_OUT,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Export memories to an Obsidian vault; re-running writes only what changed and never
    overwrites a note you edited."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.obsidian import export_vault
    from engram.memory.project import require_known_project

    with open_store() as store:
        name = read_project(store, project, all_projects)
        if name is not None:
            require_known_project(store, name)
        report = export_vault(store, out, project=name)
    if as_json:
        emit_json({"project": name, **report.to_dict()})
        return
    typer.echo(
        f"exported {plural(report.notes, 'note')} to {report.out}: {report.written} new, "
        f"{report.updated} updated, {report.unchanged} unchanged, {report.removed} removed"
    )
    if report.kept:
        typer.echo(f"kept {plural(len(report.kept), 'note')} you edited (not overwritten):")
        for path in sorted(report.kept):
            typer.echo(f"  {path}")


def register(app: typer.Typer) -> None:
    """Add ``engram obsidian-export`` to the root app."""
    app.command("obsidian-export")(obsidian_export_command)
