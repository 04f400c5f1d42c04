"""The cloud ASGI app: Starlette, route groups registered from a list, one pool per process.

``create_app(settings, store)`` builds the app around an open :class:`CloudStore`;
:data:`ROUTE_GROUPS` names the modules whose ``routes()`` it mounts, in order — the dashboard
adds its module here. ``serve(settings)`` opens the store, repairs chunk materialization for the
allowlisted projects, and runs uvicorn.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.routing import BaseRoute

from engram.cloud.problems import CloudProblem
from engram.cloud.routes.requests import CloudContext, problem_response
from engram.cloud.settings import CloudSettings
from engram.cloud.store.db import CloudStore

ROUTE_GROUPS: list[str] = [
    "engram.cloud.routes.health",
    "engram.cloud.routes.sync",
    "engram.cloud.routes.authority",
    "engram.cloud.routes.admin",
    "engram.cloud.dashboard.routes",
]

log = logging.getLogger("engram.cloud")


def collect_routes(groups: Sequence[str]) -> list[BaseRoute]:
    """Every route of the named modules, in order."""
    found: list[BaseRoute] = []
    for name in groups:
        found.extend(importlib.import_module(name).routes())
    return found


def create_app(
    settings: CloudSettings, store: CloudStore, groups: Sequence[str] | None = None
) -> Starlette:
    """The app over an open store (the caller closes the store)."""
    app = Starlette(
        routes=collect_routes(ROUTE_GROUPS if groups is None else groups),
        exception_handlers={CloudProblem: problem_response},
    )
    app.state.cloud = CloudContext(settings=settings, store=store)
    return app


def serve(settings: CloudSettings) -> None:
    """Run ``engram cloud serve`` until interrupted."""
    import uvicorn

    from engram.cloud.materialize import materialize_project

    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="[cloud] %(message)s")
    store = CloudStore.open(settings.database_url)
    try:
        if not settings.allows_every_project:
            for project in settings.allowed_projects:
                report = materialize_project(store, project, apply=True)
                if report.chunks:
                    log.info("materialized %d chunk(s) for %s", report.chunks, project)
        mode = "insecure (no auth)" if settings.insecure else "authenticated"
        log.info("engram cloud on http://%s:%d (%s)", settings.host, settings.port, mode)
        uvicorn.run(
            create_app(settings, store),
            host=settings.host,
            port=settings.port,
            log_level="warning",
            access_log=False,
        )
    finally:
        store.close()
