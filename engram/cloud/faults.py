"""What the cloud answers when something below it fails: the JSON envelope, never plain text.

- The database is down, restarting or out of connections (``psycopg.OperationalError``, a pool
  timeout): ``503 repairable database_unavailable`` with ``Retry-After`` — the client retries.
- Text Postgres cannot store (``psycopg.DataError``): ``400 invalid_request invalid_text``.
- Anything else: ``500 blocked internal_error``; the log has the traceback, the wire never does.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
from psycopg_pool import PoolTimeout
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engram.cloud.problems import CloudProblem

RETRY_AFTER_S = 5
log = logging.getLogger("engram.cloud")


def _reply(problem: CloudProblem, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(problem.envelope(), status_code=problem.status, headers=headers)


async def database_unavailable(request: Request, exc: Exception) -> Response:
    """503 + Retry-After: the database does not answer right now."""
    log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc)
    problem = CloudProblem(
        503,
        "repairable",
        "database_unavailable",
        "the database is not answering right now; retry shortly",
    )
    return _reply(problem, {"Retry-After": str(RETRY_AFTER_S)})


async def invalid_text(request: Request, exc: Exception) -> Response:
    """400: a value Postgres refuses as text (a NUL, invalid encoding)."""
    return _reply(
        CloudProblem(
            400, "invalid_request", "invalid_text", "the request holds text Postgres cannot store"
        )
    )


async def internal_error(request: Request, exc: Exception) -> Response:
    """500 in the envelope (the traceback goes to the log only)."""
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return _reply(CloudProblem(500, "blocked", "internal_error", "internal error"))


FAULT_HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    psycopg.OperationalError: database_unavailable,
    PoolTimeout: database_unavailable,
    psycopg.DataError: invalid_text,
    Exception: internal_error,
}
