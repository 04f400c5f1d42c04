"""Group commit: concurrent saves share transactions, each write keeps its own outcome."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator

import pytest

from engram.errors import EngramError
from engram.memory.save import save_observation
from engram.memory.search import search
from engram.store import semantic
from engram.store.db import Store
from engram.testing import Sandbox

THREADS = 16
SAVES_EACH = 10


@pytest.fixture
def store(sandbox: Sandbox) -> Iterator[Store]:
    with Store.open(sandbox.data_dir) as opened:
        opened.group_commits()
        yield opened


def _save(store: Store, title: str, project: str = "alpha") -> int:
    result = save_observation(
        store, title=title, content=f"body of {title} about the cache", project=project
    )
    return result.observation.id


def _held_writer(store: Store) -> tuple[threading.Event, threading.Thread]:
    """A write that keeps the writer busy until the event is set: what is handed over
    meanwhile queues up and goes into the next batch together."""
    release = threading.Event()
    started = threading.Event()

    def hold(conn: sqlite3.Connection) -> None:
        started.set()
        release.wait(10)

    thread = threading.Thread(target=store.transact, args=(hold,))
    thread.start()
    assert started.wait(10)
    return release, thread


def _queued(store: Store, count: int) -> None:
    """Wait until ``count`` writes are queued behind the held one."""
    batcher = store._batcher
    assert batcher is not None
    deadline = threading.Event()
    for _ in range(1000):
        if batcher.pending() >= count:
            return
        deadline.wait(0.01)
    raise AssertionError(f"only {batcher.pending()} writes queued")


def test_concurrent_saves_share_transactions_and_lose_nothing(store: Store) -> None:
    ids: list[int] = []
    lock = threading.Lock()

    def writer(worker: int) -> None:
        for n in range(SAVES_EACH):
            obs_id = _save(store, f"worker {worker} note {n}")
            with lock:
                ids.append(obs_id)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ids) == len(set(ids)) == THREADS * SAVES_EACH
    conn = store.connection
    titles = {row[0] for row in conn.execute("SELECT title FROM observations")}
    assert titles == {f"worker {w} note {n}" for w in range(THREADS) for n in range(SAVES_EACH)}
    indexed = conn.execute(
        "SELECT count(*) FROM observations_fts WHERE observations_fts MATCH 'cache'"
    ).fetchone()[0]
    assert indexed == THREADS * SAVES_EACH
    assert len(search(store, "cache", project="alpha", limit=5)) == 5
    if semantic.of(conn) is not None and semantic.of(conn).choice().on:  # type: ignore[union-attr]
        embedded = conn.execute(
            "SELECT count(*) FROM observations WHERE embedding IS NOT NULL"
        ).fetchone()[0]
        assert embedded == THREADS * SAVES_EACH  # the batch embedded every write
    assert store.integrity_check() == "ok"


def test_writes_queued_together_commit_in_one_transaction(store: Store) -> None:
    release, holder = _held_writer(store)
    results: list[int] = []
    threads = [
        threading.Thread(target=lambda n=n: results.append(_save(store, f"queued {n}")))
        for n in range(5)
    ]
    for thread in threads:
        thread.start()
    _queued(store, 5)
    before = store.connection.execute("SELECT count(*) FROM observations").fetchone()[0]
    release.set()
    for thread in [holder, *threads]:
        thread.join()
    assert before == 0  # nothing was visible before the batch committed
    assert len(results) == 5
    batcher = store._batcher
    assert batcher is not None and batcher.batches == 2 and batcher.writes == 6


def test_a_refused_write_in_a_batch_fails_alone(store: Store) -> None:
    release, holder = _held_writer(store)
    outcomes: dict[str, object] = {}

    def good(n: int) -> None:
        outcomes[f"good {n}"] = _save(store, f"good {n}")

    def wrong_session() -> None:
        try:
            save_observation(
                store, title="orphan", content="no such session", project="alpha", session_id="x"
            )
        except EngramError as exc:
            outcomes["orphan"] = exc.code

    def half_written() -> None:
        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO sessions (id, project, directory, started_at)"
                " VALUES ('half', 'alpha', '', '2026-01-01')"
            )
            raise EngramError("test.refused", "refused after writing", "nothing")

        try:
            store.transact(work)
        except EngramError as exc:
            outcomes["half"] = exc.code

    threads = [threading.Thread(target=good, args=(0,))]
    threads += [threading.Thread(target=wrong_session), threading.Thread(target=half_written)]
    threads += [threading.Thread(target=good, args=(1,))]
    for thread in threads:
        thread.start()
    _queued(store, 4)
    release.set()
    for thread in [holder, *threads]:
        thread.join()
    assert outcomes["orphan"] == "memory.unknown_session"
    assert outcomes["half"] == "test.refused"
    conn = store.connection
    assert conn.execute("SELECT count(*) FROM sessions WHERE id = 'half'").fetchone()[0] == 0
    titles = sorted(row[0] for row in conn.execute("SELECT title FROM observations"))
    assert titles == ["good 0", "good 1"]
    batcher = store._batcher
    assert batcher is not None and batcher.batches == 2


def test_a_write_whose_commit_fails_fails_alone(store: Store) -> None:
    """A deferred constraint fails the shared COMMIT: the batch runs again write by write."""
    release, holder = _held_writer(store)
    outcomes: dict[str, object] = {}

    def dangling(conn: sqlite3.Connection) -> None:
        conn.execute("PRAGMA defer_foreign_keys = ON")
        conn.execute(
            "INSERT INTO observations (sync_id, session_id, type, title, content, project,"
            " created_at, updated_at) VALUES ('obs-x', 'no-session', 'manual', 't', 'c', 'alpha',"
            " '2026-01-01', '2026-01-01')"
        )

    def bad() -> None:
        try:
            store.transact(dangling)
        except Exception as exc:
            outcomes["bad"] = type(exc).__name__

    threads = [threading.Thread(target=bad)]
    threads += [threading.Thread(target=lambda: outcomes.update(good=_save(store, "kept")))]
    for thread in threads:
        thread.start()
    _queued(store, 2)
    release.set()
    for thread in [holder, *threads]:
        thread.join()
    assert outcomes["bad"] == "IntegrityError"
    conn = store.connection
    assert [row[0] for row in conn.execute("SELECT title FROM observations")] == ["kept"]


def test_writes_and_reads_inside_a_batched_write_nest(store: Store) -> None:
    def outer(conn: sqlite3.Connection) -> int:
        with store.read() as snapshot:
            assert snapshot.execute("SELECT count(*) FROM observations").fetchone()[0] == 0
        return _save(store, "nested save")

    obs_id = store.transact(outer)
    assert store.connection.execute(
        "SELECT title FROM observations WHERE id = ?", (obs_id,)
    ).fetchone()[0] == ("nested save")


def test_a_save_from_inside_a_read_does_not_wait_for_itself(store: Store) -> None:
    """A batch leader waits for the store's lock, which a reader holds; the reader's own save
    must not queue behind that leader (it would wait for itself)."""
    outcome: list[str] = []
    reading, leader_waits = threading.Event(), threading.Event()
    batcher = store._batcher
    assert batcher is not None

    def save_inside_a_read() -> None:
        with store.read():
            reading.set()
            assert leader_waits.wait(10)
            try:
                _save(store, "inside a read")
            except EngramError as exc:  # a transaction inside a transaction, as before
                outcome.append(exc.code)

    reader = threading.Thread(target=save_inside_a_read, daemon=True)
    reader.start()
    assert reading.wait(10)
    leader = threading.Thread(target=_save, args=(store, "by the leader"), daemon=True)
    leader.start()
    while not batcher._leading:  # the leader took its batch and waits for the lock
        time.sleep(0.001)
    time.sleep(0.05)
    leader_waits.set()
    reader.join(20)
    leader.join(20)
    assert not reader.is_alive(), "the save waited for a batch that needed its own lock"
    assert outcome and outcome[0].startswith("store.")
    titles = [row[0] for row in store.connection.execute("SELECT title FROM observations")]
    assert titles == ["by the leader"]
