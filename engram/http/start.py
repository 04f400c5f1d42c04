"""``engram serve`` without the CLI framework: hooks spawn it and ask ``GET /health`` 0.5 s later.

The Go plugins' SessionStart scripts start ``engram serve`` in the background, sleep half a
second and go on; a server that is not answering by then misses the session's registration and
its context. Loading typer (and the commands it registers) costs a good part of that budget, so
:func:`engram.cli.entry.main` hands the shapes of the command line this module understands —
``engram serve [PORT] [--host HOST]`` — straight here. Anything else (``--help``, a typo, an
unknown option) goes to typer, which says what is wrong exactly as before.
"""

from __future__ import annotations

import sys

from engram.errors import EngramError


def parse_serve_args(args: list[str]) -> tuple[str | None, str] | None:
    """``(port, host)`` from ``engram serve``'s arguments, or None for anything unusual."""
    port: str | None = None
    host = "127.0.0.1"
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--host" and rest and not rest[0].startswith("-"):
            host = rest.pop(0)
        elif arg.startswith("--host=") and len(arg) > len("--host="):
            host = arg[len("--host=") :]
        elif not arg.startswith("-") and port is None:
            port = arg
        else:
            return None
    return port, host


def serve(port: str | None, host: str) -> int:
    """Run the server (what ``engram serve`` does) and return the exit code."""
    from engram.http.guard import is_loopback
    from engram.http.listen import choose_address, run
    from engram.store.db import Store

    try:
        address, warnings = choose_address(port, host)
        for message in warnings:
            _warn(message)
        wide = address.socket_path is None and not is_loopback(host)
        if wide:
            _check_wide_bind(host)
        with Store.open() as store:
            return run(
                store, address, extra_hosts=frozenset({host}) if wide else frozenset(), wide=wide
            )
    except EngramError as exc:
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _check_wide_bind(host: str) -> None:
    """A bind beyond loopback serves only with ENGRAM_HTTP_TOKEN, which then guards it all.

    Raises:
        EngramError: ``serve.token_required`` when no token is configured.
    """
    import os

    from engram.http.guard import TOKEN_ENV

    if not os.environ.get(TOKEN_ENV, "").strip():
        raise EngramError(
            "serve.token_required",
            f"refusing to bind {host} without {TOKEN_ENV}: other machines could read and "
            "change every memory",
            f"set {TOKEN_ENV} to a long random secret, or bind 127.0.0.1",
        )
    _warn(
        f"binding {host}: other machines can reach this server; every route but GET /health "
        f"(memories, search, export, import, deletes and /mcp) needs "
        f"`Authorization: Bearer <{TOKEN_ENV}>`"
    )


def _warn(message: str | None) -> None:
    if message:
        print(f"warning: {message}", file=sys.stderr)
