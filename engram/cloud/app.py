"""The cloud ASGI app: Starlette, route groups registered from a list, one pool per process.

``create_app(settings, store)`` builds the app around an open :class:`CloudStore`;
:data:`ROUTE_GROUPS` names the modules whose ``routes()`` it mounts, in order — the dashboard
adds its module here. ``serve(settings)`` opens the store, repairs chunk materialization for the
allowlisted projects, and runs uvicorn.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import importlib
import logging
import socket
import sys
from collections.abc import Sequence

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from engram.browser_guard import BrowserGuard, is_loopback
from engram.cloud.faults import FAULT_HANDLERS
from engram.cloud.problems import CloudProblem
from engram.cloud.routes.requests import CloudContext, problem_response
from engram.cloud.settings import CloudSettings
from engram.cloud.store.db import CloudStore
from engram.errors import EngramError
from engram.nul_guard import NulGuard

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
        middleware=[*browser_guard(settings), Middleware(NulGuard, refusal=_nul_refusal)],
        exception_handlers={CloudProblem: problem_response, **FAULT_HANDLERS},
    )
    arriving = asyncio.Semaphore(max(1, settings.pool_size // 2))
    app.state.cloud = CloudContext(settings=settings, store=store, arriving=arriving)
    return app


def browser_guard(settings: CloudSettings) -> list[Middleware]:
    """The Host/Origin check ``engram serve`` uses, for a loopback bind or insecure mode.

    Besides loopback it accepts ``ENGRAM_CLOUD_ALLOWED_HOSTS`` (a reverse proxy's public name)
    and a specific non-loopback bind address.
    """
    if not settings.guards_browsers:
        return []
    extra = set(settings.allowed_hosts)
    if not is_loopback(settings.host) and settings.host not in ("0.0.0.0", "::"):
        extra.add(settings.host.lower())
    return [Middleware(BrowserGuard, refusal=_refusal, extra_hosts=frozenset(extra))]


def _refusal(reason: str, message: str) -> dict[str, object]:
    return CloudProblem(403, "policy", reason, message).envelope()


def _bad_request(message: str) -> dict[str, object]:
    return CloudProblem(400, "invalid_request", "bad_request", message).envelope()


def _nul_refusal(message: str) -> dict[str, object]:
    return CloudProblem(400, "invalid_request", "nul_byte", message).envelope()


def _listen(settings: CloudSettings) -> socket.socket:
    """The listening socket, bound before anything is printed: a busy port is one line."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.host, settings.port))
    except OSError as exc:
        sock.close()
        busy = exc.errno == errno.EADDRINUSE
        raise EngramError(
            "cloud.port_busy" if busy else "cloud.cannot_listen",
            f"cannot listen on {settings.host}:{settings.port}: "
            + ("the port is already in use" if busy else (exc.strerror or str(exc)).lower()),
            "stop what listens there, or set ENGRAM_PORT to a free port",
        ) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


# The cyclic collector's thresholds while serving: a push's parsed entries (thousands of
# dicts, alive for the request) made the default (700, 10, 10) collect young objects every
# few hundred entries and the whole heap several times a 100k push; 11% of the server's CPU.
# A batch of 4,000 entries (what engram sync --cloud sends) holds ~24,000 containers until
# its answer: at 10,000 each batch set off two or three young collections that scanned it so
# far (46 in two 100k pushes, 0.16 s of 3.5 s of server CPU); at 50,000 none, and a batch's
# objects are freed before any collection looks at them.
GC_THRESHOLDS = (50_000, 10, 10)


def _collect_garbage_for_pushes() -> None:
    """Collect cycles less often, and never scan the objects the server holds from its start
    (modules, the app, its templates): they are moved out of the collector's reach."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def serve(settings: CloudSettings, *, banner: Sequence[str] = ()) -> None:
    """Run ``engram cloud serve`` until interrupted; ``banner`` lines follow the address."""
    import uvicorn

    from engram.cloud.materialize import materialize_project
    from engram.slow_clients import guarded_protocol, limits_from_env

    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="[cloud] %(message)s")
    sock = _listen(settings)
    store = CloudStore.open(settings.database_url, max_size=settings.pool_size)
    try:
        if not settings.allows_every_project:
            for project in settings.allowed_projects:
                report = materialize_project(store, project, apply=True)
                if report.chunks:
                    log.info("materialized %d chunk(s) for %s", report.chunks, project)
        mode = "insecure (no auth)" if settings.insecure else "authenticated"
        log.info("engram cloud on http://%s:%d (%s)", settings.host, settings.port, mode)
        for line in banner:
            log.info("%s", line)
        config = uvicorn.Config(
            create_app(settings, store),
            http=guarded_protocol(limits_from_env(), bad_request=_bad_request),
            log_level="warning",
            access_log=False,
        )
        _collect_garbage_for_pushes()
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
        store.close()
