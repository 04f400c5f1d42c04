"""Context: the formatted memory context, and the after-compaction context of one session."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.http.exchange import TRUE_WORDS, Call, endpoint
from engram.http.selection import read_scope
from engram.memory.checks import SCOPES
from engram.memory.context import build_context


def _lenient_int(call: Call, name: str) -> int:
    """An integer query value; anything unparseable is 0 (the section's default), never a 400."""
    raw = (call.query(name) or "").strip()
    try:
        return int(raw)
    except ValueError:
        return 0


@endpoint(inline=True)
def context(call: Call) -> Any:
    """GET /context — Markdown context; invalid values fall back to their defaults."""
    project = read_scope(call)
    scope = (call.query("scope") or "").strip().lower()
    result = build_context(
        call.store,
        project=project,
        scope=scope if scope in SCOPES else None,
        sessions_limit=_lenient_int(call, "sessions"),
        prompts_limit=_lenient_int(call, "prompts"),
        pinned_limit=_lenient_int(call, "pinned"),
        observations_limit=_lenient_int(call, "observations"),
        compact=(call.query("compact") or "").strip().lower() in TRUE_WORDS,
        max_bytes=_lenient_int(call, "max_bytes"),
    )
    return {"context": result.text, **result.to_dict()}


@endpoint(inline=True)
def compaction(call: Call) -> Any:
    """GET /context/compaction?session_id=X — context for one persisted session."""
    from engram.memory.compaction import compaction_context

    return compaction_context(call.store, call.query("session_id")).to_dict()


ROUTES: list[BaseRoute] = [
    Route("/context", context, methods=["GET"]),
    Route("/context/compaction", compaction, methods=["GET"]),
]
