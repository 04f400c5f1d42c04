"""Slow clients cannot starve ``engram serve``: real sockets against a real server.

A connection that sends nothing, headers one byte at a time, or half a body is closed by the
server; more idle connections than the cap make the oldest idle ones close, and ``/health``
keeps answering throughout. Deadlines are set short through ``ENGRAM_SERVE_*``; every wait
below is a generous upper bound (the server closes long before), not a timing assertion.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from engram.testing import Sandbox
from tests.serve.conftest import Server, start_server

PATIENCE_S = 20.0  # far beyond every deadline the server is given here


@pytest.fixture
def strict(sandbox: Sandbox) -> Iterator[Server]:
    env = {
        "ENGRAM_SERVE_HEADER_TIMEOUT": "1",
        "ENGRAM_SERVE_BODY_TIMEOUT": "1",
        "ENGRAM_SERVE_MAX_CONNECTIONS": "16",
    }
    server = start_server(sandbox, env=env)
    try:
        yield server
    finally:
        server.stop()


def _connect(server: Server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.client.port), timeout=PATIENCE_S)
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closes the connection (EOF or reset) within PATIENCE_S."""
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    finally:
        sock.close()


def test_a_silent_connection_is_closed(strict: Server) -> None:
    assert _closed_by_server(_connect(strict))
    assert strict.client.get("/health").status == 200


def test_headers_sent_a_byte_at_a_time_are_cut_off(strict: Server) -> None:
    sock = _connect(strict)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n")
    started = time.monotonic()
    try:
        while time.monotonic() - started < PATIENCE_S:
            sock.sendall(b"X")  # a header that never ends
            time.sleep(0.2)
        closed = False
    except (BrokenPipeError, ConnectionResetError):
        closed = True
    sock.close()
    assert closed, "the server kept reading a request that never ends"


def test_a_body_that_stops_is_cut_off(strict: Server) -> None:
    sock = _connect(strict)
    sock.sendall(
        b"POST /observations HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b'Content-Length: 1000\r\n\r\n{"title": '
    )
    assert _closed_by_server(sock)


def test_idle_connections_beyond_the_cap_make_room_for_health(sandbox: Sandbox) -> None:
    env = {"ENGRAM_SERVE_HEADER_TIMEOUT": "300", "ENGRAM_SERVE_MAX_CONNECTIONS": "8"}
    server = start_server(sandbox, env=env)
    try:
        idle = [_connect(server) for _ in range(24)]
        for sock in idle:
            sock.settimeout(0.05)
        assert server.client.get("/health").status == 200
        time.sleep(0.5)
        closed = 0
        for sock in idle:
            try:
                closed += sock.recv(1) == b""
            except TimeoutError:
                pass
            except ConnectionResetError:
                closed += 1
            sock.close()
        assert closed >= 24 - 8, f"only {closed} of 24 idle connections were closed"
    finally:
        server.stop()
