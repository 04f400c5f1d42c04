"""Slow clients cannot starve ``engram serve`` or ``engram cloud serve``: read deadlines and a
connection cap, shared by both servers.

uvicorn's HTTP/1.1 protocol (h11) waits forever for a request's headers and body, so a client
that connects and sends nothing — or one byte now and then (slowloris) — holds a socket for
good, and enough of them leave no room for ``/health``. :func:`guarded_protocol` returns an
h11 protocol class that:

- closes a connection whose request headers are not complete within ``header_timeout_s`` of
  its start (a fresh connection, or the end of the previous response on a kept-alive one);
- closes one whose body sends nothing for ``body_timeout_s`` (or takes longer than
  :data:`BODY_TOTAL_FACTOR` times that in all);
- answers a request h11 cannot parse (a NUL in a header) with the JSON envelope, not text;
- when ``max_connections`` are open, makes room for a new connection by closing the oldest one
  still waiting for its request headers; if every connection is busy in the app (an open MCP
  stream, a slow export), the new one is closed instead.

A request being answered (or an MCP stream being served) has no deadline. The limits come from
``ENGRAM_SERVE_HEADER_TIMEOUT``, ``ENGRAM_SERVE_BODY_TIMEOUT`` and
``ENGRAM_SERVE_MAX_CONNECTIONS`` (:func:`limits_from_env`).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

BODY_TOTAL_FACTOR = 4
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


# (message) -> the JSON body answering a request h11 cannot parse, in the app's envelope.
BadRequest = Callable[[str], dict[str, object]]


def _local_bad_request(message: str) -> dict[str, object]:
    return {"error": message, "code": "http.bad_request"}


def guarded_protocol(
    limits: SlowClientLimits, bad_request: BadRequest = _local_bad_request
) -> type[H11Protocol]:
    """An h11 protocol class enforcing ``limits`` (pass it as uvicorn's ``http=``); a request
    h11 cannot parse is answered with ``bad_request``'s JSON body."""
    attributes = {"limits": limits, "bad_request": staticmethod(bad_request)}
    return type("SlowClientGuard", (_SlowClientGuard,), attributes)


class _SlowClientGuard(H11Protocol):
    limits = SlowClientLimits()
    bad_request: BadRequest = staticmethod(_local_bad_request)
    _phase: Phase = "headers"
    _phase_since = 0.0
    _last_bytes = 0.0
    _timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._enter("headers")
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        self._last_bytes = time.monotonic()
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def send_400_response(self, msg: str) -> None:
        """A request h11 cannot parse (a NUL in a header, a broken request line): the JSON
        envelope like every other answer, then the connection closes."""
        body = json.dumps(self.bad_request(f"refused: {msg}")).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(body)),
            (b"connection", b"close"),
        ]
        try:
            self.transport.write(
                self.conn.send(h11.Response(status_code=400, headers=headers)) or b""
            )
            self.transport.write(self.conn.send(h11.Data(data=body)) or b"")
            self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        except h11.LocalProtocolError:
            pass  # a response had already started: just close
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    # -- phases and deadlines ----------------------------------------------------------------
    def _current(self) -> Phase:
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            return "body"
        if state is h11.IDLE and (self.cycle is None or self.cycle.response_complete):
            return "headers"
        return "app"

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
            if isinstance(p, _SlowClientGuard)
            and p is not self
            and p._phase == "headers"
            and not p.transport.is_closing()
        ]
        if waiting:
            min(waiting, key=lambda p: p._phase_since).transport.close()
        else:
            self.transport.close()
