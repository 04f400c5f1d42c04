"""How many times a streamed push waits for Postgres. On a loaded machine each wait is a round
trip through the scheduler, so statements sent together must be answered together: a cursor
read inside a pipeline waits once for itself and once more for the pipeline (issue 27 point 4).

Counted from libpq's own trace of the connection: a wait is the client's messages followed by
the server's."""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import pq
from psycopg.rows import dict_row

from engram.cloud.auth import Principal
from engram.cloud.push_stream import STREAMED_ABOVE, push_streamed
from engram.cloud.store import migrate, projects
from tests.cloud.entries import observation

PUSHER = Principal(id="legacy-sync", kind="legacy_sync", display_name="legacy-sync")


@contextmanager
def _connection(database_url: str) -> Iterator[psycopg.Connection[dict[str, Any]]]:
    with psycopg.connect(database_url, row_factory=dict_row) as conn:
        migrate.migrate(conn)
        yield conn


def _waits(conn: psycopg.Connection[Any], work: Callable[[], object]) -> int:
    """How many times ``work`` on ``conn`` sent messages, then waited for the server's."""
    with tempfile.TemporaryFile("w+") as trace:
        conn.pgconn.trace(trace.fileno())
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            work()
        finally:
            conn.pgconn.untrace()
        trace.seek(0)
        # A message is a line "F|B<tab>length<tab>type ..."; a statement's text goes on over
        # lines of its own.
        fields = (line.split("\t", 1)[0] for line in trace.read().splitlines())
        senders = [sender for sender in fields if sender in ("F", "B")]
    return sum(1 for before, now in itertools.pairwise(senders) if (before, now) == ("F", "B"))


def _batch(first: int, count: int) -> list[dict[str, Any]]:
    return [observation("dev", seq) for seq in range(first, first + count)]


def test_a_streamed_push_waits_for_postgres_once_per_step(database_url: str) -> None:
    count = STREAMED_ABOVE + 300
    with _connection(database_url) as conn:
        answers: list[object] = []

        def push(first: int) -> Callable[[], object]:
            return lambda: answers.append(push_streamed(conn, PUSHER, "p", _batch(first, count)))

        with conn.transaction():
            # A new project: its lock, its row, the COPY's start and end, the tail.
            assert _waits(conn, push(1)) == 5
        with conn.transaction():
            # A known one: its row is there when it is locked.
            assert _waits(conn, push(count + 1)) == 4
        assert [a["accepted"] for a in answers if isinstance(a, dict)] == [count, count]
        stored = conn.execute("SELECT count(*) AS n FROM cloud_mutations").fetchone()
        assert stored is not None and stored["n"] == 2 * count


def test_the_new_project_lock_and_the_names_it_guards_are_one_wait(database_url: str) -> None:
    with _connection(database_url) as conn, conn.transaction():
        conn.execute("INSERT INTO cloud_projects (name) VALUES ('alpha')")
        names: list[set[str]] = []
        assert _waits(conn, lambda: names.append(projects.lock_new_names(conn))) == 1
        assert names == [{"alpha"}]
