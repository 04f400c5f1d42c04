"""How many times a request waits for Postgres. On a loaded machine each wait is a round trip
through the scheduler, so statements sent together must be answered together (a cursor read
inside a pipeline waits once for itself and once more for the pipeline), and statements nobody
reads go with the commit (issue 27 point 4).

Counted from libpq's own trace of the connection: a wait is the client's messages followed by
the server's."""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import pq

from engram.cloud.auth import Principal
from engram.cloud.gate import admit_and_run
from engram.cloud.push_stream import STREAMED_ABOVE, push_streamed
from engram.cloud.settings import CloudSettings
from engram.cloud.store import projects
from engram.cloud.store.db import CloudStore, Conn, send_with_commit
from tests.cloud.entries import observation

TOKEN = "round-trip-sync-token-0123456789abcdef"


@pytest.fixture
def store(database_url: str) -> Iterator[CloudStore]:
    with CloudStore.open(database_url, max_size=1) as opened:
        yield opened


class _Trace:
    """libpq's trace of ``conn`` from now until :meth:`waits` (which may come after the
    transaction has ended and the connection is back in the pool)."""

    def __init__(self, conn: Conn) -> None:
        self._conn = conn
        self._file = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in waits)
        conn.pgconn.trace(self._file.fileno())
        conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

    def waits(self) -> int:
        """How many times the connection sent messages, then waited for the server's."""
        self._conn.pgconn.untrace()
        with self._file:
            self._file.seek(0)
            # A message is a line "F|B<tab>length<tab>type ..."; a statement's text goes on
            # over lines of its own.
            fields = (line.split("\t", 1)[0] for line in self._file.read().splitlines())
            senders = [sender for sender in fields if sender in ("F", "B")]
        return sum(1 for pair in itertools.pairwise(senders) if pair == ("F", "B"))


def _batch(first: int, count: int) -> list[dict[str, Any]]:
    return [observation("dev", seq) for seq in range(first, first + count)]


def _stored(store: CloudStore) -> tuple[int, int, int]:
    with store.transaction() as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM cloud_mutations) AS m,"
            " (SELECT count(*) FROM cloud_auth_audit_log) AS a,"
            " (SELECT last_seq FROM cloud_projects WHERE name = 'p') AS s"
        ).fetchone()
    assert row is not None
    return int(row["m"]), int(row["a"]), int(row["s"])


def test_an_admitted_streamed_push_waits_for_postgres_once_per_step(store: CloudStore) -> None:
    settings = CloudSettings(database_url=store.url, sync_token=TOKEN, allowed_projects=("*",))
    count = STREAMED_ABOVE + 300

    def push(first: int) -> int:
        """The waits of one push from its admission on, its commit included."""
        traces: list[_Trace] = []

        def work(conn: Conn, principal: Principal) -> dict[str, Any]:
            traces.append(_Trace(conn))
            return push_streamed(conn, principal, "p", _batch(first, count))

        answer = admit_and_run(
            store, settings, f"Bearer {TOKEN}", work, route="mutations_push", project="p"
        )
        assert answer["accepted"] == count
        return traces[0].waits()

    # A new project: its lock, its row, the COPY's start and end, then the audit row, the
    # sequence, the chunks and the commit together.
    assert push(1) == 5
    # A known project's row is there when it is locked.
    assert push(count + 1) == 4
    # Everything sent with the commits was kept: both pushes, their sequence, their audit rows.
    assert _stored(store) == (2 * count, 2, 2 * count)


def test_statements_sent_with_the_commit_share_its_round_trip(store: CloudStore) -> None:
    with store.transaction() as conn:
        conn.execute("INSERT INTO cloud_projects (name) VALUES ('p')")
        trace = _Trace(conn)
        send_with_commit(conn, lambda c: c.execute("UPDATE cloud_projects SET last_seq = 7"))
        send_with_commit(
            conn, lambda c: c.execute("INSERT INTO cloud_projects (name) VALUES ('q')")
        )
    assert trace.waits() == 1
    assert _stored(store)[2] == 7


def test_a_failure_sent_with_the_commit_keeps_nothing_and_is_raised(store: CloudStore) -> None:
    with pytest.raises(psycopg.errors.UniqueViolation), store.transaction() as conn:
        conn.execute("INSERT INTO cloud_projects (name) VALUES ('p')")
        send_with_commit(
            conn, lambda c: c.execute("INSERT INTO cloud_projects (name) VALUES ('p')")
        )
    with store.transaction() as conn:  # the same pooled connection, in working order
        assert conn.execute("SELECT name FROM cloud_projects").fetchall() == []


def test_nothing_sent_with_a_rolled_back_commit_runs(store: CloudStore) -> None:
    ran: list[str] = []
    with pytest.raises(RuntimeError), store.transaction() as conn:
        send_with_commit(conn, lambda _: ran.append("sent"))
        raise RuntimeError("the work failed")
    with store.transaction() as conn:
        send_with_commit(conn, lambda _: ran.append("sent later"))
    assert ran == ["sent later"]


def test_the_new_project_lock_and_the_names_it_guards_are_one_wait(store: CloudStore) -> None:
    with store.transaction() as conn:
        conn.execute("INSERT INTO cloud_projects (name) VALUES ('alpha')")
        trace = _Trace(conn)
        names = projects.lock_new_names(conn)
        waits = trace.waits()
    assert waits == 1
    assert names == {"alpha"}
