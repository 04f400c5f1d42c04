"""A dated copy of the database triplet (db, -wal, -shm) beside it, verified before use.

The copy is taken while the caller holds the write lock (``BEGIN IMMEDIATE``), so no writer
changes the files under it; the WAL is copied whole, so the copy holds every committed row.
Verification opens the copy and compares its integrity and its row counts with the source's.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from typing import BinaryIO

from engram.errors import EngramError

SUFFIXES = ("", "-wal", "-shm")
COUNTED_TABLES = ("sessions", "observations", "user_prompts")


def row_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """The row count of each table the verification compares (those that exist)."""
    present = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return {
        table: int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        for table in COUNTED_TABLES
        if table in present
    }


def backup_name(path: str, now: float | None = None) -> str:
    """``<dir>/engram-go-backup-YYYYMMDDTHHMMSSZ.db`` beside ``path`` (``-2``... if taken)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now))
    folder = os.path.dirname(os.path.abspath(path))
    candidate, n = os.path.join(folder, f"engram-go-backup-{stamp}.db"), 1
    while any(os.path.exists(candidate + s) for s in SUFFIXES):
        n += 1
        candidate = os.path.join(folder, f"engram-go-backup-{stamp}-{n}.db")
    return candidate


def copy_triplet(path: str, target: str, held: list[BinaryIO]) -> list[str]:
    """Copy ``path`` and its ``-wal``/``-shm`` (where present) to ``target``; private files.

    The source files stay open in ``held``: closing a descriptor of the database would drop
    this process's POSIX locks on it — the write lock the caller holds — so the caller closes
    them after its connection is closed."""
    written = []
    for suffix in SUFFIXES:
        source = path + suffix
        if not os.path.exists(source):
            continue
        reader = open(source, "rb")  # noqa: SIM115 (closed by the caller, see above)
        held.append(reader)
        fd = os.open(target + suffix, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as writer:
            shutil.copyfileobj(reader, writer, 1 << 20)
            writer.flush()
            os.fsync(writer.fileno())
        written.append(target + suffix)
    return written


def verify_copy(target: str, expected: dict[str, int]) -> None:
    """Raise ``store.backup_failed`` unless the copy is sound and holds ``expected`` rows."""
    from engram.store.legacy.detect import open_read_only

    try:
        conn = open_read_only(target)  # read-only: closing it does not fold the -wal copy in
        try:
            verdict = str(conn.execute("PRAGMA integrity_check").fetchone()[0])
            found = row_counts(conn)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        verdict, found = str(exc), {}
    if verdict != "ok" or found != expected:
        raise EngramError(
            "store.backup_failed",
            f"the backup {target} did not verify ({verdict}; rows {found} of {expected}); "
            "the database was not converted",
            "free disk space and check the data directory, then run `engram migrate` again",
        )


def back_up(conn: sqlite3.Connection, path: str, held: list[BinaryIO]) -> str:
    """Copy and verify the triplet of ``path`` (``conn`` holds its write lock); the copy's name.

    ``held`` receives the open source files (see :func:`copy_triplet`)."""
    expected = row_counts(conn)
    target = backup_name(path)
    try:
        copy_triplet(path, target, held)
    except OSError as exc:
        for suffix in SUFFIXES:
            if os.path.exists(target + suffix):
                os.unlink(target + suffix)
        raise EngramError(
            "store.backup_failed",
            f"cannot write the backup {target}: {exc.strerror}; the database was not converted",
            "free disk space and check the data directory's permissions, then retry",
        ) from None
    verify_copy(target, expected)
    return target
