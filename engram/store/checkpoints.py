"""WAL checkpoints from a thread of their own, off the path of a store's writes.

In WAL mode a commit appends pages to the ``-wal`` file, and by default the connection that
commits copies them back into the database (a checkpoint) once the WAL holds 1,000 pages: about
a thousand page writes and two ``fsync`` calls, in the middle of whichever write crossed the
line. With group commit (``engram serve``), that writer is the leader of a batch, so every
write queued behind it waits for the checkpoint too.

:class:`BackgroundCheckpoints` moves that work to a thread with its own connection:

- after each commit, the store calls :meth:`~BackgroundCheckpoints.committed` (setting an
  event, nothing more);
- the thread wakes, lets :data:`INTERVAL_S` of further commits gather, and runs ``PRAGMA
  wal_checkpoint(PASSIVE)``, which copies what it can without waiting for readers or writers
  (SQLite lets a checkpoint run beside a write transaction);
- the store's own connection still checkpoints once the WAL holds :data:`BACKSTOP_PAGES`
  pages, so the WAL stays bounded if this thread falls behind.

What a commit promises is unchanged: a committed transaction is in the WAL before the commit
returns, and a checkpoint only moves it into the database file.
"""

from __future__ import annotations

import sqlite3
import threading

# How long the thread lets commits gather before one checkpoint copies them all.
INTERVAL_S = 0.05
# The store's own connection checkpoints past this many WAL pages (SQLite's default is 1,000).
BACKSTOP_PAGES = 10_000
DEFAULT_PAGES = 1_000


class BackgroundCheckpoints:
    """A daemon thread checkpointing the WAL of the database at ``path`` after commits.

    Args:
        path: the database file (its store's connection keeps writing to it).
        busy_timeout_ms: how long the thread's connection waits for a lock.
    """

    def __init__(self, path: str, *, busy_timeout_ms: int = 5000) -> None:
        self._conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=busy_timeout_ms / 1000
        )
        self._pending = threading.Event()
        self._stopping = threading.Event()
        self.checkpoints = 0  # how many ran (tests and the bench read it)
        self._thread = threading.Thread(
            target=self._run, name="engram-wal-checkpoints", daemon=True
        )
        self._thread.start()

    def committed(self) -> None:
        """A transaction was committed: checkpoint soon (cheap when one is already due)."""
        if not self._pending.is_set():
            self._pending.set()

    def stop(self) -> None:
        """Run a last checkpoint, end the thread and close its connection (idempotent)."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._pending.set()
        self._thread.join()
        self._conn.close()

    def _run(self) -> None:
        while True:
            self._pending.wait()
            stopping = self._stopping.wait(INTERVAL_S)  # let further commits gather
            self._pending.clear()  # a commit from now on asks for the next round
            try:
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                self.checkpoints += 1
            except sqlite3.Error:
                pass  # the next commit asks again; the writer's backstop still holds
            if stopping:
                return


def set_autocheckpoint(conn: sqlite3.Connection, pages: int) -> None:
    """How many WAL pages make ``conn`` checkpoint after its own commit (0: never)."""
    conn.execute(f"PRAGMA wal_autocheckpoint = {int(pages):d}").fetchall()
