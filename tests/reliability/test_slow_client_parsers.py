"""The slow-client guard over both of uvicorn's parsers: httptools (what serves when it is
installed) and h11 (the fallback). A real uvicorn on a free loopback port, real sockets."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from engram.slow_clients import SlowClientLimits, guarded_protocol
from tests.serve.conftest import free_port

LIMITS = SlowClientLimits(header_timeout_s=1.0, body_timeout_s=1.0, max_connections=16)
PATIENCE_S = 20.0


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]}
    )
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture(params=["httptools", "h11"])
def port(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    if request.param == "h11":
        monkeypatch.setitem(sys.modules, "httptools", None)  # import fails: the fallback
    protocol = guarded_protocol(LIMITS)
    bases = [cls.__name__ for cls in protocol.__mro__]
    assert ("H11Protocol" in bases) == (request.param == "h11")
    chosen = free_port()
    config = uvicorn.Config(_app, port=chosen, http=protocol, log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    deadline = time.monotonic() + PATIENCE_S
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield chosen
    server.should_exit = True
    thread.join(PATIENCE_S)


def _closed(sock: socket.socket) -> bytes | None:
    """What the server sent before closing (None: it did not close within PATIENCE_S)."""
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
        return received
    except ConnectionResetError:
        return received
    except TimeoutError:
        return None
    finally:
        sock.close()


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S)


def test_silent_and_trickling_connections_are_closed(port: int) -> None:
    assert _closed(_connect(port)) == b""
    trickle = _connect(port)
    trickle.sendall(b"GET / HTTP/1.1\r\n")
    assert _closed(trickle) == b""
    stalled = _connect(port)
    stalled.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
    assert _closed(stalled) == b""


def test_a_request_is_answered_and_a_broken_one_gets_the_json_envelope(port: int) -> None:
    ok = _connect(port)
    ok.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    answer = _closed(ok)
    assert answer is not None and answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok")
    broken = _connect(port)
    broken.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\x00b\r\n\r\n")
    answer = _closed(broken)
    assert answer is not None and answer.startswith(b"HTTP/1.1 400")
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["code"] == "http.bad_request" and body["error"].startswith("refused: ")


def test_headers_beyond_16_kib_are_refused_without_being_kept(port: int) -> None:
    sock = _connect(port)
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 17 * 1024 + b"\r\nX-Next: 1\r\n")
    answer = _closed(sock)  # more headers could follow: only the bound answers at once
    assert answer is not None and answer.startswith(b"HTTP/1.1 400"), answer
