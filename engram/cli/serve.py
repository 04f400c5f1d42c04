"""``engram serve [port]``: the local HTTP runtime (JSON routes and MCP at ``/mcp``)."""

from __future__ import annotations

from typing import Annotated

import typer

from engram.cli.output import warn


def register(app: typer.Typer) -> None:
    """Add ``engram serve`` to the root app."""
    app.command("serve")(serve_command)


def serve_command(
    port: Annotated[
        str | None,
        typer.Argument(help="TCP port (default ENGRAM_PORT, else 7437).", show_default=False),
    ] = None,
    host: Annotated[
        str,
        typer.Option("--host", help="Address to bind; anything but loopback exposes memory."),
    ] = "127.0.0.1",
) -> None:
    """Serve memory over HTTP on 127.0.0.1:7437 (ENGRAM_SOCKET for a Unix socket)."""
    from engram.cli.selection import open_store
    from engram.http.guard import is_loopback
    from engram.http.listen import choose_address, run

    address, warnings = choose_address(port, host)
    for message in warnings:
        warn(message)
    extra: frozenset[str] = frozenset()
    if not is_loopback(host):
        warn(f"binding {host}: other machines can reach this server; set ENGRAM_HTTP_TOKEN")
        extra = frozenset({host})
    with open_store() as store:
        code = run(store, address, extra_hosts=extra)
    raise typer.Exit(code)
