"""Sessions: register (with ownership and resume), end, list, get, delete; and the runtime
context routes the Go plugins call (resolve or end the live identity of a resumed session)."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.http.exchange import Call, endpoint, reply
from engram.http.problems import HttpProblem
from engram.http.selection import read_scope, single_project
from engram.memory import runtime_scope, runtime_sessions, sessions

RECENT_DEFAULT = 5
RECENT_CEILING = 100


@endpoint(body=True)
def register(call: Call) -> Any:
    """POST /sessions — create or renew a runtime session: 201 ``{id, status: "created"}``."""
    session_id = call.text("id", required=True)
    assert session_id is not None
    project = single_project(call, call.text("project"))
    result = runtime_sessions.register_session(
        call.store,
        session_id,
        project=project,
        directory=call.text("directory") or "",
        ownership_mode=call.text("ownership_mode"),
        resume=call.flag("resume"),
    )
    return reply(result.to_dict(), 201)


@endpoint(body=True)
def end(call: Call) -> Any:
    """POST /sessions/{id}/end — end a session with an optional summary."""
    summary = call.text("summary") if call.body is not None else None
    result = sessions.end_session(call.store, call.path_text("id"), summary=summary)
    # "completed" is the Go tool's word, which its plugins and scripts know.
    return {"id": result.session.id, "status": "completed", "session": result.session.to_dict()}


@endpoint(inline=True)
def recent(call: Call) -> Any:
    """GET /sessions/recent — newest sessions first (``[]`` when there are none)."""
    project = read_scope(call)
    limit = call.query_int("limit", RECENT_DEFAULT) or RECENT_DEFAULT
    found = sessions.recent_sessions(
        call.store, project=project, limit=min(max(limit, 1), RECENT_CEILING)
    )
    return [s.to_dict() for s in found]


@endpoint(inline=True)
def get(call: Call) -> Any:
    """GET /sessions/{id} — one session (404 when unknown)."""
    session_id = call.path_text("id")
    session = sessions.get_session(call.store, session_id)
    if session is None:
        raise HttpProblem(404, "memory.unknown_session", f"session {session_id!r} does not exist")
    lease = runtime_sessions.session_lease(call.store, session_id)
    return {**session.to_dict(), "runtime_lease_expires_at": lease}


@endpoint(token="when_set")
def delete(call: Call) -> Any:
    """DELETE /sessions/{id} — 200 deleted, 404 unknown, 409 while it holds observations."""
    from engram.memory import removal

    removed = removal.delete_session(call.store, call.path_text("id"))
    return {"id": removed.id, "status": "deleted"}


RUNTIME_FIELDS = frozenset({"id", "project", "directory", "ownership_mode", "summary"})


def _runtime_context(call: Call) -> tuple[str, str, str, str]:
    fields = call.fields()
    unknown = sorted(set(fields) - RUNTIME_FIELDS)
    if unknown:
        raise HttpProblem(
            400,
            "http.unknown_field",
            f"unknown field {unknown[0]!r}",
            allowed=sorted(RUNTIME_FIELDS),
        )
    return (
        call.text("id", required=True) or "",
        call.text("project", required=True) or "",
        call.text("directory", required=True) or "",
        call.text("ownership_mode") or "",
    )


@endpoint(body=True)
def resolve_runtime(call: Call) -> Any:
    """POST /runtime-sessions/resolve — the live identity of a runtime context (never creates)."""
    sid, project, directory, mode = _runtime_context(call)
    found = runtime_scope.resolve_runtime_session(
        call.store, sid, project=project, directory=directory, ownership_mode=mode
    )
    return found.to_dict()


@endpoint(body=True)
def end_runtime(call: Call) -> Any:
    """POST /runtime-sessions/end — end the live identity of a runtime context."""
    sid, project, directory, mode = _runtime_context(call)
    ended = runtime_scope.end_runtime_session(
        call.store,
        sid,
        project=project,
        directory=directory,
        ownership_mode=mode,
        summary=call.text("summary"),
    )
    return ended.to_dict()


ROUTES: list[BaseRoute] = [
    Route("/runtime-sessions/resolve", resolve_runtime, methods=["POST"]),
    Route("/runtime-sessions/end", end_runtime, methods=["POST"]),
    Route("/sessions", register, methods=["POST"]),
    Route("/sessions/recent", recent, methods=["GET"]),
    Route("/sessions/{id}/end", end, methods=["POST"]),
    Route("/sessions/{id}", get, methods=["GET"]),
    Route("/sessions/{id}", delete, methods=["DELETE"]),
]
