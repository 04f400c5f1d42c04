"""``GET /health``: the local store answers live aggregate queries."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute, Route

from engram.errors import EngramError
from engram.http.exchange import Call, endpoint, reply
from engram.memory.health import check_health


@endpoint(inline=True)
def health(call: Call) -> Any:
    """200 ``{status, service, version, instance_id}``, or 500 when the store fails."""
    try:
        return check_health(call.store).to_dict()
    except EngramError:
        return reply({"error": "health check failed"}, 500)


ROUTES: list[BaseRoute] = [Route("/health", health, methods=["GET"])]
