"""The sync transport: ``/sync/push``, ``/sync/pull[/{chunk_id}]``, ``/sync/mutations/*``.

Header-auth only. Pushes honour ``ENGRAM_CLOUD_MAX_PUSH_BYTES`` (413) and pause controls
(409 + a ``cloud_sync_audit_log`` row); pulls are never gated on pause.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from engram.cloud import replication
from engram.cloud.routes.requests import (
    admitted,
    context,
    int_param,
    offload,
    project_param,
    read_json,
)


async def push_mutations(request: Request) -> JSONResponse:
    ctx = context(request)
    body = await read_json(request, ctx.settings.max_push_bytes)
    project = project_param(body.get("project"))
    principal = await admitted(request, "mutations_push", project=project)
    result = await offload(replication.push_mutations, ctx.store, principal, project, body)
    return JSONResponse(result)


async def pull_mutations(request: Request) -> Response:
    ctx = context(request)
    project = project_param(request.query_params.get("project"))
    since = int_param(request, "since", 0)
    limit = int_param(request, "limit", 500)
    await admitted(request, "mutations_pull", project=project)
    page = await offload(replication.pull_mutations, ctx.store, project, since, limit)
    return Response(page, media_type="application/json")


async def push_chunk(request: Request) -> JSONResponse:
    ctx = context(request)
    body = await read_json(request, ctx.settings.max_push_bytes)
    project = project_param(body.get("project"))
    principal = await admitted(request, "push", project=project)
    return JSONResponse(await offload(replication.push_chunk, ctx.store, principal, project, body))


async def pull_manifest(request: Request) -> JSONResponse:
    ctx = context(request)
    project = project_param(request.query_params.get("project"))
    await admitted(request, "pull", project=project)
    return JSONResponse(await offload(replication.list_chunks, ctx.store, project))


async def pull_chunk(request: Request) -> JSONResponse:
    ctx = context(request)
    project = project_param(request.query_params.get("project"))
    await admitted(request, "pull_chunk", project=project)
    chunk_id = request.path_params["chunk_id"]
    return JSONResponse(await offload(replication.get_chunk, ctx.store, project, chunk_id))


def routes() -> list[BaseRoute]:
    return [
        Route("/sync/push", push_chunk, methods=["POST"]),
        Route("/sync/pull", pull_manifest, methods=["GET"]),
        Route("/sync/pull/{chunk_id}", pull_chunk, methods=["GET"]),
        Route("/sync/mutations/push", push_mutations, methods=["POST"]),
        Route("/sync/mutations/pull", pull_mutations, methods=["GET"]),
    ]
