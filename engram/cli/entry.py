"""The ``engram`` console script: a fast path for ``engram hook <host>``, typer for the rest.

Agent hosts run ``engram hook <host>`` on every session start and prompt, so that path must not
pay for typer, pydantic or the MCP SDK. This module imports nothing heavy itself: it looks at
``argv[1]`` and either runs the hook runtime directly or hands off to the typer application.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    """Run ``engram`` with ``argv`` (default ``sys.argv[1:]``) and return the exit code.

    Run as the program (``argv`` None), ``engram hook`` ends the process as soon as its answer
    is written: its writes are committed, and closing the store's last connection (a WAL
    checkpoint with an fsync) and the interpreter's teardown cost more than the hook's work.
    """
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "hook" and not {"-h", "--help"} & set(args[1:]):
        from engram.hooks.runtime import run_hook

        if argv is not None:
            return run_hook(args[1:])
        code = run_hook(args[1:], close_store=False)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    from engram.cli.app import main as app_main

    return app_main(args)


if __name__ == "__main__":
    sys.exit(main())
