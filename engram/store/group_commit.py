"""Group commit: concurrent writes of one process share a transaction, each in its savepoint.

``engram serve`` answers many clients at once, and every save used to pay for a transaction of
its own: ``BEGIN IMMEDIATE``, the FTS index's segment flush, the WAL frames of the pages it
touched and the embedding of one text. With group commit (:meth:`Store.group_commits
<engram.store.db.Store.group_commits>`), a write handed to :meth:`Store.transact
<engram.store.db.Store.transact>` joins the writes queued at that moment:

- the first thread that finds no batch running *leads*: it takes everything queued (its own
  write first, at most :data:`MAX_BATCH`), runs each write under its own ``SAVEPOINT`` inside
  one ``BEGIN IMMEDIATE`` transaction, commits, and wakes the writers of the batch;
- writes arriving meanwhile wait; when the batch is done, the leader hands the lead to the
  oldest waiting write, whose thread runs the next batch (no thread of its own, no timer);
- a write that raises is rolled back to its savepoint and raises in its own thread: the other
  writes of the batch are kept;
- :meth:`~GroupCommit.run` returns only after the ``COMMIT`` that made the write durable (WAL:
  a process killed right after loses nothing it acknowledged);
- a failed ``COMMIT`` runs each write of the batch again in a transaction of its own, so
  only a write that cannot commit fails (a full disk fails them all: none was acknowledged).

Why a leader and not a writer thread of its own: both were measured (bench/writers_bench.py,
docs/performance.md). The batches were as large and the CPU per write the same, but with a
single writer thread every save's Python work runs on that one thread; with a leader, the
other requests' threads parse and draft while the leader's SQLite statements release the GIL,
and 16 clients got 1.2-2.7x the writes per second of the writer thread (five paired runs).
``engram serve`` now runs :func:`run_batch` in a writer process of its own
(:mod:`engram.http.writer_process`), where a second core does what the second thread could not.
"""

from __future__ import annotations

import _thread
import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from engram.store.errors import store_error

if TYPE_CHECKING:
    from engram.store.db import Store

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]

# Writes per transaction at most: bounds the memory a batch holds and a batch's latency.
MAX_BATCH = 64
_SAVEPOINT = "engram_group_write"


class PendingWrite(Generic[T]):
    """One queued write: the work, and what it came to (its thread sleeps on ``wake``)."""

    __slots__ = ("error", "lead", "result", "wake", "work")

    def __init__(self, work: Work[T]) -> None:
        self.work = work
        self.wake = _thread.allocate_lock()
        self.wake.acquire()
        self.lead = False
        self.result: T | None = None
        self.error: BaseException | None = None

    def outcome(self) -> T:
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


class GroupCommit:
    """Leader-run group commit over one :class:`~engram.store.db.Store` (module docstring).

    Attributes:
        batches / writes: how many transactions ran and how many writes they held (the
            bench prints writes per batch).
    """

    def __init__(self, store: Store, *, max_batch: int = MAX_BATCH) -> None:
        self._store = store
        self._max = max(1, max_batch)
        self._mutex = _thread.allocate_lock()
        self._queue: list[PendingWrite[Any]] = []
        self._leading = False
        self._batch_thread: int | None = None
        self.batches = 0
        self.writes = 0

    def leads_batch(self) -> bool:
        """Whether the caller is running a batch (a write inside a write: nest it)."""
        return self._batch_thread == _thread.get_ident()

    def pending(self) -> int:
        """Writes handed over and not yet taken into a batch."""
        return len(self._queue)

    def run(self, work: Work[T]) -> T:
        """Run ``work(conn)`` in a shared write transaction; its result once committed.

        Raises:
            Exception: what ``work`` raised (its writes rolled back, the batch's others kept),
                or the one-line error of a failed commit.
        """
        if self._batch_thread == _thread.get_ident():  # a write inside a write: nest it
            return _nested(self._store.connection, work)
        item: PendingWrite[T] = PendingWrite(work)
        with self._mutex:
            self._queue.append(item)
            lead = not self._leading
            self._leading = True
        if not lead:
            item.wake.acquire()  # woken when the batch holding it committed, or to lead
            if not item.lead:
                return item.outcome()
        self._lead(item)
        return item.outcome()

    def _lead(self, own: PendingWrite[Any]) -> None:
        with self._mutex:
            batch = self._queue[: self._max]
            del self._queue[: len(batch)]
        try:
            self._batch_thread = _thread.get_ident()
            run_batch(self._store, batch)
        finally:
            self._batch_thread = None
            self.batches += 1
            self.writes += len(batch)
            with self._mutex:
                successor = self._queue[0] if self._queue else None
                self._leading = successor is not None
            if successor is not None:
                successor.lead = True
                successor.wake.release()
            for item in batch:
                if item is not own:
                    item.wake.release()


def run_batch(store: Store, batch: list[PendingWrite[Any]]) -> None:
    """Run every write of ``batch`` in one transaction, each under its own savepoint; record
    each one's result or error. Writes SQLite rolled back with a whole transaction (it does so
    on a full disk or an I/O error) run again without the write that failed; when the commit
    itself fails, each write runs again in a transaction of its own, so only the writes that
    cannot commit fail."""
    ran = False
    try:
        with store.write() as conn:
            for index, item in enumerate(batch):
                if not _attempt(conn, item, store):
                    lost = batch[:index] + batch[index + 1 :]
                    raise _TransactionLost(lost)
            ran = True
    except _TransactionLost as lost:
        for item in lost.batch:
            item.result, item.error = None, None
        if lost.batch:
            run_batch(store, lost.batch)
    except Exception as exc:  # BEGIN or COMMIT failed: nothing of the batch is stored
        if ran and len(batch) > 1:  # one write may fail the COMMIT (a deferred constraint)
            for item in batch:
                item.result, item.error = None, None
                run_batch(store, [item])
            return
        for item in batch:
            item.result = None
            item.error = item.error or exc
    except BaseException as exc:  # the thread is interrupted: tell every caller
        for item in batch:
            item.result, item.error = None, exc


class _TransactionLost(Exception):
    def __init__(self, batch: list[PendingWrite[Any]]) -> None:
        super().__init__("the transaction was rolled back")
        self.batch = batch


def _attempt(conn: sqlite3.Connection, item: PendingWrite[Any], store: Store) -> bool:
    """Run one write under a savepoint; False when its failure took the transaction with it."""
    conn.execute(f"SAVEPOINT {_SAVEPOINT}")
    try:
        item.result = item.work(conn)
    except Exception as exc:
        item.error = (
            store_error(exc, store.path)
            if isinstance(exc, sqlite3.OperationalError | OverflowError)
            else exc
        )
        if not conn.in_transaction:
            return False
        conn.execute(f"ROLLBACK TO {_SAVEPOINT}")
    conn.execute(f"RELEASE {_SAVEPOINT}")
    return True


@contextlib.contextmanager
def savepoint(conn: sqlite3.Connection, name: str = "engram_nested_write") -> Iterator[None]:
    """A write started by a write of the running batch: a savepoint inside its savepoint,
    rolled back alone when it raises."""
    conn.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        conn.execute(f"ROLLBACK TO {name}")
        conn.execute(f"RELEASE {name}")
        raise
    conn.execute(f"RELEASE {name}")


def _nested(conn: sqlite3.Connection, work: Work[T]) -> T:
    with savepoint(conn):
        return work(conn)
