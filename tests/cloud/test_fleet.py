"""Three ``engram cloud serve`` processes on one Postgres and 50 clients pushing and pulling at
once: nothing is lost, nothing is duplicated, every client ends with every mutation exactly
once, and sequences stay dense (issue 27 point 4; ``bench/cloud_fleet.py`` runs it bigger)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import psycopg
import pytest

from engram.sync.cloud.client import CloudClient
from engram.sync.cloud.config import Remote
from engram.sync.mutation import Mutation, parse_mutation
from tests.cloud.conftest import SYNC_TOKEN, StartServer, server_env
from tests.cloud.entries import observation

SERVERS = 3
POOL = 4  # ENGRAM_CLOUD_POOL_SIZE: the connections one server may hold
CLIENTS = 50
PER_CLIENT = 12
BATCH = 4


def _client(
    index: int, url: str, seen: Counter[tuple[str, int]], cursors: list[int], errors: list[str]
) -> None:
    origin = f"fleet{index:02d}"
    client = CloudClient(Remote(url, SYNC_TOKEN), timeout=120)
    rows = [parse_mutation(observation(origin, n, title=f"{origin} {n}")) for n in range(1, 13)]
    cursor = 0
    try:
        for start in range(0, PER_CLIENT, BATCH):
            result = client.push_mutations("p", rows[start : start + BATCH])
            if (result["accepted"], result["duplicates"]) != (BATCH, 0):
                errors.append(f"{origin}: push answered {result}")
            cursor = _pull(client, cursor, seen)
        cursors[index] = cursor
    except Exception as exc:  # the assertion below names it
        errors.append(f"{origin}: {type(exc).__name__}: {exc}")


def _pull(client: CloudClient, cursor: int, seen: Counter[tuple[str, int]]) -> int:
    while True:
        page = client.pull_mutations("p", cursor, 25)
        seen.update((m["origin"], m["seq"]) for m in page["mutations"])
        cursor = page["next_since"]
        if not page["has_more"]:
            return int(cursor)


def _count_connections(url: str, stop: threading.Event, peak: list[int]) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        while not stop.wait(0.05):
            row = conn.execute(
                # Client backends only: an autovacuum worker on this database (the pushes
                # make work for it) is Postgres's own, not a connection a server opened.
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND backend_type = 'client backend'"
            ).fetchone()
            peak[0] = max(peak[0], int(row[0]) if row else 0)


def _database(url: str) -> tuple[Any, ...]:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*), count(DISTINCT (origin, clock)), min(seq), max(seq),"
            " (SELECT last_seq FROM cloud_projects WHERE name = 'p')"
            " FROM cloud_mutations WHERE project = 'p'"
        ).fetchone()
    assert row is not None
    return tuple(row)


@pytest.mark.slow
def test_fifty_clients_three_servers_lose_and_duplicate_nothing(
    start_server: StartServer, database_url: str
) -> None:
    env = server_env(database_url, ENGRAM_CLOUD_POOL_SIZE=str(POOL))
    servers = [start_server(env).url for _ in range(SERVERS)]
    stop, peak = threading.Event(), [0]
    sampler = threading.Thread(target=_count_connections, args=(database_url, stop, peak))
    sampler.start()
    seen: list[Counter[tuple[str, int]]] = [Counter() for _ in range(CLIENTS)]
    cursors, errors = [0] * CLIENTS, []
    threads = [
        threading.Thread(target=_client, args=(i, servers[i % SERVERS], seen[i], cursors, errors))
        for i in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    stop.set()
    sampler.join()
    assert errors == []
    assert 0 < peak[0] <= SERVERS * POOL  # the sizing rule of docs/cloud.md holds
    total = CLIENTS * PER_CLIENT
    assert _database(database_url) == (total, total, 1, total, total)
    expected = {(f"fleet{i:02d}", n) for i in range(CLIENTS) for n in range(1, PER_CLIENT + 1)}
    for index, counter in enumerate(seen):  # each client catches up through another server
        client = CloudClient(Remote(servers[(index + 1) % SERVERS], SYNC_TOKEN), timeout=120)
        _pull(client, cursors[index], counter)
        assert set(counter) == expected, f"client {index} is missing mutations"
        assert max(counter.values()) == 1, f"client {index} pulled a mutation twice"
    replay: list[Mutation] = [parse_mutation(observation("fleet00", n)) for n in range(1, 5)]
    again = CloudClient(Remote(servers[2], SYNC_TOKEN), timeout=120).push_mutations("p", replay)
    assert (again["accepted"], again["duplicates"]) == (0, 4)
    assert _database(database_url) == (total, total, 1, total, total)
