"""``engram hook <host>``: the command agent hosts run at session start, per prompt, around
compaction and at session end.

Hosts never reach this module: ``engram.cli.entry`` sends ``engram hook ...`` straight to
:mod:`engram.hooks.runtime` without loading typer. It exists so ``engram --help`` lists the
command and ``engram hook --help`` explains it.
"""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add ``engram hook`` to the root app."""
    app.command("hook")(hook_command)


def hook_command(
    host: Annotated[
        str,
        typer.Argument(
            help="The host calling: claude, codex, gemini, cursor, windsurf, opencode, droid, qwen, kimi, cline, goose.",
            show_default=False,
        ),
    ],
) -> None:
    """Answer one hook call from an agent host: reads the host's hook JSON on stdin and prints
    the host's answer (memory pack, what changed, or nothing). Never fails the host: errors go
    to stderr as one line, with the host's empty answer and exit 0."""
    from engram.hooks.runtime import run_hook

    code = run_hook([host])
    if code:
        raise typer.Exit(code)
