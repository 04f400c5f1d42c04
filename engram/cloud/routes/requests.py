"""What every cloud route shares: the app's context, bounded JSON bodies, thread offloading.

Routes are small async functions: read the request, call one operation in the thread pool
(psycopg is synchronous), shape the JSON. A :class:`CloudProblem` becomes its envelope.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

from engram.cloud.auth import Principal
from engram.cloud.gate import admit, admit_and_run
from engram.cloud.new_projects import project_name
from engram.cloud.problems import CloudProblem, invalid, too_large
from engram.cloud.settings import CloudSettings
from engram.cloud.store.db import CloudStore, Conn
from engram.cloud.wire import json_object

T = TypeVar("T")


@dataclass(frozen=True)
class CloudContext:
    """The app's shared state: settings and the connection pool."""

    settings: CloudSettings
    store: CloudStore
    # Pushes stored while their body arrives, at most (each holds a pooled connection while
    # the client sends): half the pool. Past that, a push's body is read whole first.
    arriving: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(0))


def context(request: Request) -> CloudContext:
    """The :class:`CloudContext` of the running app."""
    ctx: CloudContext = request.app.state.cloud
    return ctx


async def read_json(request: Request, limit: int) -> dict[str, Any]:
    """The body as a JSON object, refusing more than ``limit`` bytes with 413."""
    return json_object(await read_body(request, limit))


def refuse_declared_over(request: Request, limit: int) -> None:
    """413 at once for a body whose ``Content-Length`` says it holds more than ``limit``."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(limit)


async def read_body(request: Request, limit: int) -> bytearray:
    """The body's bytes, refusing more than ``limit`` with 413."""
    refuse_declared_over(request, limit)
    body = bytearray()
    async for piece in request.stream():
        body.extend(piece)
        if len(body) > limit:
            raise too_large(limit)
    return body


async def offload(func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking (database) call in the thread pool."""
    return await run_in_threadpool(func, *args, **kwargs)


async def admitted(
    request: Request, route: str, *, project: str | None = None, require: Any = None
) -> Principal:
    """The authenticated, authorized caller (see :func:`engram.cloud.gate.admit`)."""
    ctx = context(request)
    header = request.headers.get("authorization")
    return await offload(
        admit, ctx.store, ctx.settings, header, route=route, project=project, require=require
    )


async def admitted_work(
    request: Request, route: str, project: str, work: Callable[[Conn, Principal], T]
) -> T:
    """``work(conn, principal)`` for an admitted caller, in the admission's own transaction
    (one pooled connection, one commit; see :func:`engram.cloud.gate.admit_and_run`)."""
    ctx = context(request)
    header = request.headers.get("authorization")
    return await offload(
        admit_and_run, ctx.store, ctx.settings, header, work, route=route, project=project
    )


def project_param(value: Any) -> str:
    """A request's project, normalized like the local store's (400 ``project_required`` or
    ``invalid_project``)."""
    return project_name(value)


def int_param(request: Request, name: str, default: int) -> int:
    """A non-negative integer query parameter (400 when malformed)."""
    raw = request.query_params.get(name, "")
    if raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()):
        raise invalid("invalid_query", f"{name} must be a non-negative integer (ASCII digits)")
    return int(raw)


def problem_response(request: Request, exc: Exception) -> JSONResponse:
    """Exception handler: a CloudProblem as its envelope."""
    assert isinstance(exc, CloudProblem)
    return JSONResponse(exc.envelope(), status_code=exc.status)
