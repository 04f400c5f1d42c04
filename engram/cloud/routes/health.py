"""``GET /health``."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route


async def health(request: Request) -> JSONResponse:
    """Cloud service health: ``{"status": "ok", "service": "engram-cloud"}``."""
    return JSONResponse({"status": "ok", "service": "engram-cloud"})


def routes() -> list[BaseRoute]:
    return [Route("/health", health, methods=["GET"])]
