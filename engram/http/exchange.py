"""One request, one memory call: parse and validate, run the operation, shape the JSON.

A route is a plain function ``(call: Call) -> payload`` wrapped by :func:`endpoint`. The wrapper
checks the bearer token when the route asks for it, reads the body under its size limit, parses
JSON, runs the function in a worker thread (SQLite calls block) and turns an
:class:`~engram.errors.EngramError` or :class:`~engram.http.problems.HttpProblem` into a JSON
error. A route returns a JSON-ready payload (answered 200) or a ready ``Response``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from engram.errors import EngramError
from engram.http import guard
from engram.http.problems import HttpProblem, bad_request, from_engram_error
from engram.nul_guard import holds_nul

if TYPE_CHECKING:
    from engram.store.db import Store

logger = logging.getLogger("engram.http")

# Request bodies above this are refused with 413 before they are parsed.
DEFAULT_BODY_LIMIT = 1024 * 1024
TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"", "0", "false", "no", "off"})

Route = Callable[["Call"], Any]
Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class Call:
    """What a route function gets: the request, the store and the parsed JSON body."""

    request: Request
    store: Store
    body: Any = None

    # -- path and query -------------------------------------------------------------------
    def path_text(self, name: str) -> str:
        """A path parameter as text."""
        return str(self.request.path_params[name])

    def path_id(self, name: str = "id") -> int:
        """A positive integer path parameter (400 ``http.bad_id`` otherwise)."""
        raw = self.path_text(name)
        if not (raw.isascii() and raw.isdigit()) or int(raw) <= 0:  # "١٢" is no id
            raise bad_request("http.bad_id", f"{name} must be a positive integer, got {raw!r}")
        return int(raw)

    def query(self, name: str) -> str | None:
        """A query parameter, or None when absent."""
        return self.request.query_params.get(name)

    def query_int(self, name: str, default: int | None = None) -> int | None:
        """An integer query parameter (400 ``http.bad_query`` for anything else)."""
        raw = self.query(name)
        if raw is None or raw.strip() == "":
            return default
        text = raw.strip()
        digits = text[1:] if text.startswith("-") else text
        if not (
            digits.isascii() and digits.isdigit()
        ):  # ASCII digits only: no "1_0", no other scripts
            raise bad_request(
                "http.bad_query", f"query parameter {name} must be an integer, got {raw!r}"
            )
        return int(text)

    def query_flag(self, name: str) -> bool:
        """A boolean query parameter: true/1/yes/on or false/0/no/off (400 otherwise)."""
        raw = self.query(name)
        if raw is None:
            return False
        word = raw.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise bad_request("http.bad_query", f"query parameter {name} must be true or false")

    # -- JSON body ------------------------------------------------------------------------
    def fields(self) -> dict[str, Any]:
        """The body as a JSON object (400 ``http.bad_body`` for any other JSON value)."""
        if not isinstance(self.body, dict):
            raise bad_request("http.bad_body", "the request body must be a JSON object")
        return self.body

    def text(self, name: str, *, required: bool = False) -> str | None:
        """A string field of the body (None when absent or null)."""
        value = self.fields().get(name)
        if value is None:
            if required:
                raise bad_request("http.missing_field", f"field {name!r} is required")
            return None
        if not isinstance(value, str):
            raise bad_request("http.bad_field", f"field {name!r} must be a string")
        if required and not value.strip():
            raise bad_request("http.missing_field", f"field {name!r} must not be blank")
        return value

    def flag(self, name: str) -> bool:
        """A boolean field of the body (absent or null is False)."""
        value = self.fields().get(name)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise bad_request("http.bad_field", f"field {name!r} must be true or false")
        return value

    def integer(self, name: str) -> int | None:
        """An integer field of the body (booleans are not integers)."""
        value = self.fields().get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad_request("http.bad_field", f"field {name!r} must be an integer")
        return value


def endpoint(
    *,
    body: bool = False,
    limit: int = DEFAULT_BODY_LIMIT,
    token: guard.TokenRule = "none",
    parse: bool = True,
    inline: bool = False,
    awaiting: bool = False,
) -> Callable[[Route], Handler]:
    """Wrap a route function into a Starlette endpoint.

    Args:
        body: read the request body.
        limit: the body size limit in bytes (413 above it).
        token: ``none``, ``when_set`` (guarded when ENGRAM_HTTP_TOKEN is set) or ``required``.
        parse: parse the body as JSON (else ``call.body`` is the raw text).
        inline: a quick read-only route: run it on the event loop with the app's own reader
            connection (WAL readers never wait for a writer) instead of handing it to a worker
            thread — the hand-off costs more than a search on a busy machine.
        awaiting: the route is a coroutine function, awaited on the event loop with the app's
            reader connection as ``call.store`` (what it writes, it hands to a thread or to
            the writer process itself).
    """

    def wrap(route: Route) -> Handler:
        async def handle(request: Request) -> Response:
            try:
                guard.check_token(request, token)
                payload = await _read_body(request, limit, parse) if body else None
                if inline or awaiting:
                    result = route(Call(request, request.app.state.reader, payload))
                    if awaiting:
                        result = await result
                else:
                    call = Call(request, request.app.state.store, payload)
                    result = await anyio.to_thread.run_sync(route, call)
            except HttpProblem as problem:
                return JSONResponse(problem.body, status_code=problem.status)
            except EngramError as exc:
                mapped = from_engram_error(exc)
                return JSONResponse(mapped.body, status_code=mapped.status)
            except UnicodeEncodeError:  # a JSON "\udcff" escape: text SQLite cannot store
                bad_text = bad_request(
                    "http.bad_text",
                    "a field holds a lone surrogate (not valid Unicode text); nothing was changed",
                    remedy="send valid UTF-8 text",
                )
                return JSONResponse(bad_text.body, status_code=bad_text.status)
            except Exception:  # never a traceback on the wire; the log has it
                logger.exception("%s %s failed", request.method, request.url.path)
                return JSONResponse(
                    {"error": "internal error", "code": "http.internal"}, status_code=500
                )
            return result if isinstance(result, Response) else JSONResponse(result)

        handle.__name__ = route.__name__
        handle.__doc__ = route.__doc__
        return handle

    return wrap


def reply(payload: Any, status: int = 200) -> JSONResponse:
    """A JSON response with a status other than 200."""
    return JSONResponse(payload, status_code=status)


async def _read_body(request: Request, limit: int, parse: bool) -> Any:
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _too_large(limit)
        chunks.append(chunk)
    raw = b"".join(chunks)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise bad_request("http.bad_json", "the request body is not UTF-8 text") from None
    if not parse:
        return text
    if not text.strip():
        return None  # routes that need fields say so (``Call.fields``)
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError) as exc:  # ValueError: also a number of 4,300+ digits
        message = getattr(exc, "msg", None) or (
            "nested too deeply" if isinstance(exc, RecursionError) else "a number is too long"
        )
        raise bad_request(
            "http.bad_json", f"the request body is not valid JSON: {message}"
        ) from None
    if holds_nul(parsed):
        raise bad_request("http.nul_byte", "the request body holds a NUL character")
    return parsed


def _too_large(limit: int) -> HttpProblem:
    return HttpProblem(
        413, "http.body_too_large", f"the request body is larger than {limit} bytes", limit=limit
    )
