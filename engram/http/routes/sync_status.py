"""``GET /sync/status``: the local node's sync state for one resolved project."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.http.exchange import Call, endpoint
from engram.http.problems import bad_request
from engram.http.selection import read_scope
from engram.memory.sync_status import sync_status


@endpoint()
def status(call: Call) -> Any:
    """GET /sync/status?project=X — one project's status; ``all_projects=true`` is a 400."""
    if call.query_flag("all_projects"):
        raise bad_request(
            "unsupported_project_scope",
            "sync status covers one project; all_projects=true is not supported",
        )
    project = read_scope(call)
    assert project is not None
    return sync_status(call.store, project)


ROUTES: list[BaseRoute] = [Route("/sync/status", status, methods=["GET"])]
