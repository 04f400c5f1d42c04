"""The sync transport: ``/sync/push``, ``/sync/pull[/{chunk_id}]``, ``/sync/mutations/*``.

Header-auth only. Pushes honour ``ENGRAM_CLOUD_MAX_PUSH_BYTES`` (413) and pause controls
(409 + a ``cloud_sync_audit_log`` row); pulls are never gated on pause.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from engram.cloud import replication
from engram.cloud.auth import Principal
from engram.cloud.push_arrival import ArrivingPush, NotFramed, framed_project
from engram.cloud.routes.requests import (
    admitted_work,
    context,
    int_param,
    project_param,
    read_json,
    refuse_declared_over,
)
from engram.cloud.store.db import Conn
from engram.cloud.wire import json_object
from engram.sync.cloud.pull_ahead import page_headers


async def push_mutations(request: Request) -> JSONResponse:
    ctx = context(request)
    settings = ctx.settings
    refuse_declared_over(request, settings.max_push_bytes)
    body = ArrivingPush(settings.max_push_bytes, settings.body_stall_s, settings.body_deadline_s)
    receiving = asyncio.ensure_future(body.receive(aiter(request.stream())))
    streaming = False
    try:
        project = await _framed_project(body)
        if project is None:  # another layout: the whole body, parsed, then the checked push
            await body.arrived()
            parsed = json_object(body.whole())
            project = project_param(parsed.get("project"))

            def push(conn: Conn, principal: Principal) -> dict[str, Any]:
                return replication.push_mutations(conn, principal, project, parsed)
        else:  # engram's own client: entries are stored as they arrive
            streaming = not ctx.arriving.locked()
            if streaming:  # a free place: taken at once (acquire does not wait)
                await ctx.arriving.acquire()
            else:  # every streaming place is taken: the body comes in first
                await body.arrived()
            framed = project

            def push(conn: Conn, principal: Principal) -> dict[str, Any]:
                return replication.push_arriving(conn, principal, framed, body)

        return JSONResponse(await admitted_work(request, "mutations_push", project, push))
    finally:
        if streaming:
            ctx.arriving.release()
        await receiving  # a refusal is answered after the body (the client reads it)


async def _framed_project(body: ArrivingPush) -> str | None:
    """The project named by a body in the one-entry-per-line layout, once its first line has
    arrived; None for any other layout."""
    head = await body.head()
    if head is None:
        return None
    try:
        named = framed_project(head)
    except NotFramed:
        return None
    return project_param(named)


async def pull_mutations(request: Request) -> Response:
    project = project_param(request.query_params.get("project"))
    since = int_param(request, "since", 0)
    limit = int_param(request, "limit", 500)

    def pull(conn: Conn, _: Principal) -> replication.PulledAnswer:
        return replication.pull_mutations(conn, project, since, limit)

    page = await admitted_work(request, "mutations_pull", project, pull)
    # The next page named before the body: the client asks for it while it parses this one.
    headers = page_headers(page.next_since, page.has_more)
    return Response(page.body, media_type="application/json", headers=headers)


async def push_chunk(request: Request) -> JSONResponse:
    ctx = context(request)
    body = await read_json(request, ctx.settings.max_push_bytes)
    project = project_param(body.get("project"))

    def push(conn: Conn, principal: Principal) -> dict[str, Any]:
        return replication.push_chunk(conn, principal, project, body)

    return JSONResponse(await admitted_work(request, "push", project, push))


async def pull_manifest(request: Request) -> JSONResponse:
    project = project_param(request.query_params.get("project"))

    def manifest(conn: Conn, _: Principal) -> dict[str, Any]:
        return replication.list_chunks(conn, project)

    return JSONResponse(await admitted_work(request, "pull", project, manifest))


async def pull_chunk(request: Request) -> JSONResponse:
    project = project_param(request.query_params.get("project"))
    chunk_id = request.path_params["chunk_id"]

    def chunk(conn: Conn, _: Principal) -> dict[str, Any]:
        return replication.get_chunk(conn, project, chunk_id)

    return JSONResponse(await admitted_work(request, "pull_chunk", project, chunk))


def routes() -> list[BaseRoute]:
    return [
        Route("/sync/push", push_chunk, methods=["POST"]),
        Route("/sync/pull", pull_manifest, methods=["GET"]),
        Route("/sync/pull/{chunk_id}", pull_chunk, methods=["GET"]),
        Route("/sync/mutations/push", push_mutations, methods=["POST"]),
        Route("/sync/mutations/pull", pull_mutations, methods=["GET"]),
    ]
