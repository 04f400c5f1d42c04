"""One ``tools/call``, from raw arguments to the result object, without the MCP SDK.

Both paths that answer a call use it: the SDK server (:meth:`engram.server.app.EngramServer.
call_tool`, which may await an async tool) and the quick path (:mod:`engram.server.quick_calls`,
which serves the journal tools before the SDK loads). So validation, diagnostics and error
mapping are one piece of code and the two paths cannot drift apart.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

from engram.errors import EngramError
from engram.server.envelope import ToolOutcome, error_result, success_result
from engram.server.registry import ToolSpec


def begin(tool: ToolSpec, arguments: Any, request: Any, diagnostics: list[str]) -> Any:
    """Check the arguments and run the tool; return its outcome (maybe awaitable).

    Notes about ignored or dropped arguments are appended to ``diagnostics``. Raises what the
    tool raises (see :func:`failed`)."""
    call = tool.bind(arguments, request)
    if call.ignored:
        diagnostics.append(f"ignored unknown arguments: {', '.join(call.ignored)}")
    diagnostics.extend(call.notes)
    return tool.run(call)


def finished(outcome: Any, diagnostics: list[str]) -> Any:
    """The ``tools/call`` result of a finished outcome."""
    if not isinstance(outcome, ToolOutcome):
        # A family that answers in the SDK's own shapes (input_required...) owns its result.
        return outcome
    outcome.diagnostics = diagnostics + outcome.diagnostics
    return success_result(outcome)


def failed(name: str, exc: Exception, diagnostics: list[str]) -> dict[str, Any]:
    """The tool-error result for what a call raised: Engram's own errors as they are, a held
    lock, a full disk or a read-only store as their user errors, anything else as
    ``server.internal`` (the traceback goes to stderr, never to the client)."""
    if isinstance(exc, EngramError):
        return error_result(exc, diagnostics)
    from engram.store.errors import as_user_error

    mapped = as_user_error(exc)
    if mapped is not None:
        return error_result(mapped, diagnostics)
    print("".join(traceback.format_exception(exc)), file=sys.stderr)
    return error_result(
        EngramError(
            "server.internal",
            f"{name} failed: {type(exc).__name__}: {exc}",
            "report this bug; nothing else was changed by the failed call",
        ),
        diagnostics,
    )


def call_now(tool: ToolSpec, arguments: Any) -> Any:
    """Run one call of a synchronous tool to its result (tool errors included)."""
    diagnostics: list[str] = []
    try:
        outcome = begin(tool, arguments, None, diagnostics)
        if hasattr(outcome, "__await__"):
            import asyncio

            outcome = asyncio.run(_awaited(outcome))
    except Exception as exc:
        return failed(tool.name, exc, diagnostics)
    return finished(outcome, diagnostics)


async def _awaited(outcome: Any) -> Any:
    return await outcome
