"""``engram hook <host>``: read the host's hook JSON on stdin, answer in the host's schema.

The runtime fails open: whatever goes wrong (bad JSON, a locked store, a bug), the host gets
its empty answer, the exit code is 0, and one line goes to stderr. Agents must never be blocked
by their memory.

It imports only what the hook needs (:mod:`engram.lean_json`, ``sqlite3`` through the store): never typer,
pydantic or the MCP SDK. ``tests/hooks/test_imports.py`` keeps it that way.
"""

from __future__ import annotations

import os
import sys

from engram import lean_json
from engram.errors import EngramError
from engram.hooks.answers import empty_answer
from engram.hooks.events import canonical_host, read_event

TYPE_CHECKING = False  # typing costs the hook more than its work
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, BinaryIO, TextIO

    from engram.hooks.recall import Memory

USAGE = "usage: engram hook <host>   (reads the host's hook JSON on stdin)"


def _read_payload(raw: bytes) -> dict[str, Any]:
    if not raw.strip():
        return {}
    # What "utf-8-sig" decodes (one leading BOM dropped), without importing its codec module.
    payload = lean_json.loads(raw.decode("utf-8", "replace").removeprefix("\ufeff"))
    if not isinstance(payload, dict):
        raise EngramError("hook.bad_input", "hook input is not a JSON object", "")
    return payload


def _write(stdout: TextIO, answer: str) -> None:
    if answer:
        stdout.write(answer + "\n")
    stdout.flush()


def run_hook(
    argv: list[str],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    *,
    close_store: bool = True,
) -> int:
    """Run one hook call for the host named in ``argv[0]``; always returns 0 for a known host.

    An unknown or missing host is a usage error (exit 2): that is a broken install the user must
    see, not a runtime failure to hide. ``close_store=False`` leaves the store's connection to
    the process exit (the console script ends at once, see :mod:`engram.cli.entry`).
    """
    stdin = sys.stdin.buffer if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    if len(argv) != 1:
        stderr.write(USAGE + "\n")
        return 2
    try:
        host = canonical_host(argv[0])
    except EngramError as exc:
        stderr.write(f"engram hook: {exc.one_line()}\n")
        return 2
    answer, warning = hook_answer(host, stdin.read(), os.environ, close_store=close_store)
    if warning:
        stderr.write(warning + "\n")
    _write(stdout, answer)
    return 0


def hook_answer(
    host: str,
    raw: bytes,
    env: Mapping[str, str],
    *,
    memory: Memory | None = None,
    cwd: str | None = None,
    close_store: bool = True,
) -> tuple[str, str]:
    """The answer text for one event of ``host`` (canonical) and the warning line ("" for none).

    Never raises: a failure gives the host's empty answer and a one-line warning. ``memory``
    (a store already open, as in ``engram serve``) is used instead of opening one from ``env``;
    ``cwd`` is the hook process's folder when it is not this process's.
    """
    event_name = ""
    try:
        payload = _read_payload(raw)
        event = read_event(host, payload, cwd)
        event_name = event.name
        from engram.hooks.respond import respond

        return respond(event, env, close_store=close_store, memory=memory), ""
    except Exception as exc:  # fail open: the host must keep working
        detail = exc.one_line() if isinstance(exc, EngramError) else f"{type(exc).__name__}: {exc}"
        return empty_answer(host, event_name), f"engram hook {host}: {detail}"
