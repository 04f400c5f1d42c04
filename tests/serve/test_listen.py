"""Where `engram serve` listens: port argument, ENGRAM_PORT fallback, Unix socket, busy port."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
from pathlib import Path

from engram.http.listen import choose_address, parse_port
from engram.testing import Sandbox
from tests.serve.conftest import ENGRAM, free_port, save, start_server


def test_port_values() -> None:
    assert parse_port("7437") == 7437
    for bad in ("0", "65536", "-1", "+80", "80a", "", " ", "٣٣", "1e3"):
        assert parse_port(bad) is None, bad
    address, warnings = choose_address(None, "127.0.0.1", {"ENGRAM_PORT": "nope"})
    assert address.port == 7437 and warnings
    address, warnings = choose_address("9000", "127.0.0.1", {"ENGRAM_PORT": "9001"})
    assert address.port == 9000 and not warnings
    address, _ = choose_address(None, "127.0.0.1", {"ENGRAM_PORT": "9001"})
    assert address.port == 9001


def test_env_port_is_used(sandbox: Sandbox) -> None:
    port = free_port()
    server = start_server(sandbox, "--host", "127.0.0.1", env={"ENGRAM_PORT": str(port)}, port=port)
    try:
        assert server.client.get("/health").status == 200
    finally:
        server.stop()


def _serve(
    sandbox: Sandbox, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ENGRAM), "serve", *args],
        capture_output=True,
        text=True,
        env=sandbox.env(**(env or {})),
        cwd=sandbox.workspace,
        timeout=60,
    )


def test_socket_mode_serves_every_route(sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "s" / "engram.sock"
    server = start_server(sandbox, env={"ENGRAM_SOCKET": str(path)}, socket_path=path)
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        obs_id = save(server.client, "sock", "Over a socket", "works")
        assert server.client.get(f"/observations/{obs_id}").json["title"] == "Over a socket"
        assert server.client.get("/search?q=socket&project=sock").status == 200
        # curl --unix-socket sends the URL's host: no page can reach a socket, so it is fine
        assert server.client.get("/health", headers={"Host": "engram"}).status == 200
        foreign = server.client.get("/health", headers={"Origin": "http://evil.example"})
        assert foreign.status == 403
        again = _serve(sandbox, env={"ENGRAM_SOCKET": str(path)})
        assert again.returncode == 0 and "already running" in again.stderr
    finally:
        server.stop()
    assert not path.exists()


def test_socket_with_a_port_is_refused(sandbox: Sandbox, tmp_path: Path) -> None:
    sock = str(tmp_path / "e.sock")
    for args, env in (((str(free_port()),), {}), ((), {"ENGRAM_PORT": "8123"})):
        result = _serve(sandbox, *args, env={"ENGRAM_SOCKET": sock, **env})
        assert result.returncode == 1
        assert "ENGRAM_SOCKET cannot be combined" in result.stderr
        assert "Traceback" not in result.stderr


def test_socket_path_that_is_a_file_is_left_alone(sandbox: Sandbox, tmp_path: Path) -> None:
    precious = tmp_path / "notes.txt"
    precious.write_text("mine")
    result = _serve(sandbox, env={"ENGRAM_SOCKET": str(precious)})
    assert result.returncode == 1 and "not a socket" in result.stderr
    assert precious.read_text() == "mine"


def test_stale_socket_is_replaced(sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "stale.sock"
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(path))
    dead.close()
    server = start_server(sandbox, env={"ENGRAM_SOCKET": str(path)}, socket_path=path)
    try:
        assert server.client.get("/health").status == 200
    finally:
        server.stop()


def test_busy_port(sandbox: Sandbox) -> None:
    server = start_server(sandbox)
    port = str(server.client.port)
    try:
        same = _serve(sandbox, port)
        assert same.returncode == 0 and "already running" in same.stderr
        other_home = Sandbox(sandbox.root / "other")
        other = _serve(other_home, port)
        assert other.returncode == 1
        assert "cannot listen" in other.stderr and "Traceback" not in other.stderr
    finally:
        server.stop()
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen(1)
        result = _serve(sandbox, str(squatter.getsockname()[1]))
    assert result.returncode == 1 and "cannot listen" in result.stderr


def test_an_invalid_port_argument_is_an_error(sandbox: Sandbox) -> None:
    for bad in ("99999", "0", "http"):
        done = subprocess.run(
            [str(ENGRAM), "serve", bad],
            env=sandbox.env(),
            cwd=sandbox.workspace,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1, done.stderr
        assert done.stderr.strip() == (
            f"error: {bad!r} is not a port (1-65535) — pass a port from 1 to 65535,"
            " or leave it out for 7437"
        )
    assert os.environ.get("ENGRAM_SOCKET") is None


def test_project_scoped_routes_refuse_an_ambiguous_directory(sandbox: Sandbox) -> None:
    for name in ("api", "web"):
        (sandbox.workspace / name).mkdir()
        subprocess.run(["git", "init", "-q"], cwd=sandbox.workspace / name, check=True)
    server = start_server(sandbox)
    try:
        save(server.client, "api", "a note", "body")
        for route in ("/search?q=note", "/stats", "/observations/recent", "/context"):
            reply = server.client.get(route)
            assert reply.status == 409, (route, reply.status)
            assert reply.json["code"] == "ambiguous_project", route
            assert set(reply.json["available_projects"]) == {"api", "web"}, route
        hits = server.client.get("/search?q=note&project=api")
        assert hits.status == 200 and len(hits.json) == 1
        assert server.client.get("/search?q=note&all_projects=true").status == 200
    finally:
        server.stop()
