"""``engram init`` and ``engram projects list|merge``: naming projects and tidying their names."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from engram.cli.output import emit_json, plural, warn

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]

projects_app = typer.Typer(
    name="projects",
    help="List projects, merge one into another, rescue unowned legacy rows.",
    no_args_is_help=True,
)


def init_command(
    name: Annotated[
        str | None, typer.Argument(help="Project name (default: this directory's name).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing config.")] = False,
    confirm: Annotated[
        bool,
        typer.Option(
            "--confirm",
            help="Trust this repository with its project's memories (bind its origin).",
        ),
    ] = False,
) -> None:
    """Pin this directory's project name in .engram/config.json (or, with --confirm, let this
    repository use the memories of the project it names)."""
    from engram.memory.project import write_project_config

    if confirm:
        _confirm(name)
        return
    named = write_project_config(Path.cwd(), name, force=force)
    warn(named.warning)
    typer.echo(f"project {named.name!r} written to {Path('.engram') / 'config.json'}")


def _confirm(name: str | None) -> None:
    from engram.memory.project_binding import confirm_here
    from engram.store.datadir import resolve_data_dir

    project, origin = confirm_here(resolve_data_dir(), Path.cwd(), name)
    typer.echo(f"{origin} may now use the memories of project {project!r}")


@projects_app.command("list")
def list_command(as_json: JsonOption = False) -> None:
    """List projects with their observation, session and prompt counts."""
    from engram.cli.selection import open_store
    from engram.memory import projects

    with open_store(reading=True) as store:
        entries = projects.list_projects(store)
    if as_json:
        emit_json(
            {
                "projects": [
                    {
                        "name": entry.name,
                        "observations": entry.observation_count,
                        "sessions": entry.session_count,
                        "prompts": entry.prompt_count,
                        "directories": list(entry.directories),
                    }
                    for entry in entries
                ]
            }
        )
        return
    if not entries:
        typer.echo("no projects yet")
        return
    for entry in entries:
        typer.echo(
            f"{entry.name}  observations={entry.observation_count}"
            f" sessions={entry.session_count} prompts={entry.prompt_count}"
        )


@projects_app.command("merge")
def merge_command(
    source: Annotated[str, typer.Option("--from", help="The project to merge away.")],
    target: Annotated[
        str, typer.Option("--to", help="The existing project (or spelling of --from) to keep.")
    ],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Preview; change nothing.")] = False,
    apply: Annotated[bool, typer.Option("--apply", help="Move the rows.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Merge one project into another (any two names; `inbox` is never the target)."""
    from engram.cli.selection import open_store
    from engram.memory import projects

    if dry_run == apply:
        raise typer.BadParameter("pass exactly one of --dry-run or --apply")
    with open_store() as store:
        report = projects.merge_projects(store, [source], target, apply=apply, any_names=True)
    if as_json:
        emit_json(report.to_dict())
        return
    verb = "moved" if apply else "would move"
    total = report.total
    typer.echo(
        f"{verb} {total.observations} observations, {total.sessions} sessions,"
        f" {total.prompts} prompts from {source!r} to {report.target!r}"
    )


@projects_app.command("rescue-ownership")
def rescue_command(
    project: Annotated[str, typer.Option("--project", help="The project to give the rows.")],
    session: Annotated[
        list[str] | None, typer.Option("--session", help="A session id (repeatable).")
    ] = None,
    observation: Annotated[
        list[int] | None, typer.Option("--observation", help="An observation id (repeatable).")
    ] = None,
    prompt: Annotated[
        list[int] | None, typer.Option("--prompt", help="A prompt id (repeatable).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Give legacy rows that carry no project an owner: every legacy row of the project
    (sessions whose directory is the project's, and their records), or only the ids given."""
    from engram.cli.selection import open_store
    from engram.memory.rescue import rescue_legacy_rows, rescue_ownership

    with open_store() as store:
        if not (session or observation or prompt):
            report = rescue_legacy_rows(store, project)
        else:
            report = rescue_ownership(
                store,
                project,
                session_ids=session or [],
                observation_ids=observation or [],
                prompt_ids=prompt or [],
            )
    if as_json:
        emit_json(report.to_dict())
        return
    typer.echo(
        f"moved {plural(report.rescued_sessions, 'session')},"
        f" {plural(report.rescued_observations, 'observation')},"
        f" {plural(report.rescued_prompts, 'prompt')} to {report.target_project!r}"
    )
    for item in report.blocked:
        owner = f" (owned by {item.owned_by!r})" if item.owned_by else ""
        typer.echo(f"left {item.kind} {item.id}: {item.reason}{owner}")


def register(app: typer.Typer) -> None:
    """Add ``init`` and the ``projects`` group to the root app."""
    app.command("init")(init_command)
    app.add_typer(projects_app)
