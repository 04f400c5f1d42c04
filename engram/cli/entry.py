"""The ``engram`` console script: fast paths for ``engram hook`` and ``engram serve``, typer
for the rest.

Agent hosts run ``engram hook <host>`` on every session start and prompt, so that path must not
pay for typer, pydantic or the MCP SDK. This module imports nothing heavy itself: it looks at
``argv[1]`` and either runs the hook (asking a running ``engram serve`` first, see
:mod:`engram.hooks.client`, else the hook runtime in-process) or hands off to the typer
application. ``engram serve`` skips typer too (see :mod:`engram.http.start`): hooks spawn it and
expect an answer half a second later.
"""

from __future__ import annotations

import gc
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
        if argv is not None:
            from engram.hooks.runtime import run_hook

            return run_hook(args[1:])
        os._exit(_hook(args[1:]))
    if args and args[0] == "serve":
        from engram.http.start import parse_serve_args, serve

        parsed = parse_serve_args(args[1:])
        if parsed is not None:
            return serve(*parsed)
    from engram.cli.app import main as app_main

    return app_main(args)


def _hook(args: list[str]) -> int:
    """``engram hook`` as the program: the running runtime answers when it can, else this
    process does the work itself (see :mod:`engram.hooks.client`).

    The cyclic garbage collector is off: its passes over the objects every import creates
    cost the hook ~6% of its instructions, and the process ends (``os._exit``) as soon as it
    has answered, so the little cyclic garbage one bounded call leaves is never worth it."""
    gc.disable()
    raw = sys.stdin.buffer.read()
    if len(args) == 1 and os.environ.get("ENGRAM_HOOK_LOCAL", "") != "1":
        from engram.hooks.client import ask_runtime

        answered = ask_runtime(args[0], raw, os.environ)
        if answered is not None:
            out, warning = answered
            if warning:
                sys.stderr.write(warning + "\n")
                sys.stderr.flush()
            sys.stdout.buffer.write(out)
            sys.stdout.buffer.flush()
            return 0
    import io

    from engram.hooks.runtime import run_hook

    code = run_hook(args, stdin=io.BytesIO(raw), close_store=False)
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
