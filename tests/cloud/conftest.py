"""A real PostgreSQL per test session (per xdist worker), a fresh database per test, and real
``engram cloud serve`` processes on free ports."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx2 as httpx
import pytest

from engram.cloud.scratch_postgres import ScratchPostgres
from engram.testing import Sandbox

ENGRAM = Path(sys.executable).with_name("engram")
JWT_SECRET = "s" * 40
PEPPER = "p" * 40
SYNC_TOKEN = "legacy-sync-token-0123456789abcdef01"
ADMIN_TOKEN = "legacy-admin-token-0123456789abcdef0"
_names = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[ScratchPostgres]:
    pg = ScratchPostgres.start()
    yield pg
    pg.stop()


@pytest.fixture
def database_url(postgres: ScratchPostgres) -> str:
    """An empty database of its own for this test."""
    return postgres.create_database(f"t{os.getpid()}_{next(_names)}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class CloudServer:
    """A running ``engram cloud serve`` subprocess."""

    url: str
    process: subprocess.Popen[str]
    log: Path

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def server_env(database_url: str, **extra: str) -> dict[str, str]:
    """An authenticated-mode environment with legacy tokens and a pepper."""
    env = {
        "ENGRAM_DATABASE_URL": database_url,
        "ENGRAM_CLOUD_ALLOWED_PROJECTS": "*",
        "ENGRAM_CLOUD_TOKEN": SYNC_TOKEN,
        "ENGRAM_JWT_SECRET": JWT_SECRET,
        "ENGRAM_CLOUD_ADMIN": ADMIN_TOKEN,
        "ENGRAM_CLOUD_TOKEN_PEPPER": PEPPER,
    }
    env.update(extra)
    return {k: v for k, v in env.items() if v != ""}


StartServer = Callable[..., CloudServer]


@pytest.fixture
def start_server(sandbox: Sandbox, tmp_path: Path) -> Iterator[StartServer]:
    """Start ``engram cloud serve`` with the given env; stopped at teardown."""
    started: list[CloudServer] = []

    def start(env: dict[str, str], port: int | None = None) -> CloudServer:
        port = port or free_port()
        log = tmp_path / f"cloud-{port}.log"
        full = sandbox.env(**env, ENGRAM_PORT=str(port), ENGRAM_CLOUD_HOST="127.0.0.1")
        with open(log, "w") as handle:
            process = subprocess.Popen(
                [str(ENGRAM), "cloud", "serve"],
                env=full,
                stdout=handle,
                stderr=subprocess.STDOUT,
                text=True,
            )
        server = CloudServer(f"http://127.0.0.1:{port}", process, log)
        started.append(server)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise AssertionError(f"cloud serve exited: {log.read_text()}")
            try:
                if httpx.get(f"{server.url}/health", timeout=1).status_code == 200:
                    return server
            except httpx.HTTPError:
                time.sleep(0.1)
        raise AssertionError(f"cloud serve did not answer: {log.read_text()}")

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def cloud(start_server: StartServer, database_url: str) -> CloudServer:
    """One authenticated cloud server over this test's database."""
    return start_server(server_env(database_url))
