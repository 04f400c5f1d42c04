"""A real ``engram serve`` subprocess on a free port (or a Unix socket) and a small client.

The client is stdlib ``http.client``: every request is a real HTTP request over loopback.
"""

from __future__ import annotations

import http.client as httpclient
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engram.testing import Sandbox

ENGRAM = Path(sys.executable).with_name("engram")
START_TIMEOUT_S = 30.0


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _UnixConnection(httpclient.HTTPConnection):
    def __init__(self, path: Path) -> None:
        super().__init__("localhost", timeout=30)
        self.path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect(str(self.path))
        self.sock = sock


@dataclass
class Reply:
    """A response: status, parsed JSON (None when not JSON), raw body and headers."""

    status: int
    json: Any
    raw: bytes
    headers: dict[str, str]


@dataclass
class Client:
    """Sends requests to one server (TCP port or Unix socket)."""

    port: int = 0
    socket_path: Path | None = None
    default_headers: dict[str, str] = field(default_factory=dict)

    def request(
        self,
        method: str,
        path: str,
        json_body: Any = None,
        *,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        conn: httpclient.HTTPConnection
        if self.socket_path is not None:
            conn = _UnixConnection(self.socket_path)
        else:
            conn = httpclient.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {**self.default_headers, **(headers or {})}
        if json_body is not None:
            body = json.dumps(json_body).encode()
            sent.setdefault("Content-Type", "application/json")
        try:
            conn.request(method, path, body=body, headers=sent)
            response = conn.getresponse()
            raw = response.read()
            try:
                parsed = json.loads(raw) if raw else None
            except ValueError:
                parsed = None
            return Reply(response.status, parsed, raw, dict(response.getheaders()))
        finally:
            conn.close()

    def get(self, path: str, **kw: Any) -> Reply:
        return self.request("GET", path, **kw)

    def post(self, path: str, json_body: Any = None, **kw: Any) -> Reply:
        return self.request("POST", path, json_body, **kw)

    def patch(self, path: str, json_body: Any = None, **kw: Any) -> Reply:
        return self.request("PATCH", path, json_body, **kw)

    def put(self, path: str, **kw: Any) -> Reply:
        return self.request("PUT", path, **kw)

    def delete(self, path: str, **kw: Any) -> Reply:
        return self.request("DELETE", path, **kw)


@dataclass
class Server:
    """A running ``engram serve`` and a client for it."""

    process: subprocess.Popen[str]
    client: Client
    sandbox: Sandbox

    def stop(self) -> str:
        """Stop the server (SIGTERM) and return its stderr."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            _, err = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err


def start_server(
    sandbox: Sandbox,
    *args: str,
    env: dict[str, str] | None = None,
    socket_path: Path | None = None,
    port: int = 0,
    cwd: Path | None = None,
) -> Server:
    """Start ``engram serve ARGS`` in the sandbox and wait until /health answers.

    Without ARGS (and without a socket) the server gets a free port as its argument; else
    ``port`` says where it will listen.
    """
    if socket_path is None and not args:
        port = free_port()
        args = (str(port),)
    elif not port and args and args[0].isdigit():
        port = int(args[0])
    process = subprocess.Popen(
        [str(ENGRAM), "serve", *args],
        cwd=cwd or sandbox.workspace,
        env=sandbox.env(**(env or {})),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    client = Client(port=port, socket_path=socket_path)
    server = Server(process, client, sandbox)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"engram serve exited: {server.stop()}")
        try:
            if client.get("/health").status == 200:
                return server
        except OSError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"engram serve did not answer: {server.stop()}")


@pytest.fixture
def served(sandbox: Sandbox) -> Iterator[Server]:
    """``engram serve <free port>`` in the sandbox."""
    server = start_server(sandbox)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def api(served: Server) -> Client:
    """A client of the served app."""
    return served.client


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One ``engram serve`` on TCP for a whole test module (tests use their own projects)."""
    server = start_server(Sandbox(tmp_path_factory.mktemp("served")))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def http(shared_server: Server) -> Client:
    """A client of the module's shared TCP server."""
    return shared_server.client


@pytest.fixture(scope="module", params=["tcp", "unix-socket"])
def either_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    """One ``engram serve`` per module and transport: the same routes over TCP and over
    ``ENGRAM_SOCKET``."""
    sandbox = Sandbox(tmp_path_factory.mktemp("served"))
    if request.param == "tcp":
        server = start_server(sandbox)
    else:
        path = sandbox.root / "engram.sock"
        server = start_server(sandbox, env={"ENGRAM_SOCKET": str(path)}, socket_path=path)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def route(either_server: Server) -> Client:
    """A client of the module's server, once over TCP and once over the Unix socket."""
    return either_server.client


def new_session(client: Client, project: str, session_id: str, **extra: Any) -> Reply:
    """Register a runtime session (asserting nothing)."""
    return client.post("/sessions", {"id": session_id, "project": project, **extra})


def save(client: Client, project: str, title: str, content: str, **extra: Any) -> int:
    """Save one observation in ``project`` (its session registered first) and return its id."""
    session = extra.pop("session_id", f"{project}-s")
    new_session(client, project, session)
    reply = client.post(
        "/observations",
        {"session_id": session, "title": title, "content": content, "project": project, **extra},
    )
    assert reply.status == 201, reply.json
    return int(reply.json["id"])


@pytest.fixture
def served_and_cli(served: Server) -> tuple[Client, dict[str, str]]:
    """The per-test server's client and the environment its CLI runs with."""
    return served.client, served.sandbox.env()
