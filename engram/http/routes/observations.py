"""Observations: save, list, get, update, delete, pin; topic-key suggestions; passive capture."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from starlette.routing import BaseRoute, Route

from engram.http.exchange import Call, endpoint, reply
from engram.http.problems import bad_request
from engram.http.selection import read_scope, single_project
from engram.memory import observation, passive, save, sessions, topic

LIST_DEFAULT = 20
LIST_CEILING = 500
SORTS = ("created_at:desc", "")


def save_project(call: Call, session_id: str | None) -> str:
    """Where a write goes: the body's project, else the session's, else the current one."""
    explicit = call.text("project")
    if explicit is None and session_id:
        owner = sessions.session_project(call.store, session_id)
        if owner:
            return owner
    return single_project(call, explicit)


@endpoint(body=True, awaiting=True)
async def add(call: Call) -> Any:
    """POST /observations — save one observation: 201 with the save result.

    Checked and drafted on the event loop (``call.store`` is the reader connection); the
    writer process writes it while the loop serves other requests, else a worker thread does
    on the server's own connection."""
    session_id = call.text("session_id")
    project = save_project(call, session_id)
    draft = save.draft_observation(
        title=call.text("title"),
        content=call.text("content"),
        type=call.text("type"),
        scope=call.text("scope"),
        topic_key=call.text("topic_key"),
        tool_name=call.text("tool_name"),
    )
    writer = getattr(call.request.app.state, "writer", None)  # engram serve's writer process
    written = await writer.save(draft, project=project, session_id=session_id) if writer else None
    if written is None:
        store = call.request.app.state.store
        write = save.draft_writer(draft, project=project, session_id=session_id)
        written = (await anyio.to_thread.run_sync(store.transact, write)).to_dict()
    return reply({**written, "status": "saved"}, 201)


@endpoint(inline=True)
def recent(call: Call) -> Any:
    """GET /observations/recent (and GET /observations) — newest first, ``[]`` when none."""
    sort = call.query("sort")
    if sort is not None and sort.strip() not in SORTS:
        raise bad_request("http.bad_query", "sort supports only created_at:desc")
    project = read_scope(call)
    limit = call.query_int("limit", LIST_DEFAULT) or LIST_DEFAULT
    found = observation.list_recent(
        call.store,
        project=project,
        scope=call.query("scope"),
        limit=min(max(limit, 1), LIST_CEILING),
    )
    return [o.to_dict() for o in found]


@endpoint(inline=True)
def get(call: Call) -> Any:
    """GET /observations/{id} — one live observation (404 when unknown or deleted)."""
    return observation.get_observation(call.store, call.path_id()).to_dict()


@endpoint(body=True, token="when_set")
def update(call: Call) -> Any:
    """PATCH /observations/{id}?expected_project=X — change fields (owner asserted)."""
    obs_id = call.path_id()
    result = observation.update_observation(
        call.store,
        obs_id,
        expected_project=call.query("expected_project"),
        title=call.text("title"),
        content=call.text("content"),
        type=call.text("type"),
        scope=call.text("scope"),
        topic_key=call.text("topic_key"),
        find=call.text("find"),
        replace=call.text("replace"),
        project=call.text("project"),
    )
    return {**result.observation.to_dict(), **result.to_dict()}


@endpoint(token="when_set")
def delete(call: Call) -> Any:
    """DELETE /observations/{id}?expected_project=X[&hard=true] — soft delete by default."""
    result = observation.delete_observation(
        call.store,
        call.path_id(),
        expected_project=call.query("expected_project"),
        hard=call.query_flag("hard"),
    )
    return {**result.to_dict(), "status": "deleted"}


@endpoint()
def pin(call: Call) -> Any:
    """PUT /observations/{id}/pin — ``{id, pinned: true}`` (idempotent, local-only)."""
    result = observation.set_pinned(call.store, call.path_id(), True)
    return {"id": result.id, "pinned": result.pinned}


@endpoint(token="when_set")
def unpin(call: Call) -> Any:
    """DELETE /observations/{id}/pin — ``{id, pinned: false}``."""
    result = observation.set_pinned(call.store, call.path_id(), False)
    return {"id": result.id, "pinned": result.pinned}


@endpoint(body=True)
def suggest_topic_key(call: Call) -> Any:
    """POST /topic-keys/suggest — ``{topic_key}`` from type + title (or content)."""
    key = topic.suggest_topic_key(call.text("type"), call.text("title"), call.text("content"))
    return {"topic_key": key}


@endpoint(body=True)
def capture(call: Call) -> Any:
    """POST /observations/passive — save the structured learnings found in ``content``."""
    content = call.text("content", required=True)
    assert content is not None
    session_id = call.text("session_id")
    project = save_project(call, session_id)
    result = passive.capture_passive(call.store, content, project=project, session_id=session_id)
    return {**result.to_dict(), "project": project, "source": call.text("source") or ""}


ROUTES: list[BaseRoute] = [
    Route("/observations", add, methods=["POST"]),
    Route("/observations", recent, methods=["GET"]),
    Route("/observations/recent", recent, methods=["GET"]),
    Route("/observations/passive", capture, methods=["POST"]),
    Route("/observations/{id}", get, methods=["GET"]),
    Route("/observations/{id}", update, methods=["PATCH"]),
    Route("/observations/{id}", delete, methods=["DELETE"]),
    Route("/observations/{id}/pin", pin, methods=["PUT"]),
    Route("/observations/{id}/pin", unpin, methods=["DELETE"]),
    Route("/topic-keys/suggest", suggest_topic_key, methods=["POST"]),
]
