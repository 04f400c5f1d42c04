"""``CloudStore``: the psycopg 3 connection pool shared by the app, migrated on open.

Usage::

    store = CloudStore.open(url)             # opens the pool, applies pending migrations
    with store.transaction() as conn:        # one unit of work: commit, or roll back on error
        mutations.pull_page(conn, project="p", since=0, limit=100, max_bytes=1 << 20)
    store.close()
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from engram.cloud.store.migrate import migrate
from engram.errors import EngramError

Conn = psycopg.Connection[dict[str, Any]]

# A connection that finished a transaction this recently is handed out without the extra
# round trip of a check; one idle longer (or any, once a connection broke) is checked first.
CHECK_AFTER_IDLE_S = 1.0


def _unreachable(url: str, exc: Exception) -> EngramError:
    where = url.split("@")[-1].split("?")[0]
    return EngramError(
        "cloud.database_unreachable",
        f"cannot reach Postgres at {where}: {str(exc).strip().splitlines()[0] if str(exc) else exc}",
        "check ENGRAM_DATABASE_URL and that the database server is running",
    )


class CloudStore:
    """A pool of connections to the cloud database.

    Args:
        url: a libpq connection string or URL (``ENGRAM_DATABASE_URL``).
        max_size: the most connections this process opens (default 10).
    """

    def __init__(self, url: str, *, max_size: int = 10) -> None:
        self.url = url
        # When each pooled connection last ended a transaction in working order, and when
        # one was last found broken (monotonic seconds).
        self._healthy_at: weakref.WeakKeyDictionary[Conn, float] = weakref.WeakKeyDictionary()
        self._broken_at = 0.0
        self.pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            min_size=1,
            max_size=max_size,
            kwargs={"row_factory": dict_row},
            open=False,
            # After a Postgres restart the dead connections are replaced instead of failing
            # requests: see _check.
            check=self._check,
            timeout=10.0,
            name="engram-cloud",
        )

    @classmethod
    def open(cls, url: str, *, max_size: int = 10) -> CloudStore:
        """Open the pool, check the database answers, apply pending migrations.

        Raises:
            EngramError: ``cloud.database_unreachable`` when Postgres does not answer.
        """
        try:
            # One direct connection first: a wrong URL fails fast with libpq's own reason.
            with psycopg.connect(url, connect_timeout=10, row_factory=dict_row) as conn:
                migrate(conn)
        except psycopg.Error as exc:
            raise _unreachable(url, exc) from exc
        store = cls(url, max_size=max_size)
        try:
            store.pool.open(wait=True, timeout=15.0)
        except PoolTimeout as exc:
            store.pool.close()
            raise _unreachable(url, exc) from exc
        return store

    @contextmanager
    def transaction(self) -> Iterator[Conn]:
        """One unit of work on a pooled connection: commit on success, roll back on error.
        What the work queued with :func:`send_with_commit` travels with the ``COMMIT``."""
        with self.pool.connection() as conn:
            try:
                with _committing(conn):
                    yield conn
            finally:
                if conn.broken or conn.closed:
                    self._broken_at = time.monotonic()
                else:
                    self._healthy_at[conn] = time.monotonic()

    def _check(self, conn: Conn) -> None:
        """The pool's check before handing ``conn`` out: a round trip only when the connection
        has been idle over :data:`CHECK_AFTER_IDLE_S`, or another broke since its last use."""
        healthy = self._healthy_at.get(conn)
        recent = healthy is not None and healthy > self._broken_at
        if not recent or time.monotonic() - (healthy or 0.0) >= CHECK_AFTER_IDLE_S:
            ConnectionPool.check_connection(conn)

    def ping(self) -> bool:
        """True when the database answers ``SELECT 1``."""
        try:
            with self.pool.connection(timeout=5.0) as conn:
                conn.execute("SELECT 1")
            return True
        except (psycopg.Error, PoolTimeout):
            return False

    def close(self) -> None:
        """Close every pooled connection."""
        self.pool.close()

    def __enter__(self) -> CloudStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# Per connection in a CloudStore.transaction: the statements to send with its COMMIT.
_WITH_COMMIT: weakref.WeakKeyDictionary[Conn, list[Callable[[Conn], object]]] = (
    weakref.WeakKeyDictionary()
)


def send_with_commit(conn: Conn, send: Callable[[Conn], object]) -> None:
    """Run ``send(conn)`` (statements whose answers nobody reads: an audit row, a token's
    last use, a push's tail) when the transaction commits, in the ``COMMIT``'s own round
    trip; on a rollback it never runs. Outside a :meth:`CloudStore.transaction` it runs now.

    On a loaded machine every round trip waits for the scheduler twice, so statements that
    need no answer before the commit go with it. One that fails there fails the commit:
    nothing of the transaction is kept, and the error is raised."""
    queued = _WITH_COMMIT.get(conn)
    if queued is None:
        send(conn)
    else:
        queued.append(send)


def _first_failure(aborted: psycopg.errors.PipelineAborted) -> psycopg.Error:
    """The statement's error that aborted a pipeline, rather than the abort itself. Which
    of the two psycopg raises depends on whether the answers after the failed statement (the
    ``COMMIT``'s) had arrived when it read the failure's: if not, it reads them as the
    pipeline ends, and that read raises the abort with the failure as its context."""
    failure = aborted.__context__
    if isinstance(failure, psycopg.Error) and not isinstance(
        failure, psycopg.errors.PipelineAborted
    ):
        return failure
    return aborted


@contextmanager
def _committing(conn: Conn) -> Iterator[None]:
    """``conn.transaction()``, but ended inside a pipeline when statements wait for the
    commit (:func:`send_with_commit`): they and the ``COMMIT`` are one round trip. (The
    pipeline cannot span the work: a ``COPY`` runs outside one.)"""
    queued: list[Callable[[Conn], object]] = []
    _WITH_COMMIT[conn] = queued
    transaction = conn.transaction()
    try:
        transaction.__enter__()
        try:
            yield
        except BaseException as exc:
            queued.clear()
            if not transaction.__exit__(type(exc), exc, exc.__traceback__):
                raise
            return
        if not queued:
            transaction.__exit__(None, None, None)
            return
        try:
            with conn.pipeline():
                try:
                    for send in queued:
                        send(conn)
                except BaseException as exc:
                    transaction.__exit__(type(exc), exc, exc.__traceback__)
                    raise
                transaction.__exit__(None, None, None)  # COMMIT, sent as the pipeline ends
        except psycopg.errors.PipelineAborted as aborted:
            raise _first_failure(aborted) from None
    finally:
        _WITH_COMMIT.pop(conn, None)
