"""`engram cloud serve` with no ENGRAM_DATABASE_URL: a real PostgreSQL under the data dir, made
on first start, kept across restarts, stopped with the server; secrets generated once (0600);
`engram cloud bootstrap` attaches to it and issues a token the server accepts."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from engram.testing import Sandbox
from tests.cloud.conftest import ENGRAM, free_port

pytestmark = pytest.mark.slow


class TeamServer:
    def __init__(self, sandbox: Sandbox, tmp_path: Path) -> None:
        self.sandbox = sandbox
        self.port = free_port()
        self.log = tmp_path / "serve.log"
        self.process: subprocess.Popen[str] | None = None

    def env(self, **extra: str) -> dict[str, str]:
        env = self.sandbox.env(**{"ENGRAM_PORT": str(self.port), **extra})
        for key in list(env):
            inherited = key.startswith("ENGRAM_CLOUD") or key in (
                "ENGRAM_DATABASE_URL",
                "ENGRAM_JWT_SECRET",
            )
            if inherited and key not in extra:
                env.pop(key)
        return env

    def start(self) -> None:
        with open(self.log, "a") as handle:
            self.process = subprocess.Popen(
                [str(ENGRAM), "cloud", "serve"],
                env=self.env(),
                stdout=handle,
                stderr=subprocess.STDOUT,
                text=True,
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log.read_text()
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise AssertionError(self.log.read_text())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=60)
        self.process = None
        return code

    def engram(self, *argv: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(ENGRAM), *argv], capture_output=True, text=True, env=self.env(**extra), timeout=120
        )

    @property
    def folder(self) -> Path:
        return self.sandbox.data_dir / "team-server"


@pytest.fixture
def team(sandbox: Sandbox, tmp_path: Path) -> Iterator[TeamServer]:
    server = TeamServer(sandbox, tmp_path)
    yield server
    if server.process is not None:
        server.stop()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_one_command_team_server_keeps_data_and_stops_its_database(team: TeamServer) -> None:
    team.start()
    banner = team.log.read_text()
    assert f"dashboard: {team.url}/dashboard" in banner
    assert "engram cloud bootstrap admin --username YOU --issue-token" in banner
    assert "embedded PostgreSQL" in banner and str(team.folder) in banner
    secrets = team.folder / "secrets.json"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o600
    assert (
        "password" not in banner and json.loads(secrets.read_text())["token_pepper"] not in banner
    )

    made = team.engram(
        "cloud",
        "bootstrap",
        "admin",
        "--username",
        "alice",
        "--grant-project",
        "team-app",
        "--issue-token",
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip().splitlines()[-1]
    headers = {"Authorization": f"Bearer {token}"}
    pulled = httpx.get(f"{team.url}/sync/pull", params={"project": "team-app"}, headers=headers)
    assert pulled.status_code == 200, pulled.text

    pid = json.loads((team.folder / "postgres.json").read_text())["pid"]
    assert team.stop() == 0
    assert not _alive(pid), "the embedded PostgreSQL outlived engram cloud serve"

    team.start()  # the same cluster, the same secrets: the token still works
    again = httpx.get(f"{team.url}/sync/pull", params={"project": "team-app"}, headers=headers)
    assert again.status_code == 200, again.text
    refused = team.engram("cloud", "bootstrap", "admin", "--username", "bob")
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr


def test_a_second_server_on_the_same_data_dir_is_one_line(team: TeamServer) -> None:
    team.start()
    other = team.engram("cloud", "serve", ENGRAM_PORT=str(free_port()))
    assert other.returncode == 1
    assert other.stderr.strip().splitlines() == [other.stderr.strip()]
    assert "another engram process is running the team database" in other.stderr


def test_a_secret_that_differs_from_the_kept_one_is_refused(team: TeamServer) -> None:
    team.start()
    team.stop()
    done = team.engram("cloud", "serve", ENGRAM_CLOUD_TOKEN_PEPPER="x" * 40)
    assert done.returncode == 1
    assert "ENGRAM_CLOUD_TOKEN_PEPPER differs from the one this team server keeps" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_busy_port_is_one_line(team: TeamServer) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", team.port))
        sock.listen()
        done = team.engram("cloud", "serve")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"error: cannot listen on 127.0.0.1:{team.port}: the port is already in use"
        " — stop what listens there, or set ENGRAM_PORT to a free port"
    )
