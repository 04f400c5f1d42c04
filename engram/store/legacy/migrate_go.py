"""The two ways into a Go store: convert it in place, or read a converted scratch copy.

:func:`migrate_in_place` (``engram migrate``, and the first command that writes) takes the
write lock, backs the triplet up beside the database (:mod:`.backup`), converts it
(:mod:`.convert`) and commits — one transaction, so a failure leaves the file as it was.
:func:`read_view` copies the database (SQLite's online backup, a consistent snapshot) into a
private temporary folder and converts the copy: read commands answer from it and the user's
file is not written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import sys
import tempfile
from dataclasses import dataclass, field
from typing import BinaryIO

from engram.errors import EngramError
from engram.store.legacy.backup import back_up
from engram.store.legacy.convert import ConversionError, ConversionReport, convert
from engram.store.legacy.detect import go_flavour, open_read_only


@dataclass
class MigrationResult:
    """A finished in-place conversion: the backup's path and what was copied."""

    path: str
    backup: str
    report: ConversionReport
    backup_files: list[str] = field(default_factory=list)


def _notice(text: str) -> None:
    sys.stderr.write(f"engram: {text}\n")
    sys.stderr.flush()


def migrate_in_place(path: str, *, busy_timeout_ms: int = 5000) -> MigrationResult | None:
    """Back up and convert the Go store at ``path``; None when it is no longer a Go store
    (another process converted it while we waited for the lock).

    Raises:
        EngramError: ``store.backup_failed``, ``store.convert_failed``, ``store.busy``...
    """
    conn = sqlite3.connect(path, isolation_level=None, timeout=busy_timeout_ms / 1000)
    held: list[BinaryIO] = []  # the copied files, closed only once the lock is given up
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("BEGIN IMMEDIATE")
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        flavour = go_flavour(conn)
        if flavour is None or version != 0:
            conn.execute("ROLLBACK")
            return None
        backup = back_up(conn, path, held)
        report = _convert(conn, flavour, path)
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        from engram.store.errors import store_error

        raise store_error(exc, path) from None
    finally:
        with contextlib.suppress(sqlite3.Error):
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        conn.close()
        for handle in held:
            handle.close()
    return MigrationResult(path, backup, report)


def _convert(conn: sqlite3.Connection, flavour: str, path: str) -> ConversionReport:
    try:
        return convert(conn, flavour)
    except (ConversionError, sqlite3.IntegrityError, sqlite3.DatabaseError) as exc:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc).lower():
            raise
        raise EngramError(
            "store.convert_failed",
            f"{path} could not be converted ({exc}); it was left as it was",
            "report this with the Go tool's version; meanwhile `engram export` from the Go "
            "tool and `engram import` that file",
        ) from None


def auto_migrate(path: str, flavour: str, *, busy_timeout_ms: int = 5000) -> None:
    """The first write to a Go store: say so, then convert it in place."""
    _notice(
        f"{path} is a Go engram store ({flavour} schema): converting it to this Engram's "
        "format first (a verified backup is kept beside it; see docs/migrating.md)"
    )
    result = migrate_in_place(path, busy_timeout_ms=busy_timeout_ms)
    if result is not None:
        _notice(f"converted; the Go database was backed up to {result.backup}")


def read_view(path: str, flavour: str) -> tuple[str, str]:
    """A converted copy of the Go store at ``path``: ``(scratch folder, database path)``.

    The caller removes the scratch folder when done (:meth:`Store.close` does)."""
    _notice(
        f"{path} is a Go engram store ({flavour} schema): reading a converted copy; "
        "run `engram migrate` to convert it in place (a backup is kept)"
    )
    scratch = tempfile.mkdtemp(prefix="engram-go-view-")
    copy = os.path.join(scratch, "engram.db")
    try:
        source = open_read_only(path)
        target = sqlite3.connect(copy, isolation_level=None)
        try:
            source.backup(target)
            target.execute("PRAGMA foreign_keys = OFF")
            target.execute("BEGIN IMMEDIATE")
            convert(target, flavour)
            target.execute("COMMIT")
        finally:
            source.close()
            target.close()
    except (ConversionError, sqlite3.Error) as exc:
        shutil.rmtree(scratch, ignore_errors=True)
        raise EngramError(
            "store.convert_failed",
            f"{path} is a Go engram store that could not be read ({exc}); it was not changed",
            "export it with the Go tool (`engram export`) and `engram import` that file",
        ) from None
    return scratch, copy
