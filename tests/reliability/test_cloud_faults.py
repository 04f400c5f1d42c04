"""Faults answer in JSON and heal: a real Postgres restarted under a running cloud server.

While the database is down the server answers the JSON envelope (503 + ``Retry-After``); once
it is back, pooled connections are checked before use and requests succeed again — never a
plain-text 500. A NUL byte anywhere is a 400 envelope; ids are ASCII digits only.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from engram.cloud.scratch_postgres import ScratchPostgres
from engram.testing import Sandbox
from tests.cloud.conftest import SYNC_TOKEN, StartServer, server_env
from tests.cloud.entries import observation
from tests.cloud.laptops import Laptop

AUTH = {"Authorization": f"Bearer {SYNC_TOKEN}"}


@pytest.fixture
def own_postgres() -> Iterator[ScratchPostgres]:
    """A Postgres of this test alone: restarting it disturbs no other test."""
    pg = ScratchPostgres.start()
    try:
        yield pg
    finally:
        pg.stop()


def _json_envelope(reply: httpx.Response) -> dict[str, object]:
    assert reply.headers["content-type"].startswith("application/json"), reply.text
    body = reply.json()
    assert isinstance(body, dict) and "error_code" in body and "error_class" in body, body
    return body


def test_a_postgres_restart_heals_without_plain_text_500s(
    own_postgres: ScratchPostgres, start_server: StartServer
) -> None:
    url = own_postgres.create_database("faults")
    server = start_server(server_env(url))
    client = httpx.Client(base_url=server.url, headers=AUTH, timeout=60)
    push = {"project": "p", "entries": [observation("dev", 1)]}
    assert client.post("/sync/mutations/push", json=push).status_code == 200

    own_postgres.restart()
    for _ in range(6):  # every pooled connection died with the old server
        reply = client.get("/sync/mutations/pull?project=p")
        assert reply.status_code in (200, 503), reply.text
        if reply.status_code == 503:
            assert _json_envelope(reply)["error_code"] == "database_unavailable"
            assert reply.headers["retry-after"].isdigit()
    assert client.get("/sync/mutations/pull?project=p").status_code == 200
    push = {"project": "p", "entries": [observation("dev", 2)]}
    assert client.post("/sync/mutations/push", json=push).status_code == 200


def test_nul_bytes_and_unicode_digits_are_400_envelopes(
    start_server: StartServer, database_url: str
) -> None:
    server = start_server(server_env(database_url))
    client = httpx.Client(base_url=server.url, headers=AUTH, timeout=30)
    for path in (
        "/sync/mutations/pull?project=p%00q",
        "/sync/pull?project=%00",
        "/sync/mutations/pull?project=p&since=%D9%A1",  # ARABIC-INDIC DIGIT ONE
        "/sync/mutations/pull%00?project=p",
    ):
        reply = client.get(path)
        assert reply.status_code == 400, (path, reply.status_code, reply.text)
        _json_envelope(reply)
    body = {"project": "p\u0000q", "entries": [observation("dev", 1)]}
    reply = client.post("/sync/mutations/push", json=body)
    assert reply.status_code == 400
    _json_envelope(reply)


def test_the_client_retries_a_push_through_a_database_outage(
    own_postgres: ScratchPostgres, start_server: StartServer, sandbox: Sandbox, tmp_path: Path
) -> None:
    url = own_postgres.create_database("retries")
    server = start_server(server_env(url))
    laptop = Laptop(tmp_path / "a", sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN))
    laptop.ok("cloud", "config", "--server", server.url)
    laptop.ok("cloud", "enroll", "team")
    laptop.ok("save", "survives the outage", "pushed after a retry", "--project", "team")
    # Postgres goes away for longer than the server's pool waits (10 s): the first push gets a
    # 503 with Retry-After, the client waits and retries, the database is back by then.
    outage = threading.Thread(target=own_postgres.restart, kwargs={"down_s": 18.0})
    outage.start()
    time.sleep(1.0)
    try:
        done = laptop.run("sync", "--cloud", "--project", "team")
    finally:
        outage.join()
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    pulled = httpx.get(
        f"{server.url}/sync/mutations/pull?project=team", headers=AUTH, timeout=30
    ).text
    assert "survives the outage" in pulled


def test_a_header_nul_and_a_silent_socket_on_the_cloud(
    start_server: StartServer, database_url: str
) -> None:
    server = start_server(server_env(database_url, ENGRAM_SERVE_HEADER_TIMEOUT="1"))
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\x00b\r\n\r\n")
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), answer
    assert json.loads(body)["error_class"] == "invalid_request", answer
    with socket.create_connection(("127.0.0.1", port), timeout=20) as silent:
        assert silent.recv(1) == b""  # closed by the server's header deadline
    assert httpx.get(f"{server.url}/health").status_code == 200
