"""The pool checks a connection only when it has been idle or another one broke, and a server
whose Postgres connections all died heals: at most one transaction fails (issue 27 point 4)."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest

from engram.cloud.store import db
from engram.cloud.store.db import CloudStore


def _hold_connections(store: CloudStore, count: int) -> None:
    """Make the pool open ``count`` connections by using them at the same time."""
    barrier = threading.Barrier(count)

    def use() -> None:
        with store.transaction() as conn:
            conn.execute("SELECT 1")
            barrier.wait(timeout=10)

    threads = [threading.Thread(target=use) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _kill_backends(database_url: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert row is not None
    return int(row[0])


def _answers(store: CloudStore) -> bool:
    try:
        with store.transaction() as conn:
            return conn.execute("SELECT 1").fetchone() is not None
    except psycopg.OperationalError:
        return False


def test_after_one_dead_connection_every_other_is_checked(database_url: str) -> None:
    with CloudStore.open(database_url, max_size=4) as store:
        _hold_connections(store, 4)
        assert _kill_backends(database_url) >= 4
        served = [_answers(store) for _ in range(6)]
    # The first may meet a dead connection it was not worth checking (used a moment ago);
    # that failure makes the pool check every other one, so nothing else fails.
    assert served[1:] == [True] * 5, served


def test_a_connection_idle_past_the_threshold_is_checked_first(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "CHECK_AFTER_IDLE_S", 0.2)
    with CloudStore.open(database_url, max_size=2) as store:
        _hold_connections(store, 2)
        assert _kill_backends(database_url) >= 2
        time.sleep(0.3)
        assert [_answers(store) for _ in range(4)] == [True] * 4
