"""``engram-mcp`` (and ``engram mcp``): start the stdio MCP server.

Importing this module is cheap; the SDK and the tool modules load inside :func:`main`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

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
    try:
        return _serve(options)
    except EngramError as exc:
        print(f"engram-mcp: error: {exc.one_line()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _serve(options: object) -> int:
    import logging

    import anyio

    from engram.server.app import build_server
    from engram.server.dispatch import serve_both_eras
    from engram.server.options import ServerOptions
    from engram.server.stdio import LineTransport, claim_stdio

    assert isinstance(options, ServerOptions)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="engram-mcp: %(message)s")
    server, engram = build_server(options)
    init_options = server.create_initialization_options()
    reader, writer = claim_stdio()
    transport = LineTransport(reader, writer)

    async def serve(read_stream, write_stream) -> None:  # type: ignore[no-untyped-def]
        await serve_both_eras(server, engram, read_stream, write_stream, init_options)

    anyio.run(transport.run, serve)
    return 0


if __name__ == "__main__":
    sys.exit(main())
