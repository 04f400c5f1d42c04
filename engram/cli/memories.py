"""``engram save`` and ``engram delete``: writing and removing memories from a terminal."""

from __future__ import annotations

from typing import Annotated

import typer

from engram.cli.observations import ScopeOption, TypeOption, read_text_argument, value
from engram.cli.output import emit_json, warn
from engram.errors import EngramError

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]
ProjectOption = Annotated[
    str | None,
    typer.Option("--project", help="Project name (default: ENGRAM_PROJECT, then detection)."),
]


def save_command(
    title: Annotated[str, typer.Argument(help="A short, searchable title.")],
    content: Annotated[
        str, typer.Argument(help="The memory: what, why, where, learned (`-` reads stdin).")
    ],
    type: TypeOption = None,
    scope: ScopeOption = None,
    topic: Annotated[
        str | None,
        typer.Option("--topic", help="Topic key: a later save with the same key revises it."),
    ] = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Save a memory (private spans redacted, duplicates counted, topics revised)."""
    from engram.cli.selection import open_store, write_project
    from engram.memory.save import save_observation

    with open_store() as store:
        name = write_project(store, project)
        result = save_observation(
            store,
            title=title,
            content=read_text_argument(content),
            project=name,
            type=value(type),
            scope=value(scope),
            topic_key=topic,
        )
    for line in result.warnings:
        warn(line)
    if as_json:
        emit_json({"project": name, **result.to_dict()})
        return
    observation = result.observation
    typer.echo(f"{result.action} #{observation.id} in {name}: {observation.title}")


def delete_command(
    target: Annotated[
        str,
        typer.Argument(
            metavar="TARGET",
            help="An observation id, or the word `session`, `prompt` or `project`.",
        ),
    ],
    item: Annotated[
        str | None,
        typer.Argument(metavar="ID", help="The session or prompt id.", show_default=False),
    ] = None,
    hard: Annotated[
        bool,
        typer.Option("--hard", help="Remove observations for good (default: soft-delete them)."),
    ] = False,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Delete an observation (soft by default), an empty session, a prompt, or a project.

    engram delete 42 [--hard] | engram delete session ID | engram delete prompt ID |
    engram delete project NAME [--hard] (its prompts go, its observations are soft-deleted or,
    with --hard, removed, and its sessions go once nothing refers to them)
    """
    if target == "project":
        if item is None:
            raise typer.BadParameter("`engram delete project` needs the project's NAME")
        _delete_project(item, hard, as_json)
        return
    if target in {"session", "prompt"}:
        if item is None:
            raise typer.BadParameter(f"`engram delete {target}` needs an ID")
        _delete_other(target, item, as_json)
        return
    if item is not None:
        raise typer.BadParameter(f"unexpected extra argument {item!r}")
    obs_id = _positive_id(target)
    from engram.cli.selection import detect, open_store
    from engram.memory.observation import delete_observation
    from engram.memory.project import require_single

    expected = require_single(detect(project))
    with open_store() as store:
        result = delete_observation(store, obs_id, expected_project=expected, hard=hard)
    if as_json:
        emit_json(result.to_dict())
        return
    how = "deleted for good" if result.hard else "deleted (soft; `--hard` removes it for good)"
    typer.echo(f"observation #{result.id} {how}")


def _delete_project(name: str, hard: bool, as_json: bool) -> None:
    from engram.cli.selection import open_store
    from engram.memory.project_cleanup import delete_project

    with open_store() as store:
        result = delete_project(store, name, hard=hard)
    if as_json:
        emit_json(result.to_dict())
        return
    how = "removed" if hard else "soft-deleted"
    typer.echo(
        f"project {name!r} deleted: {result.observations} observations {how}, "
        f"{result.prompts} prompts and {result.sessions} sessions removed"
    )


def _delete_other(kind: str, item: str, as_json: bool) -> None:
    from engram.cli.selection import open_store
    from engram.memory.removal import delete_prompt, delete_session

    with open_store() as store:
        if kind == "prompt":
            result = delete_prompt(store, _positive_id(item))
        else:
            result = delete_session(store, item)
    if as_json:
        emit_json(result.to_dict())
        return
    typer.echo(f"{kind} {item} deleted")


def _positive_id(text: str) -> int:
    """An id typed on the command line: a positive integer, else a one-line error."""
    if not text.isdigit() or int(text) <= 0:
        raise EngramError(
            "cli.bad_id",
            f"{text!r} is not an id (ids are positive integers)",
            "find ids with `engram search` or `engram context`",
        )
    return int(text)


def register(app: typer.Typer) -> None:
    """Add ``save`` and ``delete`` to the root app."""
    app.command("save")(save_command)
    app.command("delete")(delete_command)
