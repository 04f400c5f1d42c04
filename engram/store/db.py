"""The :class:`Store`: one SQLite connection, configured, migrated, with explicit transactions.

Usage::

    store = Store.open()                 # data dir from ENGRAM_DATA_DIR / ~/.engram
    with store.write() as conn:          # BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error)
        observations.insert(conn, ...)
    with store.read() as conn:           # one consistent snapshot (BEGIN DEFERRED)
        observations.get(conn, 42)
    store.close()

Connection settings: WAL, ``busy_timeout`` 5000 ms, ``synchronous=NORMAL``, foreign keys on.
The database file is created 0600 and its directory 0700; network filesystems are refused
before any file is touched (see :mod:`engram.store.datadir`).
"""

from __future__ import annotations

import _thread  # threading.RLock is this C lock; `threading` itself costs the hook path
import contextlib
import os
import sqlite3
import time
from contextlib import contextmanager

from engram.errors import EngramError
from engram.store.datadir import DEFAULT_MOUNTINFO, data_dir_of, ensure_data_dir, plain_path
from engram.store.errors import store_error
from engram.store.migrate import migrate, migrate_check
from engram.store.semantic import attach, detach

TYPE_CHECKING = False  # typing costs the hook path more than its work
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import TypeVar

    from engram.store.checkpoints import BackgroundCheckpoints
    from engram.store.group_commit import GroupCommit

    T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000
# Extra attempts when even the busy timeout was not enough (heavy multi-process write load).
_BUSY_RETRIES = 5


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "database is locked" in text or "database is busy" in text


class Store:
    """Owner of one SQLite connection to an Engram database.

    Args:
        path: the database file (created 0600 if missing).
        migrate_schema: apply pending migrations on open (default True).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        migrate_schema: bool = True,
        in_memory: bool = False,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        env: Mapping[str, str] | None = None,
        semantic: bool = True,
    ) -> None:
        path = self._file = os.fspath(path)  # a string: pathlib costs the hook path its work
        self._in_memory = in_memory
        self._scratch: str | None = None  # a read view's temporary folder, removed on close
        self._busy_ms = busy_timeout_ms
        # A caller with a short deadline (a hook) gets one wait, not five.
        self._retries = _BUSY_RETRIES if busy_timeout_ms >= BUSY_TIMEOUT_MS else 1
        if not in_memory:
            _create_private(path)
        try:
            self._conn = sqlite3.connect(
                ":memory:" if in_memory else path,
                isolation_level=None,
                check_same_thread=False,
                timeout=busy_timeout_ms / 1000,
            )
        except sqlite3.Error as exc:
            raise EngramError(
                "store.open_failed",
                f"cannot open the database {path}: {exc}",
                "check the file permissions or set ENGRAM_DATA_DIR to another absolute path",
            ) from exc
        self._conn.row_factory = sqlite3.Row
        # One connection may serve several threads (an MCP server's worker pool): a
        # transaction must not interleave with another thread's statements.
        self._lock = _thread.RLock()
        try:
            self._configure(check_format=migrate_schema)
            if migrate_schema:
                _with_busy_retry(lambda: migrate(self._conn, checked=True), self._retries)
        except (sqlite3.OperationalError, OverflowError) as exc:
            self._conn.close()
            raise store_error(exc, path) from None
        except BaseException:
            self._conn.close()
            raise
        # Embeds what each write transaction writes, when semantic recall is on; a hook's
        # store (semantic=False) stays lexical and never loads a model.
        self._semantic = attach(self._conn, env, enabled=semantic)
        self._batcher: GroupCommit | None = None
        self._checkpoints: BackgroundCheckpoints | None = None
        self._turn: Callable[[], AbstractContextManager[object]] | None = None

    @classmethod
    def open(
        cls,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        mountinfo: str | os.PathLike[str] = DEFAULT_MOUNTINFO,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
        semantic: bool = True,
    ) -> Store:
        """Open (creating and migrating if needed) the store in ``data_dir``.

        ``data_dir`` defaults to :func:`engram.store.datadir.resolve_data_dir` of ``env``;
        ``busy_timeout_ms`` below the default also means a single wait (hooks have a deadline).
        A Go engram store is converted first (:mod:`engram.store.legacy`), with a notice on
        stderr, except for a caller with such a deadline: it gets ``store.go_format``.
        ``semantic=False``: lexical search only and no embedding (a hook's store), whatever
        the environment says.

        Raises:
            EngramError: ``store.relative_data_dir``, ``store.network_filesystem``,
                ``store.bad_data_dir``, ``store.open_failed``, ``store.schema_too_new``,
                ``store.go_format`` (a hook's deadline), ``store.unknown_schema``,
                ``store.schema_mismatch``, ``store.backup_failed``, ``store.convert_failed``.
        """
        directory = data_dir if data_dir is not None else data_dir_of(env)
        path = ensure_data_dir(directory, mountinfo)
        try:
            return cls(path, busy_timeout_ms=busy_timeout_ms, env=env, semantic=semantic)
        except EngramError as exc:
            # The first write to a Go engram store converts it (after a verified backup) —
            # not a caller with a deadline (a hook fails open instead; the next command or
            # MCP start converts it).
            if exc.code != "store.go_format" or busy_timeout_ms < BUSY_TIMEOUT_MS:
                raise
            from engram.store.legacy.migrate_go import auto_migrate

            auto_migrate(path, str(exc.details["flavour"]), busy_timeout_ms=busy_timeout_ms)
        return cls(path, busy_timeout_ms=busy_timeout_ms, env=env, semantic=semantic)

    @classmethod
    def open_for_reading(
        cls,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        env: Mapping[str, str] | None = None,
        mountinfo: str | os.PathLike[str] = DEFAULT_MOUNTINFO,
    ) -> Store:
        """Like :meth:`open`, but where no database exists yet nothing is created: the reader
        gets an empty in-memory store (read commands must not make a store, or a folder)."""
        directory = data_dir if data_dir is not None else data_dir_of(env)
        path = ensure_data_dir(directory, mountinfo, create=False)
        if not os.path.exists(path):
            return cls(path, in_memory=True, env=env)
        try:
            return cls(path, env=env)
        except EngramError as exc:
            if exc.code != "store.go_format":
                raise
            flavour = str(exc.details["flavour"])
        # A Go engram store is read through a converted scratch copy: nothing is written to it.
        from engram.store.legacy.migrate_go import read_view

        scratch, copy = read_view(path, flavour)
        store = cls(copy, env=env)
        store._scratch = scratch
        return store

    def _configure(self, *, check_format: bool) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {self._busy_ms:d}")
        try:
            if check_format:  # before WAL is switched on: a foreign file is never written
                _with_busy_retry(lambda: migrate_check(conn), self._retries)
            _with_busy_retry(
                lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone(), self._retries
            )
        except sqlite3.DatabaseError as exc:
            raise EngramError(
                "store.corrupt",
                f"{self._file} is not a usable Engram database: {exc}",
                "move the file aside (or restore a backup) and run Engram again",
            ) from exc
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")

    @property
    def path(self) -> Path:
        """The database file."""
        from pathlib import Path

        return Path(self._file)

    @property
    def folder(self) -> str:
        """The folder the database file is in (``str(store.path.parent)``, without pathlib:
        the MCP server asks on every call)."""
        return os.path.dirname(plain_path(self._file)) or "."

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection (autocommit mode) for reads that need no snapshot."""
        return self._conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: ``BEGIN IMMEDIATE``, commit on success, roll back on error.

        SQLite's operational failures (locked, full, read-only) become one-line
        errors (:func:`engram.store.errors.store_error`)."""
        conn = self._conn
        if self._in_batch():  # a write of a running batch: a savepoint inside it
            from engram.store.group_commit import savepoint

            with self._lock, savepoint(conn):
                yield conn
            return
        turn = self._turn
        with self._lock, turn() if turn is not None else contextlib.nullcontext():
            # Outside the transaction: the TEMP queue it creates must outlive a rollback.
            self._semantic.prepare_write()
            self._run(lambda: conn.execute("BEGIN IMMEDIATE"))
            try:
                yield conn
                self._semantic.finish_write()
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError | OverflowError):
                    raise store_error(exc, self._file) from None
                raise
            self._run(lambda: conn.execute("COMMIT"))
            if self._checkpoints is not None:
                self._checkpoints.committed()
        self._semantic.after_commit(self.write)

    def take_turns(self, turn: Callable[[], AbstractContextManager[object]] | None) -> None:
        """Hold ``turn()`` around each write transaction of this store (None: stop).

        For a process that shares the database with a busy writer it can ask to wait (``engram
        serve`` and its writer process): SQLite's busy wait retries on a timer, and a writer
        committing back to back can keep it waiting for seconds."""
        self._turn = turn

    def transact(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work(conn)`` in a write transaction, committed before this returns.

        The transaction is its own (:meth:`write`), or with :meth:`group_commits` on, one
        shared with the writes other threads hand over at the same moment: ``work`` runs under
        a savepoint of its own, so what it raises undoes only its own writes."""
        batcher = self._batcher
        # A caller already inside this store's lock (a read, a write) must not wait for a
        # batch whose leader needs that lock: it writes alone, as without group commit.
        if batcher is None or (self._holds_lock() and not batcher.leads_batch()):
            with self.write() as conn:
                return work(conn)
        return batcher.run(work)

    def write_together(
        self, works: Sequence[Callable[[sqlite3.Connection], T]]
    ) -> list[tuple[T | None, BaseException | None]]:
        """Run ``works`` in shared transactions (at most
        :data:`~engram.store.group_commit.MAX_BATCH` each), each under a savepoint of its
        own, as group commit runs a batch: what one raises undoes only its own writes.

        Returns:
            Each work's ``(result, None)`` once committed, or ``(None, error)``.
        """
        from engram.store.group_commit import MAX_BATCH, PendingWrite, run_batch

        outcomes: list[tuple[T | None, BaseException | None]] = []
        for start in range(0, len(works), MAX_BATCH):
            batch = [PendingWrite(work) for work in works[start : start + MAX_BATCH]]
            run_batch(self, batch)
            outcomes.extend((item.result, item.error) for item in batch)
        return outcomes

    def vectors_for(self, texts: list[str]) -> tuple[str, list[bytes]] | None:
        """``(model label, vectors)`` of memory texts by this store's loaded embedder, for a
        write in another process (:meth:`take_vectors` there); None when there is none to
        use (see :meth:`engram.store.semantic.SemanticRecall.text_vectors`)."""
        return self._semantic.text_vectors(texts)

    def take_vectors(self, label: str, by_text: dict[str, bytes] | None) -> None:
        """Vectors made elsewhere for texts this store's next writes store (None: forget):
        rows with those texts take them instead of being embedded again, when ``label`` is
        this store's model."""
        self._semantic.offer_vectors(label, by_text)

    def warm_semantic(self) -> None:
        """Load the embedding model now when semantic recall is on (a server, in the
        background, so that :meth:`vectors_for` has it)."""
        self._semantic.warm()

    def group_commits(self, on: bool = True) -> None:
        """Let concurrent :meth:`transact` calls share transactions (``engram serve``: many
        clients write at once; see :mod:`engram.store.group_commit`), with WAL checkpoints run
        by a thread of their own instead of by the writer (:mod:`engram.store.checkpoints`)."""
        from engram.store import checkpoints
        from engram.store.group_commit import GroupCommit

        self._batcher = GroupCommit(self) if on else None
        with self._lock:
            if self._checkpoints is not None:
                self._checkpoints.stop()
                self._checkpoints = None
            if on and not self._in_memory:
                self._checkpoints = checkpoints.BackgroundCheckpoints(
                    self._file, busy_timeout_ms=self._busy_ms
                )
            pages = checkpoints.BACKSTOP_PAGES if self._checkpoints else checkpoints.DEFAULT_PAGES
            checkpoints.set_autocheckpoint(self._conn, pages)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees one consistent snapshot."""
        conn = self._conn
        if self._in_batch():  # inside a batch's transaction: its snapshot already
            with self._lock:
                yield conn
            return
        with self._lock:
            self._run(lambda: conn.execute("BEGIN DEFERRED"))
            try:
                yield conn
            except (sqlite3.OperationalError, OverflowError) as exc:
                raise store_error(exc, self._file) from None
            finally:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("COMMIT")

    def _holds_lock(self) -> bool:
        """Whether the calling thread is inside this store's lock (a read, a write)."""
        owned: Callable[[], bool] = getattr(self._lock, "_is_owned")  # noqa: B009 (untyped)
        return owned()

    def _in_batch(self) -> bool:
        """Whether the caller is a write the group-commit writer runs inside its transaction."""
        batcher = self._batcher
        return batcher is not None and batcher.leads_batch() and self._conn.in_transaction

    def _run(self, action: Callable[[], T]) -> T:
        """``action`` with busy retries; an operational failure becomes its one-line error."""
        try:
            return _with_busy_retry(action, self._retries)
        except sqlite3.OperationalError as exc:
            with contextlib.suppress(sqlite3.Error):
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
            raise store_error(exc, self._file) from None

    @contextmanager
    def locked(self) -> Iterator[sqlite3.Connection]:
        """The connection for a few independent reads (no snapshot; each statement sees the
        latest commit), kept from other threads' transactions. Cheaper than :meth:`read`."""
        with self._lock:
            yield self._conn

    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` — ``"ok"`` for a healthy database."""
        rows = self._conn.execute("PRAGMA integrity_check").fetchall()
        return "\n".join(str(row[0]) for row in rows)

    def close(self) -> None:
        """Close the connection (idempotent); a read view's scratch copy goes with it."""
        if self._checkpoints is not None:  # first: the last connection to close cleans the WAL
            self._checkpoints.stop()
            self._checkpoints = None
        detach(self._conn)
        self._conn.close()
        if self._scratch is not None:
            import shutil

            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    @property
    def is_read_view(self) -> bool:
        """True for a converted scratch copy of a Go engram store (see :meth:`open_for_reading`)."""
        return self._scratch is not None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _create_private(path: str) -> None:
    """Create the database file 0600 before SQLite does (WAL/SHM files inherit its mode)."""
    if os.path.exists(path):
        return
    try:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
    except OSError as exc:
        raise EngramError(
            "store.open_failed",
            f"cannot create the database {path}: {exc.strerror}",
            "check the directory permissions or set ENGRAM_DATA_DIR to another absolute path",
        ) from exc
    os.close(fd)


def _with_busy_retry(action: Callable[[], T], retries: int = _BUSY_RETRIES) -> T:
    """Run ``action``, retrying with backoff when SQLite reports the database locked."""
    for attempt in range(retries):
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or attempt == retries - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")
