"""The cloud client keeps one connection to the server across requests, survives the server
closing it, and still honours a proxy from the environment (issue 27 point 4)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from engram.sync.cloud.client import CloudClient, CloudSyncError
from engram.sync.cloud.config import Remote
from engram.sync.mutation import Mutation
from tests.cloud.conftest import SYNC_TOKEN, CloudServer, StartServer, free_port, server_env
from tests.cloud.entries import observation


def _client_ports(server_port: int) -> set[int]:
    """Client ports of every TCP connection to ``server_port`` the kernel still lists (open
    or in TIME_WAIT), from /proc/net/tcp."""
    ports = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, remote = line.split()[1:3]
        local_port, remote_port = (int(a.split(":")[1], 16) for a in (local, remote))
        if local_port == server_port:
            ports.add(remote_port)
        elif remote_port == server_port:
            ports.add(local_port)
    return ports


def _port(server: CloudServer) -> int:
    return int(server.url.rsplit(":", 1)[1])


def _batch(first: int) -> list[Mutation]:
    return [Mutation(**observation("dev", first))]  # type: ignore[arg-type]


def test_a_sync_of_many_requests_uses_one_connection(cloud: CloudServer) -> None:
    client = CloudClient(Remote(cloud.url, SYNC_TOKEN))
    before = _client_ports(_port(cloud))
    for n in range(1, 6):
        assert client.push_mutations("p", _batch(n))["accepted"] == 1
        assert len(client.pull_mutations("p", 0, 500)["mutations"]) == n
    assert len(_client_ports(_port(cloud)) - before) == 1
    client.close()


def test_a_restarted_server_is_reached_again_without_an_error(
    start_server: StartServer, database_url: str
) -> None:
    port = free_port()
    server = start_server(server_env(database_url), port=port)
    client = CloudClient(Remote(server.url, SYNC_TOKEN))
    assert client.push_mutations("p", _batch(1))["accepted"] == 1
    server.stop()  # the kept connection dies with it
    start_server(server_env(database_url), port=port)
    assert client.push_mutations("p", _batch(2))["accepted"] == 1
    assert client.pull_mutations("p", 0, 500)["last_seq"] == 2


def test_a_proxy_in_the_environment_is_used(
    cloud: CloudServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as closed:  # a proxy address where nothing listens
        closed.bind(("127.0.0.1", 0))
        proxy = f"http://127.0.0.1:{closed.getsockname()[1]}"
    monkeypatch.setenv("HTTP_PROXY", proxy)
    monkeypatch.setenv("NO_PROXY", "")
    monkeypatch.setenv("no_proxy", "")
    with pytest.raises(CloudSyncError) as refused:
        CloudClient(Remote(cloud.url, SYNC_TOKEN), timeout=5)._request("GET", "/health")
    assert refused.value.reason_code == "transport_failed"
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    assert CloudClient(Remote(cloud.url, SYNC_TOKEN)).health()
