"""Two ``engram cloud serve`` processes over one Postgres, 8 clients saving and syncing at
once: afterwards every client holds the same observations — none lost, none duplicated.

``ENGRAM_SCALE_OBSERVATIONS`` changes the per-client count (default 500, the issue's size).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engram.store.db import Store
from tests.cloud.conftest import SYNC_TOKEN, StartServer, server_env

CLIENTS = 8
PER_CLIENT = int(os.environ.get("ENGRAM_SCALE_OBSERVATIONS", "500"))
SYNC_EVERY = max(1, PER_CLIENT // 5)
DRIVER = Path(__file__).with_name("scale_client.py")


def _titles(data_dir: Path) -> list[tuple[str, str]]:
    with Store.open(data_dir) as store:
        rows = store.connection.execute(
            "SELECT sync_id, title FROM observations WHERE project = 'scale'"
        ).fetchall()
    return sorted((r[0], r[1]) for r in rows)


@pytest.mark.slow
def test_eight_clients_two_servers_one_postgres(
    start_server: StartServer, database_url: str, tmp_path: Path
) -> None:
    servers = [start_server(server_env(database_url)) for _ in range(2)]
    repo_root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo_root)}
    clients = []
    for index in range(CLIENTS):
        data_dir = tmp_path / f"client{index}"
        argv = [
            sys.executable,
            str(DRIVER),
            str(data_dir),
            servers[index % 2].url,
            SYNC_TOKEN,
            "scale",
            f"client{index}",
            str(PER_CLIENT),
            str(SYNC_EVERY),
        ]
        clients.append(
            (data_dir, subprocess.Popen(argv, env=env, stderr=subprocess.PIPE, text=True))
        )
    for _, process in clients:
        _, err = process.communicate(timeout=900)
        assert process.returncode == 0, err
    # Everyone has pushed: a final pull on each client, alternating servers again.
    from engram.sync.cloud.config import Remote
    from engram.sync.cloud.replicate import sync_once

    for index, (data_dir, _) in enumerate(clients):
        with Store.open(data_dir) as store:
            sync_once(store, Remote(servers[index % 2].url, SYNC_TOKEN), "scale", push_first=False)
    expected = _titles(clients[0][0])
    assert len(expected) == CLIENTS * PER_CLIENT
    assert len({sync_id for sync_id, _ in expected}) == CLIENTS * PER_CLIENT
    assert len({title for _, title in expected}) == CLIENTS * PER_CLIENT
    for data_dir, _ in clients[1:]:
        assert _titles(data_dir) == expected
