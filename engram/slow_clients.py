"""Slow clients cannot starve ``engram serve`` or ``engram cloud serve``: read deadlines and a
connection cap, shared by both servers.

uvicorn's HTTP/1.1 protocols wait forever for a request's headers and body, so a client
that connects and sends nothing — or one byte now and then (slowloris) — holds a socket for
good, and enough of them leave no room for ``/health``. :func:`guarded_protocol` returns a
protocol class — over uvicorn's httptools parser (C, ~0.46 M fewer instructions per request
than h11 for a save, callgrind; docs/performance.md), or h11 where httptools is not installed — that:

- closes a connection whose request headers are not complete within ``header_timeout_s`` of
  its start (a fresh connection, or the end of the previous response on a kept-alive one);
- closes one whose body sends nothing for ``body_timeout_s`` (or takes longer than
  :data:`BODY_TOTAL_FACTOR` times that in all);
- answers a request the parser refuses (a NUL in a header) with the JSON envelope, not text;
- refuses a request line and headers above :data:`MAX_HEAD_BYTES` (h11's bound) as they come;
- when ``max_connections`` are open, makes room for a new connection by closing the oldest one
  still waiting for its request headers; if every connection is busy in the app (an open MCP
  stream, a slow export), the new one is closed instead.

A request being answered (or an MCP stream being served) has no deadline. The limits come from
``ENGRAM_SERVE_HEADER_TIMEOUT``, ``ENGRAM_SERVE_BODY_TIMEOUT`` and
``ENGRAM_SERVE_MAX_CONNECTIONS`` (:func:`limits_from_env`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

BODY_TOTAL_FACTOR = 4
# The request line and headers of one request, at most (h11's own bound, kept over httptools).
MAX_HEAD_BYTES = 16 * 1024
Phase = Literal["headers", "body", "app"]


@dataclass(frozen=True)
class SlowClientLimits:
    """The read deadlines (seconds) and the cap on open connections."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    max_connections: int = 256


def limits_from_env(env: Mapping[str, str] | None = None) -> SlowClientLimits:
    """The limits, with ``ENGRAM_SERVE_*`` overrides; a malformed value keeps the default."""
    env = os.environ if env is None else env
    default = SlowClientLimits()

    def number(name: str, fallback: float) -> float:
        try:
            value = float(env.get(name, "") or fallback)
        except ValueError:
            return fallback
        return value if 0 < value <= 3600 else fallback

    return SlowClientLimits(
        header_timeout_s=number("ENGRAM_SERVE_HEADER_TIMEOUT", default.header_timeout_s),
        body_timeout_s=number("ENGRAM_SERVE_BODY_TIMEOUT", default.body_timeout_s),
        max_connections=int(number("ENGRAM_SERVE_MAX_CONNECTIONS", default.max_connections)),
    )


# (message) -> the JSON body answering a request the parser refuses, in the app's envelope.
BadRequest = Callable[[str], dict[str, object]]


def _local_bad_request(message: str) -> dict[str, object]:
    return {"error": message, "code": "http.bad_request"}


def guarded_protocol(
    limits: SlowClientLimits, bad_request: BadRequest = _local_bad_request
) -> type[asyncio.Protocol]:
    """A protocol class enforcing ``limits`` (pass it as uvicorn's ``http=``); a request the
    parser refuses is answered with ``bad_request``'s JSON body."""
    attributes = {"limits": limits, "bad_request": staticmethod(bad_request)}
    try:
        import httptools  # noqa: F401  (uvicorn's C parser; a dependency, but optional there)
    except ImportError:
        return type("SlowClientGuard", (_H11Guard,), attributes)
    return type("SlowClientGuard", (_httptools_guard(),), attributes)


class _Deadlines:
    """The deadlines and the connection cap, over either uvicorn protocol (a mixin: the
    protocol class supplies the transport, the loop and the connection set)."""

    limits = SlowClientLimits()
    bad_request: BadRequest = staticmethod(_local_bad_request)
    _phase: Phase = "headers"
    _phase_since = 0.0
    _last_bytes = 0.0
    _timer: asyncio.TimerHandle | None = None
    if TYPE_CHECKING:
        transport: asyncio.Transport
        loop: asyncio.AbstractEventLoop
        connections: set[Any]

        def _current(self) -> Phase: ...

    def _start(self) -> None:
        self._enter("headers")
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _refusal(self, msg: str) -> bytes:
        """A whole 400 answer: the JSON envelope, then the connection closes."""
        body = json.dumps(self.bad_request(f"refused: {msg}")).encode()
        return (
            b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
        )

    # -- phases and deadlines ----------------------------------------------------------------
    def _follow(self) -> None:
        phase = self._current()
        if phase != self._phase:
            self._enter(phase)

    def _enter(self, phase: Phase) -> None:
        self._phase = phase
        self._phase_since = self._last_bytes = time.monotonic()
        self._arm()

    def _deadline(self) -> float | None:
        if self._phase == "headers":
            return self._phase_since + self.limits.header_timeout_s
        if self._phase == "body":
            idle = self._last_bytes + self.limits.body_timeout_s
            return min(idle, self._phase_since + self.limits.body_timeout_s * BODY_TOTAL_FACTOR)
        return None

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self._deadline()
        if deadline is not None:
            delay = max(deadline - time.monotonic(), 0.0)
            self._timer = self.loop.call_later(delay, self._check)

    def _check(self) -> None:
        self._timer = None
        self._follow()
        deadline = self._deadline()
        if deadline is None or self.transport.is_closing():
            return
        if time.monotonic() >= deadline:
            self.transport.close()
        else:
            self._arm()

    def _make_room(self) -> None:
        waiting = [
            p
            for p in self.connections
            if isinstance(p, _Deadlines)
            and p is not self
            and p._phase == "headers"
            and not p.transport.is_closing()
        ]
        if waiting:
            min(waiting, key=lambda p: p._phase_since).transport.close()
        else:
            self.transport.close()


class _H11Guard(_Deadlines, H11Protocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start()

    def data_received(self, data: bytes) -> None:
        self._last_bytes = time.monotonic()
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse (a NUL in a header, a broken request line)."""
        body = json.dumps(self.bad_request(f"refused: {msg}")).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(body)),
            (b"connection", b"close"),
        ]
        with contextlib.suppress(h11.LocalProtocolError):  # a response had started: close
            self.transport.write(
                self.conn.send(h11.Response(status_code=400, headers=headers)) or b""
            )
            self.transport.write(self.conn.send(h11.Data(data=body)) or b"")
            self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def _current(self) -> Phase:
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            return "body"
        if state is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
            return "headers"
        return "app"


@functools.cache
def _httptools_guard() -> type[asyncio.Protocol]:
    """The guard over uvicorn's httptools protocol (built on first use: httptools may be
    missing, and then h11 serves)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    class _HttpToolsGuard(_Deadlines, HttpToolsProtocol):
        # Where the parser is in the current request: idle, its headers, its body, read.
        _parsing = "idle"
        _head_bytes = 0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._start()

        def data_received(self, data: bytes) -> None:
            self._last_bytes = time.monotonic()
            super().data_received(data)
            if self.parser is not None:  # None: the connection was lost meanwhile
                self._follow()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._parsing = "headers"
            self._head_bytes = 0

        def on_url(self, url: bytes) -> None:
            self._count_head(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count_head(len(name) + len(value))
            super().on_header(name, value)

        def _count_head(self, size: int) -> None:
            # h11 refuses a request line + headers above 16 KiB; httptools has no such bound,
            # and a local client could otherwise grow them for the whole header deadline.
            self._head_bytes += size
            if self._head_bytes > MAX_HEAD_BYTES:
                raise ValueError("request headers too large")  # the parser answers 400

        def on_headers_complete(self) -> None:
            super().on_headers_complete()
            self._parsing = "body"

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._parsing = "read"

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def send_400_response(self, msg: str) -> None:
            """A request httptools refuses (a NUL in a header, a broken request line)."""
            if self.cycle is None or self.cycle.response_complete:  # else: just close
                self.transport.write(self._refusal(msg))
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop()
            super().connection_lost(exc)

        def _current(self) -> Phase:
            if self._parsing == "body":
                return "body"
            if self.cycle is not None and not self.cycle.response_complete:
                return "app"
            return "headers"

    return _HttpToolsGuard
