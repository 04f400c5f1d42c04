"""WAL checkpoints in the background: with group commit on (``engram serve``), the database
file receives committed writes without the writer copying them back itself."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from pathlib import Path

from engram.memory.save import save_observation
from engram.store.db import Store
from engram.testing import Sandbox


def _save(store: Store, title: str) -> None:
    save_observation(store, title=title, content=f"body of {title}", project="alpha")


def _titles_in_file_copy(db: Path, scratch: Path) -> set[str]:
    """The titles a copy of the database file alone holds (no ``-wal``): what a file-level
    backup taken at this moment would restore."""
    copy = scratch / "copy.db"
    shutil.copyfile(db, copy)
    conn = sqlite3.connect(copy)
    try:
        return {row[0] for row in conn.execute("SELECT title FROM observations")}
    except sqlite3.DatabaseError:  # not checkpointed yet (no schema), or copied mid-checkpoint
        return set()
    finally:
        conn.close()


def _checkpointer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "engram-wal-checkpoints"]


def test_writes_reach_the_database_file_while_the_store_stays_open(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    with Store.open(sandbox.data_dir) as store:
        store.group_commits()
        titles = {f"note {n}" for n in range(5)}  # far below the 1,000 pages of a checkpoint
        for title in sorted(titles):
            _save(store, title)
        deadline = time.monotonic() + 10
        found: set[str] = set()
        while time.monotonic() < deadline:
            found = _titles_in_file_copy(store.path, tmp_path)
            if titles <= found:
                break
            time.sleep(0.05)
        assert titles <= found
        assert store.integrity_check() == "ok"


def test_concurrent_writers_with_background_checkpoints_lose_nothing(sandbox: Sandbox) -> None:
    with Store.open(sandbox.data_dir) as store:
        store.group_commits()

        def writer(worker: int) -> None:
            for n in range(15):
                _save(store, f"worker {worker} note {n}")
                time.sleep(0.002)  # spread over several checkpoint rounds

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    with Store.open(sandbox.data_dir) as reopened:
        count = reopened.connection.execute("SELECT count(*) FROM observations").fetchone()[0]
        assert count == 8 * 15
        assert reopened.integrity_check() == "ok"


def test_closing_the_store_ends_the_thread_and_leaves_no_wal(sandbox: Sandbox) -> None:
    store = Store.open(sandbox.data_dir)
    store.group_commits()
    _save(store, "one note")
    assert len(_checkpointer_threads()) == 1
    store.close()
    assert _checkpointer_threads() == []
    # The store's connection was the last one open: SQLite folded the WAL in and removed it.
    assert not Path(f"{store.path}-wal").exists()
    with Store.open(sandbox.data_dir) as reopened:
        titles = [row[0] for row in reopened.connection.execute("SELECT title FROM observations")]
        assert titles == ["one note"]


def test_group_commit_off_gives_checkpoints_back_to_the_writer(sandbox: Sandbox) -> None:
    with Store.open(sandbox.data_dir) as store:
        store.group_commits()
        store.group_commits(False)
        assert _checkpointer_threads() == []
        pages = store.connection.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        assert pages == 1000
        _save(store, "after")
        assert store.connection.execute("SELECT count(*) FROM observations").fetchone()[0] == 1
