"""``POST /sync/session-authorities`` and ``POST /sync/prompt-pair-claims`` (bearer only)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from engram.cloud import authority
from engram.cloud.gate import bearer_required
from engram.cloud.routes.requests import admitted, context, offload, project_param, read_json


async def register_session(request: Request) -> JSONResponse:
    ctx = context(request)
    body = await read_json(request, ctx.settings.max_push_bytes)
    project = project_param(body.get("project"))
    principal = await admitted(
        request, "session_authorities", project=project, require=bearer_required
    )
    status, result = await offload(authority.register_session, ctx.store, principal, body)
    return JSONResponse(result, status_code=status)


async def claim_prompt_pair(request: Request) -> JSONResponse:
    ctx = context(request)
    body = await read_json(request, ctx.settings.max_push_bytes)
    principal = await admitted(request, "prompt_pair_claims", require=bearer_required)
    result = await offload(authority.claim_prompt_pair, ctx.store, ctx.settings, principal, body)
    return JSONResponse(result)


def routes() -> list[BaseRoute]:
    return [
        Route("/sync/session-authorities", register_session, methods=["POST"]),
        Route("/sync/prompt-pair-claims", claim_prompt_pair, methods=["POST"]),
    ]
