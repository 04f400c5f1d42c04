"""SQLite's failures a user can meet, as one-line errors with a remedy.

A lock held past the busy timeout, a full disk, a read-only database or folder, a value SQLite
cannot hold (an id of 30 digits): each becomes an :class:`~engram.errors.EngramError` whose code
says which (``store.busy``, ``store.disk_full``, ``store.read_only``, ``store.value_out_of_range``,
``store.io_error``), so the CLI prints one line and the MCP server answers a named tool error
instead of a traceback or ``server.internal``.
"""

from __future__ import annotations

import os
import sqlite3

from engram.errors import EngramError


def store_error(exc: sqlite3.Error | OverflowError, path: str | os.PathLike[str]) -> EngramError:
    """The user-facing error for ``exc`` raised while using the database at ``path``."""
    if isinstance(exc, OverflowError):
        return EngramError(
            "store.value_out_of_range",
            f"a number is too large for the database ({exc})",
            "use an id or count between 1 and 9223372036854775807",
        )
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return EngramError(
            "store.busy",
            f"the database {path} stayed locked by another process past the busy timeout",
            "retry in a moment; if it persists, stop the process holding it "
            f"(`fuser {path}` names it)",
        )
    if "full" in text:
        return EngramError(
            "store.disk_full",
            f"no space left to write the database {path}; nothing was saved",
            "free disk space (or raise the file size limit), then retry",
        )
    if "readonly" in text or "read-only" in text or "read only" in text:
        return EngramError(
            "store.read_only",
            f"the database {path} (or its folder) is read-only; nothing was saved",
            "make the data directory and engram.db writable by you, or set ENGRAM_DATA_DIR",
        )
    if "unable to open" in text:
        return EngramError(
            "store.open_failed",
            f"cannot open the database {path}: {exc}",
            "check the data directory's permissions, or set ENGRAM_DATA_DIR",
        )
    if "i/o" in text or "disk" in text:
        return EngramError(
            "store.io_error",
            f"writing the database {path} failed ({exc}: a full disk, a file size limit or a "
            "failing disk); nothing was saved",
            "free disk space and check the disk, then retry",
        )
    return EngramError(
        "store.io_error",
        f"the database {path} could not be used: {exc}",
        "check the disk and the data directory's permissions, then retry",
    )


def as_user_error(exc: BaseException) -> EngramError | None:
    """:func:`store_error` for a SQLite failure that escaped a transaction (None otherwise)."""
    if not isinstance(exc, sqlite3.OperationalError | sqlite3.DatabaseError | OverflowError):
        return None
    if isinstance(exc, sqlite3.IntegrityError | sqlite3.ProgrammingError):
        return None  # a bug, not something the user can act on
    from engram.store.datadir import DB_FILENAME, data_dir_of

    try:
        path = os.path.join(data_dir_of(), DB_FILENAME)
    except EngramError:
        path = "engram.db"
    return store_error(exc, path)
