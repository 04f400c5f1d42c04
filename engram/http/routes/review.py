"""Review: observations whose review date passed, those whose cited code moved (stale), and
marking one reviewed."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.http.exchange import Call, endpoint
from engram.http.problems import bad_request
from engram.http.selection import read_scope
from engram.memory import review


@endpoint(inline=True)
def due(call: Call) -> Any:
    """GET /review — observations due for local review (``[]`` when none)."""
    project = read_scope(call)
    limit = call.query_int("limit", review.DEFAULT_REVIEW_LIMIT) or review.DEFAULT_REVIEW_LIMIT
    return [item.to_dict() for item in review.list_due(call.store, project=project, limit=limit)]


@endpoint(inline=True)
def stale(call: Call) -> Any:
    """GET /review/stale — observations whose cited code is gone or moved, with reasons and
    fixes (``[]`` when none)."""
    from engram.memory.stale import list_stale

    project = read_scope(call)
    limit = call.query_int("limit", review.DEFAULT_REVIEW_LIMIT) or review.DEFAULT_REVIEW_LIMIT
    return [item.to_dict() for item in list_stale(call.store, project=project, limit=limit)]


@endpoint(body=True)
def mark_reviewed(call: Call) -> Any:
    """POST /review/mark_reviewed — ``{observation_id}`` (legacy ``{id}``): the refreshed row."""
    obs_id = call.integer("observation_id")
    if obs_id is None:
        obs_id = call.integer("id")
    if obs_id is None or obs_id <= 0:
        raise bad_request("http.missing_field", "observation_id (a positive integer) is required")
    return review.mark_reviewed(call.store, obs_id).to_dict()


ROUTES: list[BaseRoute] = [
    Route("/review", due, methods=["GET"]),
    Route("/review/stale", stale, methods=["GET"]),
    Route("/review/mark_reviewed", mark_reviewed, methods=["POST"]),
]
