"""``engram tui``: browse memory in the terminal (Textual, from the ``tui`` extra).

Textual is imported only when the command runs: the rest of the CLI never pays for it, and a
missing install is a one-line error naming the extra to install.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from engram.errors import EngramError

if TYPE_CHECKING:
    from engram.store.db import Store

NO_TERMINAL = EngramError(
    "tui.no_terminal",
    "the terminal UI needs an interactive terminal (stdin or stdout is not one)",
    "run `engram tui` in a terminal; in scripts use `engram list`, `search` or `context`",
)


def tui_command(
    project: Annotated[
        str | None,
        typer.Option("--project", help="Start in this project (default: this directory's)."),
    ] = None,
    all_projects: Annotated[bool, typer.Option("--all", help="Start with every project.")] = False,
) -> None:
    """Browse memories in an interactive terminal UI (keys: s search, p project, q back)."""
    try:
        from engram.tui.app import EngramApp
    except ModuleNotFoundError as exc:
        from engram.cli.extras import missing_extra_error

        raise (missing_extra_error(exc) or exc) from None
    from engram.cli.selection import open_store

    with open_store() as store:
        name = start_project(store, project, all_projects)
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise NO_TERMINAL  # Textual would wait for keys that never come
        EngramApp(store, project=name).run()


def start_project(store: Store, project: str | None, all_projects: bool) -> str | None:
    """``--project`` (checked), ``--all``, else this directory's project when the store
    knows it, else every project."""
    from engram.cli.selection import read_project

    if project is not None or all_projects:
        return read_project(store, project, all_projects)
    from pathlib import Path

    from engram.memory.project import resolve_project
    from engram.memory.projects import is_known_project

    detection = resolve_project(None, Path.cwd())
    if detection.project and is_known_project(store, detection.project):
        return detection.project
    return None


def register(app: typer.Typer) -> None:
    """Add ``engram tui`` to the root app."""
    app.command("tui")(tui_command)
