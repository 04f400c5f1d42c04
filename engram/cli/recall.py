"""``engram search``, ``context``, ``timeline`` and ``stats``: reading memories back."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from engram.cli.output import emit_json, one_line

if TYPE_CHECKING:
    from engram.store.records import Observation

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]
ProjectOption = Annotated[
    str | None,
    typer.Option("--project", help="Project name (default: ENGRAM_PROJECT, then detection)."),
]
AllOption = Annotated[bool, typer.Option("--all", help="Every project.")]


class MatchMode(StrEnum):
    """How the words of a search combine (a usage error for anything else)."""

    ALL = "all"
    ANY = "any"


def search_command(
    query: Annotated[str, typer.Argument(help="Words to find (any text is safe).")],
    type: Annotated[str | None, typer.Option("--type", help="Only this type.")] = None,
    scope: Annotated[str | None, typer.Option("--scope", help="Only this scope.")] = None,
    project: ProjectOption = None,
    all_projects: AllOption = False,
    match: Annotated[
        MatchMode,
        typer.Option(
            "--match",
            help="all: rows with every word first, partial matches fill up; any: by score.",
        ),
    ] = MatchMode.ALL,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=20, help="Results (default 10, max 20).")
    ] = 10,
    as_json: JsonOption = False,
) -> None:
    """Search memories, best match first (title counts more than content)."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.search import search

    with open_store(reading=True) as store:
        name = read_project(store, project, all_projects)
        hits = search(
            store, query, project=name, type=type, scope=scope, limit=limit, mode=match.value
        )
    if as_json:
        emit_json({"project": name, "query": query, "results": [hit.to_dict() for hit in hits]})
        return
    if not hits:
        typer.echo("no matches")
        return
    for hit in hits:
        typer.echo(_observation_line(hit.observation, show_project=name is None))
        typer.echo(f"    {one_line(hit.observation.content)}")
        for note in hit.annotations:
            typer.echo(f"    {note}")
        if hit.state != "active":
            typer.echo(f"    state: {hit.state}")


def _observation_line(observation: Observation, *, show_project: bool = False) -> str:
    where = f" ({observation.project})" if show_project else ""
    origin = f" — {observation.origin}" if observation.origin else ""
    return f"#{observation.id} [{observation.type}] {observation.title}{where}{origin}"


def context_command(
    positional: Annotated[
        str | None, typer.Argument(metavar="[PROJECT]", help="Same as --project.")
    ] = None,
    project: ProjectOption = None,
    all_projects: AllOption = False,
    scope: Annotated[str | None, typer.Option("--scope", help="Only this scope.")] = None,
    compact: Annotated[bool, typer.Option("--compact", help="Titles only.")] = False,
    max_bytes: Annotated[
        int,
        typer.Option("--max-bytes", min=0, help="Cap the text at this many bytes (0: no cap)."),
    ] = 0,
    sessions: Annotated[int, typer.Option("--sessions", help="0 default, -1 omit.")] = 0,
    prompts: Annotated[int, typer.Option("--prompts", help="0 default, -1 omit.")] = 0,
    pinned: Annotated[int, typer.Option("--pinned", help="0 default, -1 omit.")] = 0,
    observations: Annotated[int, typer.Option("--observations", help="0 default, -1 omit.")] = 0,
    as_json: JsonOption = False,
) -> None:
    """Show recent sessions, prompts, pinned and recent memories for a project."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.context import build_context

    if positional is not None and project is not None and positional != project:
        raise typer.BadParameter("name the project once: positionally or with --project")
    with open_store(reading=True) as store:
        name = read_project(store, positional or project, all_projects)
        result = build_context(
            store,
            project=name,
            scope=scope,
            sessions_limit=sessions,
            prompts_limit=prompts,
            pinned_limit=pinned,
            observations_limit=observations,
            compact=compact,
            max_bytes=max_bytes,
        )
    if as_json:
        emit_json(result.to_dict())
        return
    typer.echo(result.text, nl=False)


def timeline_command(
    obs_id: Annotated[int, typer.Argument(help="The observation to centre on.")],
    before: Annotated[
        int, typer.Option("--before", min=0, max=50, help="Earlier neighbours (max 50).")
    ] = 5,
    after: Annotated[
        int, typer.Option("--after", min=0, max=50, help="Later neighbours (max 50).")
    ] = 5,
    project: ProjectOption = None,
    all_projects: AllOption = False,
    as_json: JsonOption = False,
) -> None:
    """Show an observation with what came just before and after it in its session."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.timeline import timeline

    with open_store(reading=True) as store:
        # Ids are global: filter by project only when one is named (--all: never filter).
        name = read_project(store, project, all_projects) if project is not None else None
        result = timeline(store, obs_id, before=before, after=after, project=name)
    if as_json:
        emit_json(result.to_dict())
        return
    if result.session is not None:
        typer.echo(f"session {result.session.id} ({result.session.project})")
    for observation in result.before:
        typer.echo(f"  {_observation_line(observation)}")
    typer.echo(f"> {_observation_line(result.focus)}")
    typer.echo(f"    {one_line(result.focus.content, 400)}")
    for observation in result.after:
        typer.echo(f"  {_observation_line(observation)}")


def stats_command(
    project: ProjectOption = None,
    all_projects: AllOption = False,
    as_json: JsonOption = False,
) -> None:
    """Count sessions, memories, prompts, pins and relations."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.projects import stats

    with open_store(reading=True) as store:
        name = read_project(store, project, all_projects)
        result = stats(store, project=name)
    if as_json:
        emit_json(result.to_dict())
        return
    typer.echo(f"project: {name if name is not None else '(all)'}")
    for label in ("sessions", "observations", "prompts", "pinned", "relations"):
        typer.echo(f"{label}: {getattr(result, label)}")
    typer.echo(f"projects: {', '.join(result.projects) or '(none)'}")


def register(app: typer.Typer) -> None:
    """Add the read commands to the root app."""
    app.command("search")(search_command)
    app.command("context")(context_command)
    app.command("timeline")(timeline_command)
    app.command("stats")(stats_command)
