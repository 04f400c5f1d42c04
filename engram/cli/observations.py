"""``engram show|list|pin|unpin|update`` and ``engram prompts search|recent``: what the
``mem_get_observation``, ``mem_pin``, ``mem_unpin`` and ``mem_update`` tools do, from a terminal.

Each command is a thin adapter over one :mod:`engram.memory` operation. Writes assert the
project that owns the observation (``--project``, ``ENGRAM_PROJECT``, else detection), like
``mem_update``: an observation of another project is refused and nothing changes.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated

import typer

from engram.cli.output import emit_json, one_line
from engram.errors import EngramError

if TYPE_CHECKING:
    from engram.store.records import Prompt

JsonOption = Annotated[bool, typer.Option("--json", help="Print stable JSON.")]
ProjectOption = Annotated[
    str | None,
    typer.Option("--project", help="Project name (default: ENGRAM_PROJECT, then detection)."),
]
AllOption = Annotated[bool, typer.Option("--all", help="Every project (not with --project).")]
IdArgument = Annotated[int, typer.Argument(min=1, help="The observation id.", show_default=False)]
# Copies of engram.memory.checks.TYPES / SCOPES / DEFAULT_TYPE (a test keeps them equal): building
# the CLI must not import the memory layer.
TYPES = (
    "manual",
    "decision",
    "architecture",
    "bugfix",
    "pattern",
    "config",
    "discovery",
    "learning",
    "preference",
    "session_summary",
)
SCOPES = ("project", "personal", "global")
DEFAULT_TYPE = "manual"
# The known observation types and scopes as choices: an unknown one is a usage error (exit 2)
# and --help lists them all.
ObservationType = StrEnum("ObservationType", {t.upper(): t for t in TYPES})  # type: ignore[misc]
Scope = StrEnum("Scope", {s.upper(): s for s in SCOPES})  # type: ignore[misc]
TypeOption = Annotated[
    ObservationType | None,
    typer.Option("--type", help=f"Observation type (default {DEFAULT_TYPE}).", show_default=False),
]
ScopeOption = Annotated[Scope | None, typer.Option("--scope", help="Scope.", show_default=False)]


def value(choice: StrEnum | None) -> str | None:
    """The plain string of an enum choice."""
    return None if choice is None else str(choice.value)


def read_text_argument(value: str | None) -> str | None:
    """``-`` means: read the text from stdin (so long or multi-line content needs no quoting)."""
    if value != "-":
        return value
    text = (sys.stdin.read() if sys.stdin is not None else "").rstrip("\n")  # None: closed
    if not text.strip():
        raise EngramError(
            "cli.empty_stdin",
            "`-` reads the text from stdin, but stdin was empty",
            "pipe the text in, e.g. `cat notes.md | engram save TITLE -`",
        )
    return text


def show_command(obs_id: IdArgument, as_json: JsonOption = False) -> None:
    """Show one observation in full."""
    from engram.cli.selection import open_store
    from engram.memory.observation import get_observation

    with open_store(reading=True) as store:
        observation = get_observation(store, obs_id)
    if as_json:
        emit_json(observation.to_dict())
        return
    pin = " (pinned)" if observation.pinned else ""
    typer.echo(f"#{observation.id} [{observation.type}] {observation.title}{pin}")
    typer.echo(f"project {observation.project} · scope {observation.scope}")
    typer.echo(f"created {observation.created_at} · updated {observation.updated_at}")
    if observation.topic_key:
        typer.echo(f"topic {observation.topic_key}")
    typer.echo("")
    typer.echo(observation.content)


def list_command(
    project: ProjectOption = None,
    all_projects: AllOption = False,
    type: TypeOption = None,
    scope: ScopeOption = None,
    limit: Annotated[int, typer.Option("--limit", min=1, max=200, help="How many (1-200).")] = 20,
    as_json: JsonOption = False,
) -> None:
    """List the most recent observations (newest first), filtered by project, type or scope."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.observation import list_recent

    with open_store(reading=True) as store:
        name = read_project(store, project, all_projects)
        # Fetch more when filtering by type so the limit counts matching rows.
        rows = list_recent(store, project=name, scope=value(scope), limit=200 if type else limit)
    rows = [r for r in rows if type is None or r.type == value(type)][:limit]
    if as_json:
        emit_json([r.to_dict() for r in rows])
        return
    if not rows:
        typer.echo("No observations.")
        return
    for row in rows:
        pin = "*" if row.pinned else " "
        where = f" ({row.project})" if name is None else ""
        typer.echo(
            f"{pin}#{row.id} [{row.type}] {one_line(row.title, 80)}{where}  {row.created_at}"
        )


def _pin(obs_id: int, pinned: bool, as_json: bool) -> None:
    from engram.cli.selection import open_store
    from engram.memory.observation import set_pinned

    with open_store() as store:
        result = set_pinned(store, obs_id, pinned)
    if as_json:
        emit_json(result.to_dict())
        return
    typer.echo(f"observation #{result.id} {'pinned' if pinned else 'unpinned'}")


def pin_command(obs_id: IdArgument, as_json: JsonOption = False) -> None:
    """Pin an observation: context shows it before recent ones (this device only)."""
    _pin(obs_id, True, as_json)


def unpin_command(obs_id: IdArgument, as_json: JsonOption = False) -> None:
    """Unpin an observation (back to plain recency order)."""
    _pin(obs_id, False, as_json)


def update_command(
    obs_id: IdArgument,
    title: Annotated[str | None, typer.Option("--title", help="A new title.")] = None,
    content: Annotated[
        str | None, typer.Option("--content", help="New content (`-` reads stdin).")
    ] = None,
    type: TypeOption = None,
    scope: ScopeOption = None,
    topic: Annotated[str | None, typer.Option("--topic", help="A new topic key.")] = None,
    find: Annotated[
        str | None, typer.Option("--find", help="Literal text to replace (with --replace).")
    ] = None,
    replace: Annotated[
        str | None, typer.Option("--replace", help="What --find becomes (may be empty).")
    ] = None,
    project: ProjectOption = None,
    as_json: JsonOption = False,
) -> None:
    """Change an observation's fields, or find/replace inside its content."""
    from engram.cli.selection import detect, open_store
    from engram.memory.observation import update_observation
    from engram.memory.project import require_single

    if (find is None) != (replace is None):
        raise typer.BadParameter("--find and --replace go together")
    fields = (title, content, type, scope, topic, find)
    if all(value is None for value in fields):
        raise typer.BadParameter(
            "nothing to change: give --title, --content, --type, --scope, --topic "
            "or --find/--replace"
        )
    expected = require_single(detect(project))
    with open_store() as store:
        result = update_observation(
            store,
            obs_id,
            expected_project=expected,
            title=title,
            content=read_text_argument(content),
            type=value(type),
            scope=value(scope),
            topic_key=topic,
            find=find,
            replace=replace,
        )
    if as_json:
        emit_json(result.to_dict())
        return
    verb = "updated" if result.changed else "unchanged"
    typer.echo(f"observation #{result.observation.id} {verb}: {result.observation.title}")


prompts_app = typer.Typer(
    help="Search and list the prompts agents recorded.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@prompts_app.command("search")
def prompts_search(
    query: Annotated[str, typer.Argument(help="Words to look for.")],
    project: ProjectOption = None,
    all_projects: AllOption = False,
    limit: Annotated[int, typer.Option("--limit", min=1, max=100, help="1-100.")] = 10,
    as_json: JsonOption = False,
) -> None:
    """Search recorded prompts, best match first."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.prompts import search_prompts

    with open_store(reading=True) as store:
        name = read_project(store, project, all_projects)
        rows = search_prompts(store, query, project=name, limit=limit)
    _print_prompts(rows, as_json, name is None)


@prompts_app.command("recent")
def prompts_recent(
    project: ProjectOption = None,
    all_projects: AllOption = False,
    limit: Annotated[int, typer.Option("--limit", min=1, max=100, help="1-100.")] = 10,
    as_json: JsonOption = False,
) -> None:
    """List the most recent prompts, newest first."""
    from engram.cli.selection import open_store, read_project
    from engram.memory.prompts import recent_prompts

    with open_store(reading=True) as store:
        name = read_project(store, project, all_projects)
        rows = recent_prompts(store, project=name, limit=limit)
    _print_prompts(rows, as_json, name is None)


def _print_prompts(rows: list[Prompt], as_json: bool, every_project: bool) -> None:
    if as_json:
        emit_json([r.to_dict() for r in rows])
        return
    if not rows:
        typer.echo("No prompts.")
        return
    for row in rows:
        where = f" ({row.project})" if every_project else ""
        typer.echo(f"#{row.id} {row.created_at}{where}  {one_line(row.content, 100)}")


def register(app: typer.Typer) -> None:
    """Add ``show``, ``list``, ``pin``, ``unpin``, ``update`` and ``prompts`` to the root app."""
    app.command("show")(show_command)
    app.command("list")(list_command)
    app.command("pin")(pin_command)
    app.command("unpin")(unpin_command)
    app.command("update")(update_command)
    app.add_typer(prompts_app, name="prompts")
