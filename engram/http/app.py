"""The ASGI app of ``engram serve``, assembled from route groups.

Each module named in :data:`ROUTE_GROUPS` (under ``engram.http.routes``) exposes
``ROUTES: list[starlette.routing.BaseRoute]``. To add a group, add a module there and its name
to the list. The MCP endpoint (``/mcp``) is mounted on the same app by :mod:`engram.http.mcp`.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute

from engram.http.guard import LocalOnly
from engram.http.token_gate import TokenGate
from engram.nul_guard import NulGuard

if TYPE_CHECKING:
    from engram.store.db import Store

# Route groups, one module each under engram.http.routes.
ROUTE_GROUPS: list[str] = [
    "health",
    "sessions",
    "observations",
    "review",
    "search",
    "prompts",
    "context",
    "backup",
    "diagnostics",
    "projects",
    "sync_status",
    "conflicts",
    "hooks",
]

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[None]]


def group_routes(groups: list[str] | None = None) -> list[BaseRoute]:
    """Every route of the named groups (default :data:`ROUTE_GROUPS`), in order."""
    routes: list[BaseRoute] = []
    for name in groups if groups is not None else ROUTE_GROUPS:
        module = importlib.import_module(f"engram.http.routes.{name}")
        routes.extend(module.ROUTES)
    return routes


def build_app(
    store: Store,
    *,
    reader: Store | None = None,
    mcp: bool = True,
    extra_hosts: frozenset[str] = frozenset(),
    token_everywhere: bool = False,
    after_start: Callable[[], None] | None = None,
) -> Starlette:
    """The app serving ``store``.

    Args:
        store: the open local store; writes and slow reads use it from worker threads.
        reader: a second connection to the same database for quick reads run on the event
            loop (default: ``store`` itself).
        mcp: also serve MCP over streamable HTTP at ``/mcp``.
        extra_hosts: host names accepted besides loopback (a non-loopback bind address).
        token_everywhere: every route but ``GET /health`` needs ENGRAM_HTTP_TOKEN (a bind
            beyond loopback); else only the guarded routes and MCP tools do.
        after_start: run in a worker thread once the app has started (slow set-up that the
            first answers need not wait for, such as the autosync worker).
    """
    from engram.memory.sync_status import set_sync_status_provider

    set_sync_status_provider(_git_sync_status)
    routes = group_routes()
    lifespans: list[Lifespan] = []
    if mcp:
        from engram.http.mcp import mcp_endpoint

        mcp_route, mcp_lifespan = mcp_endpoint()
        routes.append(mcp_route)
        lifespans.append(mcp_lifespan)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for enter in lifespans:
                await stack.enter_async_context(enter(app))
            if after_start is not None:
                group = await stack.enter_async_context(anyio.create_task_group())
                group.start_soon(anyio.to_thread.run_sync, after_start)
            yield

    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(LocalOnly, extra_hosts=extra_hosts),
            Middleware(TokenGate, everywhere=token_everywhere),
            Middleware(NulGuard, refusal=_nul_refusal),
        ],
        exception_handlers={404: _not_found, 405: _not_allowed},
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.reader = reader or store
    return app


def _git_sync_status(store: Store, project: str) -> dict[str, Any]:
    """``/sync/status`` until autosync attached its provider (engram.sync loads on the first
    such request): the same answer as the attached one, without a live worker's state — the
    cloud reasons (``blocked_unenrolled``, the last recorded outcome) when a cloud is
    configured, else the git transport's state."""
    from engram.sync.cloud.status_provider import cloud_status

    return cloud_status(store, project, store.path.parent, None)


def _nul_refusal(message: str) -> dict[str, object]:
    return {"error": message, "code": "http.nul_byte"}


async def _not_found(request: Request, exc: Exception) -> Response:
    return JSONResponse(
        {"error": f"no route {request.method} {request.url.path}", "code": "http.no_route"},
        status_code=404,
    )


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return JSONResponse(
        {
            "error": f"{request.method} is not allowed on {request.url.path}",
            "code": "http.method_not_allowed",
        },
        status_code=405,
    )
