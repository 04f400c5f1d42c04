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
        typer.Option(
            "--host",
            help="Address to bind. Beyond loopback it needs ENGRAM_HTTP_TOKEN, then asked on "
            "every route but GET /health.",
        ),
    ] = "127.0.0.1",
) -> None:
    """Serve memory over HTTP on 127.0.0.1:7437 (ENGRAM_SOCKET for a Unix socket)."""
    from engram.cli.selection import open_store
    from engram.http.guard import is_loopback
    from engram.http.listen import choose_address, run

    address, warnings = choose_address(port, host)
    for message in warnings:
        warn(message)
    wide = address.socket_path is None and not is_loopback(host)
    if wide:
        _check_wide_bind(host)
    with open_store() as store:
        code = run(
            store, address, extra_hosts=frozenset({host}) if wide else frozenset(), wide=wide
        )
    raise typer.Exit(code)


def _check_wide_bind(host: str) -> None:
    """A bind beyond loopback serves only with ENGRAM_HTTP_TOKEN, which then guards it all.

    Raises:
        EngramError: ``serve.token_required`` when no token is configured.
    """
    import os

    from engram.errors import EngramError
    from engram.http.guard import TOKEN_ENV

    if not os.environ.get(TOKEN_ENV, "").strip():
        raise EngramError(
            "serve.token_required",
            f"refusing to bind {host} without {TOKEN_ENV}: other machines could read and "
            "change every memory",
            f"set {TOKEN_ENV} to a long random secret, or bind 127.0.0.1",
        )
    warn(
        f"binding {host}: other machines can reach this server; every route but GET /health "
        f"(memories, search, export, import, deletes and /mcp) needs "
        f"`Authorization: Bearer <{TOKEN_ENV}>`"
    )
