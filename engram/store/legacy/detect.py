"""Recognise the Go ``engram``'s database, and refuse any database we cannot read.

The Go tool never sets ``PRAGMA user_version``; its schema grew in place (``ALTER TABLE ADD
COLUMN``), so the flavour is told by columns: v0.1.x observations have no ``sync_id``, 2.x
ones do (with topic keys, revisions, soft deletes, pins, and the sync tables of the seed's
"Database Schema" section).
"""

from __future__ import annotations

import sqlite3

from engram.errors import EngramError

# Columns the Go tool's store has had from v0.1.0 on; without them it is not one we can read.
GO_CORE = {
    "sessions": {"id", "project", "directory", "started_at"},
    "observations": {"id", "session_id", "type", "title", "content", "created_at"},
    "user_prompts": {"id", "session_id", "content", "created_at"},
}
# Tables only our schema has: their presence means an Engram store, whatever user_version says.
OURS = {"governed_memories", "store_meta", "sync_device", "observation_titles"}


class GoStoreError(EngramError):
    """The database is the Go ``engram``'s: ``flavour`` is ``"0.1.x"`` or ``"2.x"``."""

    def __init__(self, path: str, flavour: str) -> None:
        super().__init__(
            "store.go_format",
            f"{path} is a Go engram store ({flavour} schema), not yet converted",
            "run `engram migrate` to convert it (a dated backup is kept beside it)",
            flavour=flavour,
        )
        self.path = path
        self.flavour = flavour


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The column names of ``table`` (empty when it does not exist)."""
    return {str(row[1]) for row in conn.execute(f"PRAGMA table_xinfo({table})")}


def tables(conn: sqlite3.Connection) -> set[str]:
    """Every ordinary and virtual table of the main database."""
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(row[0]) for row in rows}


def go_flavour(conn: sqlite3.Connection) -> str | None:
    """``"0.1.x"`` or ``"2.x"`` for a Go engram store, None for anything else."""
    present = tables(conn)
    if present & OURS:
        return None
    for table, needed in GO_CORE.items():
        if table not in present or not needed <= columns(conn, table):
            return None
    return "2.x" if "sync_id" in columns(conn, "observations") else "0.1.x"


def open_read_only(path: str) -> sqlite3.Connection:
    """A read-only connection to the database file ``path`` (nothing is written to it)."""
    import os
    from urllib.parse import quote

    return sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro", uri=True)


def database_path(conn: sqlite3.Connection) -> str:
    """The main database's file name, for messages."""
    for row in conn.execute("PRAGMA database_list"):
        if row[1] == "main":
            return str(row[2]) or ":memory:"
    return ":memory:"


def refuse_foreign(conn: sqlite3.Connection, version: int) -> None:
    """Raise the one-line error for a database whose schema is not this Engram's ``version``.

    Raises:
        GoStoreError: ``store.go_format`` — a Go engram store (convert it with ``engram migrate``).
        EngramError: ``store.schema_mismatch`` — ours, but ``user_version`` contradicts its
            tables; ``store.unknown_schema`` — some other program's database.
    """
    path = database_path(conn)
    flavour = go_flavour(conn)
    if flavour is not None and version == 0:
        raise GoStoreError(path, flavour)
    if flavour is not None:  # the Go tool never set user_version: a schema newer than we know
        raise EngramError(
            "store.go_format_unknown",
            f"{path} looks like a Go engram store, but of a schema this Engram does not know "
            f"(user_version {version}); it was left untouched",
            "export it with the Go tool (`engram export`) and `engram import` that file here",
        )
    present = tables(conn)
    if present & OURS:
        raise EngramError(
            "store.schema_mismatch",
            f"{path} says schema version {version}, but its tables are not that version's; "
            "it was left untouched",
            "restore the database from a backup (or `engram import` an export into a new "
            "ENGRAM_DATA_DIR)",
        )
    shown = ", ".join(sorted(name for name in present if not name.startswith("sqlite_"))[:6])
    raise EngramError(
        "store.unknown_schema",
        f"{path} is not an Engram database (schema version {version}; tables: {shown or 'none'}); "
        "it was left untouched",
        "move the file aside, or set ENGRAM_DATA_DIR to another directory",
    )
