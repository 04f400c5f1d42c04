"""``engram mcp``: start the stdio MCP server (the same server as ``engram-mcp``).

Every argument after ``mcp`` goes to the server untouched, so ``engram mcp --tools=agent`` and
``engram-mcp --tools=agent`` behave the same, unknown options included (ignored with a note).
"""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the ``mcp`` command to the root app."""

    @app.command(
        "mcp",
        context_settings={
            "allow_extra_args": True,
            "ignore_unknown_options": True,
            "help_option_names": [],
        },
        add_help_option=False,
    )
    def mcp_command(ctx: typer.Context) -> None:
        """Start the stdio MCP server (the same as engram-mcp)."""
        from engram.server.main import main

        raise typer.Exit(main(list(ctx.args)))
