"""User prompts: save, recent, search, delete."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.http.exchange import Call, endpoint, reply
from engram.http.routes.observations import save_project
from engram.http.selection import read_scope
from engram.memory import prompts


@endpoint(body=True)
def add(call: Call) -> Any:
    """POST /prompts — ``{session_id, content, project?}``: 201 ``{id, status: "saved"}``."""
    session_id = call.text("session_id")
    result = prompts.save_prompt(
        call.store,
        call.text("content"),
        project=save_project(call, session_id),
        session_id=session_id,
    )
    return reply({**result.to_dict(), "status": "saved"}, 201)


@endpoint(inline=True)
def recent(call: Call) -> Any:
    """GET /prompts/recent — newest first (``[]`` when none)."""
    project = read_scope(call)
    found = prompts.recent_prompts(call.store, project=project, limit=call.query_int("limit"))
    return [p.to_dict() for p in found]


@endpoint(inline=True)
def search(call: Call) -> Any:
    """GET /prompts/search?q=… — matching prompts (``[]`` when none)."""
    project = read_scope(call)
    found = prompts.search_prompts(
        call.store, call.query("q") or "", project=project, limit=call.query_int("limit")
    )
    return [p.to_dict() for p in found]


@endpoint(token="when_set")
def delete(call: Call) -> Any:
    """DELETE /prompts/{id} — 200 deleted, 400 bad id, 404 unknown."""
    from engram.memory import removal

    removed = removal.delete_prompt(call.store, call.path_id())
    return {"id": int(removed.id), "status": "deleted"}


ROUTES: list[BaseRoute] = [
    Route("/prompts", add, methods=["POST"]),
    Route("/prompts/recent", recent, methods=["GET"]),
    Route("/prompts/search", search, methods=["GET"]),
    Route("/prompts/{id}", delete, methods=["DELETE"]),
]
