"""``engram setup [agent]``: the Go tool's name for a user-level link.

``engram setup claude`` is exactly ``engram link claude --global``; with no agent it lists the
agents it can set up. Existing users of the Go tool keep their muscle memory; the docs say what
it does (docs/link.md, docs/migrating.md).
"""

from __future__ import annotations

from typing import Annotated

import typer


def setup_command(
    agent: Annotated[
        str | None,
        typer.Argument(help="The agent (claude, codex, gemini, ...) or `all`.", show_default=False),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print a diff per file and write nothing.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing engram entry that differs.")
    ] = False,
) -> None:
    """Set up an agent for your user: the same as `engram link AGENT --global`."""
    from engram.cli.link import link_command

    if agent is None:
        from engram.hosts.registry import all_hosts

        typer.echo("Agents Engram can set up (for your user, in every project):")
        for host in all_hosts().values():
            typer.echo(f"  {host.name:<12} {host.title}")
        typer.echo("Run `engram setup <agent>` (the same as `engram link <agent> --global`).")
        return
    link_command(agent, global_=True, dry_run=dry_run, force=force)


def register(app: typer.Typer) -> None:
    """Add ``engram setup`` to the root app."""
    app.command("setup")(setup_command)
