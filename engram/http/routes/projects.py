"""Project detection (``GET /project/current``) and ownership rescue over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.routing import BaseRoute, Route

from engram.errors import EngramError
from engram.http.exchange import Call, endpoint
from engram.http.problems import bad_request
from engram.memory.project import known_project_names, resolve_project

# The seed's limit for the rescue body.
RESCUE_BODY_LIMIT = 8 * 1024


@endpoint()
def current(call: Call) -> Any:
    """GET /project/current?cwd=PATH — always a success envelope, even when ambiguous."""
    raw = call.query("cwd")
    cwd = Path(raw).expanduser() if raw and raw.strip() else Path.cwd()
    known = known_project_names(call.store)
    try:
        detection = resolve_project(None, cwd)
    except EngramError as exc:
        return {
            "project": "",
            "project_source": "error",
            "project_path": "",
            "cwd": str(cwd),
            "available_projects": known,
            "error_hint": exc.one_line(),
        }
    data = detection.to_dict()
    body: dict[str, Any] = {
        "project": detection.project,
        "project_source": detection.source,
        "project_path": detection.path,
        "cwd": detection.cwd or str(cwd),
        "available_projects": list(detection.available_projects) or known,
    }
    for optional in ("warning", "error_hint"):
        if optional in data:
            body[optional] = data[optional]
    return body


def _ids(call: Call, name: str) -> list[int]:
    value = call.fields().get(name)
    if value is None:
        return []
    if not isinstance(value, list) or any(
        isinstance(v, bool) or not isinstance(v, int) or v <= 0 for v in value
    ):
        raise bad_request("http.bad_field", f"{name} must be a list of positive integers")
    return value


@endpoint(body=True, limit=RESCUE_BODY_LIMIT, token="required")
def rescue(call: Call) -> Any:
    """POST /projects/rescue-ownership (alias /projects/migrate) — assign unowned rows."""
    target = call.text("target_project", required=True)
    assert target is not None
    if call.fields().get("confirmed") is not True:
        raise bad_request("http.not_confirmed", "confirmed must be true to rescue ownership")
    sessions = call.fields().get("session_ids") or []
    if not isinstance(sessions, list) or not all(isinstance(s, str) for s in sessions):
        raise bad_request("http.bad_field", "session_ids must be a list of strings")
    from engram.memory.rescue import rescue_ownership

    report = rescue_ownership(
        call.store,
        target,
        session_ids=sessions,
        observation_ids=_ids(call, "observation_ids"),
        prompt_ids=_ids(call, "prompt_ids"),
    )
    return report.to_dict()


ROUTES: list[BaseRoute] = [
    Route("/project/current", current, methods=["GET"]),
    Route("/projects/rescue-ownership", rescue, methods=["POST"]),
    Route("/projects/migrate", rescue, methods=["POST"]),
]
