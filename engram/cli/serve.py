"""``engram serve [port]``: the local HTTP runtime (JSON routes and MCP at ``/mcp``), and
``engram instance-id``, the id its ``GET /health`` answers with.

The usual command lines never reach this module: :mod:`engram.cli.entry` hands them to
:mod:`engram.http.start` without loading typer. This command is what ``--help`` and unusual
arguments get, and it runs the same :func:`engram.http.start.serve`.
"""

from __future__ import annotations

from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add ``engram serve`` and ``engram instance-id`` to the root app."""
    app.command("serve")(serve_command)
    app.command("instance-id")(instance_id_command)


def serve_command(
    port: Annotated[
        str | None,
        typer.Argument(help="TCP port (default ENGRAM_PORT, else 7437).", show_default=False),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to bind. Beyond loopback it needs ENGRAM_HTTP_TOKEN, then asked on "
            "every route but GET /health.",
        ),
    ] = "127.0.0.1",
) -> None:
    """Serve memory over HTTP on 127.0.0.1:7437 (ENGRAM_SOCKET for a Unix socket)."""
    from engram.http.start import serve

    raise typer.Exit(serve(port, host))


def instance_id_command() -> None:
    """Print this store's instance id, the one `GET /health` answers (creates the store if
    needed): plugins compare the two to know the server on the port is theirs."""
    from engram.cli.selection import open_store
    from engram.memory.health import check_health

    with open_store() as store:
        typer.echo(check_health(store).instance_id)
