"""Search (FTS5 over observations) and the timeline around one observation."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.http.exchange import Call, endpoint
from engram.http.problems import bad_request
from engram.http.selection import read_scope
from engram.memory import search as memory_search
from engram.memory import timeline as memory_timeline
from engram.memory.project import normalize_project_name


def _project_filter(call: Call) -> str | None:
    raw = call.query("project")
    return normalize_project_name(raw).name if raw is not None and raw.strip() else None


@endpoint(inline=True)
def search(call: Call) -> Any:
    """GET /search?q=… — best matches first; ``[]`` when nothing matches. Project-scoped like
    every read: ``project``, else the current project (409 ``ambiguous_project`` when the
    server's directory holds several repositories); ``all_projects=true`` searches them all."""
    hits = memory_search.search(
        call.store,
        call.query("q") or "",
        project=read_scope(call),
        type=call.query("type") or None,
        scope=call.query("scope") or None,
        limit=call.query_int("limit"),
        mode=call.query("mode") or "all",
    )
    return [hit.to_dict() for hit in hits]


@endpoint(inline=True)
def timeline(call: Call) -> Any:
    """GET /timeline?observation_id=N&before=5&after=5 — neighbours in the same session."""
    obs_id = call.query_int("observation_id")
    if obs_id is None or obs_id <= 0:
        raise bad_request("http.missing_query", "observation_id (a positive integer) is required")
    result = memory_timeline.timeline(
        call.store,
        obs_id,
        before=call.query_int("before", memory_timeline.DEFAULT_SPAN),
        after=call.query_int("after", memory_timeline.DEFAULT_SPAN),
        project=_project_filter(call),
    )
    return result.to_dict()


ROUTES: list[BaseRoute] = [
    Route("/search", search, methods=["GET"]),
    Route("/timeline", timeline, methods=["GET"]),
]
