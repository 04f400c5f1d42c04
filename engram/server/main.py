"""``engram-mcp`` (and ``engram mcp``): start the stdio MCP server.

Importing this module is cheap. The quick start (:mod:`engram.server.quickstart`) answers the
opening ``initialize`` / ``tools/list`` from data and the journal tools' calls without the SDK;
the SDK and the other tool modules load at the first request that needs them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from engram.server.options import ServerOptions
    from engram.server.stdio import ReadsLines

USAGE = """usage: engram-mcp [--tools=agent|admin|governed|all|NAME,...] [--project NAME]
                  [--always-load] [--no-elicitation]

Serve Engram's memory tools over stdio (MCP). stdout carries only JSON-RPC; logs go to stderr.
"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server until stdin closes; return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "--help" in args or "-h" in args:
        sys.stderr.write(USAGE)
        return 0
    from engram.errors import EngramError
    from engram.server.options import parse_options, set_current_options

    options = parse_options(args)
    set_current_options(options)
    _start_autosync()
    try:
        return _serve(options)
    except EngramError as exc:
        print(f"engram-mcp: error: {exc.one_line()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _start_autosync() -> None:
    """Background cloud replication when ``ENGRAM_CLOUD_AUTOSYNC`` is set (imported only then;
    logs go to stderr, stdout stays JSON-RPC only)."""
    import os

    if not os.environ.get("ENGRAM_CLOUD_AUTOSYNC"):
        return
    from engram.store.datadir import resolve_data_dir
    from engram.sync.cloud.autosync import start_for_process

    start_for_process(resolve_data_dir())


def _serve(options: ServerOptions) -> int:
    from engram.server.quickstart import QuickStart, ReplayReader, claim_stdio, load_catalogue

    reader, writer = claim_stdio()
    catalogue = load_catalogue()
    if catalogue is None:
        return _serve_sdk(options, reader, writer)
    quick = QuickStart(catalogue, options)
    handover = quick.serve(reader, writer)
    if handover is None:
        return 0  # stdin closed: everything received was answered
    return _serve_sdk(
        options,
        ReplayReader(handover.lines, reader),
        writer,
        silent_ids=handover.silent_ids,
        announced_unknown=handover.announced_unknown,
        front=quick.after_handover,
    )


def _serve_sdk(
    options: ServerOptions,
    reader: ReadsLines,
    writer: BinaryIO,
    *,
    silent_ids: Collection[str] = (),
    announced_unknown: bool = False,
    front: Callable[[bytes], bytes | None] | None = None,
) -> int:
    """Serve the rest of the connection with the MCP SDK (imported here, on first need)."""
    import logging

    import anyio

    from engram.server.app import build_server
    from engram.server.dispatch import serve_both_eras
    from engram.server.stdio import LineTransport

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="engram-mcp: %(message)s")
    server, engram = build_server(options, announced_unknown=announced_unknown)
    init_options = server.create_initialization_options()
    transport = LineTransport(reader, writer, silent_ids, front)

    async def serve(read_stream, write_stream) -> None:  # type: ignore[no-untyped-def]
        await serve_both_eras(server, engram, read_stream, write_stream, init_options)

    anyio.run(transport.run, serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
