"""Numbered schema migrations tracked by ``PRAGMA user_version``.

Every file ``engram/store/migrations/NNNN_name.sql`` is one migration; ``NNNN`` is its version.
``migrate(conn)`` applies, in order, each file whose number is above the database's
``user_version``, each in its own ``BEGIN IMMEDIATE`` transaction that also bumps
``user_version`` — so a failing migration leaves the database exactly as it was, and concurrent
openers serialise on the write lock and re-check the version inside it.

To add a migration, add the next number (``0002_...sql``); never edit an applied file.
"""

from __future__ import annotations

import os
import sqlite3

from engram.errors import EngramError

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")


class Migration:
    """One numbered SQL file; its text is read only when it is applied.

    A plain class: the store opens on every hook call, and a dataclass costs its creation.
    """

    __slots__ = ("name", "path", "version")

    def __init__(self, version: int, name: str, path: str) -> None:
        self.version = version
        self.name = name
        self.path = path

    @property
    def sql(self) -> str:
        """The migration's SQL script."""
        with open(self.path, encoding="utf-8") as handle:
            return handle.read()


_SHIPPED: list[Migration] | None = None


def available_migrations() -> list[Migration]:
    """Every migration shipped in the package, ordered by version (duplicates are an error).

    The folder is listed once a process: a store open runs :func:`migrate_check` and
    :func:`migrate`, and the hook path opens the store on each call."""
    global _SHIPPED
    if _SHIPPED is None:
        _SHIPPED = _list_migrations()
    return list(_SHIPPED)


def _list_migrations() -> list[Migration]:
    found: dict[int, Migration] = {}
    # A plain folder listing: importlib.resources would pull in zipfile, tempfile, bz2, lzma...
    # on every open, and the hook path opens the store on each call (and no pathlib either).
    folder = os.path.join(os.path.dirname(__file__), "migrations")
    for entry in os.scandir(folder):
        version = migration_version(entry.name)
        if version is None:
            continue
        if version in found:
            raise RuntimeError(f"two migrations share number {version:04d}: {entry.name}")
        found[version] = Migration(version, entry.name, entry.path)
    return [found[v] for v in sorted(found)]


def migration_version(name: str) -> int | None:
    """``NNNN`` of a migration file named ``NNNN_name.sql`` (lower-case letters, digits and
    ``_`` in the name), else None. A string scan: the hook path opens the store and imports
    no ``re``."""
    stem = name.removesuffix(".sql")
    digits, underscore, rest = stem[:4], stem[4:5], stem[5:]
    if stem == name or not (digits.isdecimal() and len(digits) == 4 and underscore == "_"):
        return None
    return int(digits) if rest and set(rest) <= _NAME_CHARS else None


def schema_version(conn: sqlite3.Connection) -> int:
    """The database's ``PRAGMA user_version``."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, *, checked: bool = False) -> int:
    """Bring the schema up to date; return the resulting version.

    ``conn`` must be in autocommit mode (``isolation_level=None``); ``checked``: the caller
    already ran :func:`migrate_check` on it.

    Raises:
        EngramError ``store.schema_too_new`` when the database was written by a newer Engram.
    """
    migrations = available_migrations()
    current = schema_version(conn) if checked else migrate_check(conn)
    for migration in migrations:
        if migration.version <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated while we waited for the lock.
            if schema_version(conn) >= migration.version:
                conn.execute("COMMIT")
                continue
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {migration.version:d}")
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite already rolled back after e.g. a full disk
                conn.execute("ROLLBACK")
            raise
    return schema_version(conn)


def migrate_check(conn: sqlite3.Connection) -> int:
    """The database's schema version, after the checks :func:`migrate` runs before writing.

    Raises:
        EngramError: ``store.schema_too_new``, ``store.go_format``, ``store.schema_mismatch``,
            ``store.unknown_schema``.
    """
    migrations = available_migrations()
    latest = migrations[-1].version if migrations else 0
    # The version and the tables are read in one snapshot: another process may commit its
    # next migration between two separate reads, and this one would see a contradiction.
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        current = schema_version(conn)
        consistent = current > latest or _looks_like_version(conn, current)
    finally:
        if own and conn.in_transaction:
            conn.execute("COMMIT")
    if current > latest:
        raise EngramError(
            "store.schema_too_new",
            f"the database schema (version {current}) is newer than this Engram ({latest})",
            "upgrade Engram (pip install -U engram-keeper)",
        )
    if not consistent:
        # Another tool's database (the Go engram's), or ours with a user_version its tables
        # contradict: refused (or handed to engram.store.legacy) before anything is written.
        from engram.store.legacy.detect import refuse_foreign

        refuse_foreign(conn, current)
    return current


def create_schema(conn: sqlite3.Connection) -> int:
    """Run every migration's statements inside the caller's transaction (a database being
    converted); set and return the latest version."""
    latest = 0
    for migration in available_migrations():
        for statement in _statements(migration.sql):
            conn.execute(statement)
        latest = migration.version
    conn.execute(f"PRAGMA user_version = {latest:d}")
    return latest


# Objects each migration creates that no later one drops: a database at version N has the
# sentinels of every migration <= N and none of a later one (tests/store/test_legacy_detect.py
# checks each name against its migration file). A migration without a sentinel is not listed.
SENTINELS = {
    1: "observations",
    2: "governed_memories",
    4: "observation_titles",
    5: "store_meta",
    6: "sync_mutations",
    7: "cloud_upgrade_state",
    9: "observations_live",
}


def _looks_like_version(conn: sqlite3.Connection, version: int) -> bool:
    """Whether the schema objects agree with ``user_version`` (0: an empty database)."""
    names = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master")}
    if version == 0:
        return not {name for name in names if not name.startswith("sqlite_")}
    if version < 0:
        return False
    return all((name in names) == (number <= version) for number, name in SENTINELS.items())


def _statements(script: str) -> list[str]:
    """Split a script into complete statements (executescript would commit implicitly)."""
    statements, buffer = [], ""
    for line in script.splitlines(keepends=True):
        if not buffer and line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements
