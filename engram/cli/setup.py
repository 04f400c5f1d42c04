"""``engram setup [agent]`` and ``engram protocol-mode <agent>``: the Go tool's names.

``engram setup claude`` is exactly ``engram link claude --global``; with no agent it lists the
agents it can set up. As in the Go tool, ``--mcp-only`` registers the MCP server alone (no
hooks, skill or instructions; for Claude Code also the ``~/.claude/mcp/engram.json`` file the Go
plugin checks), and ``--protocol slim|full`` keeps how much protocol text the agent's hook
scripts print, which ``engram protocol-mode <agent>`` answers (see
:mod:`engram.hosts.protocol_mode`). Existing users of the Go tool keep their muscle memory and
their plugins keep working (docs/link.md, docs/migrating.md).
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
    mcp_only: Annotated[
        bool,
        typer.Option("--mcp-only", help="Register the MCP server only (no hooks, skill, rules)."),
    ] = False,
    protocol: Annotated[
        str | None,
        typer.Option(
            "--protocol",
            help="full or slim: how much protocol text the agent's hooks print.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Set up an agent for your user: the same as `engram link AGENT --global`."""
    from engram.cli.link import host_context, link_hosts

    if agent is None:
        from engram.hosts.registry import all_hosts

        typer.echo("Agents Engram can set up (for your user, in every project):")
        for host in all_hosts().values():
            typer.echo(f"  {host.name:<12} {host.title}")
        typer.echo("Run `engram setup <agent>` (the same as `engram link <agent> --global`).")
        return
    ctx = host_context(True, force=force, extras=not mcp_only)
    if protocol is not None and not dry_run:
        from engram.hosts.protocol_mode import write_protocol_mode

        write_protocol_mode(ctx.data_dir, agent, protocol.strip().lower())
    link_hosts(agent, ctx, dry_run=dry_run)


def protocol_mode_command(
    agent: Annotated[str, typer.Argument(help="The agent, as given to engram setup.")],
) -> None:
    """Print `full` or `slim`: how much protocol text AGENT's hook scripts should print."""
    from engram.cli.link import host_context
    from engram.hosts.protocol_mode import read_protocol_mode

    typer.echo(read_protocol_mode(host_context(True).data_dir, agent))


def register(app: typer.Typer) -> None:
    """Add ``engram setup`` and ``engram protocol-mode`` to the root app."""
    app.command("setup")(setup_command)
    app.command("protocol-mode")(protocol_mode_command)
