"""``engram migrate``: bring the database in the data directory to this Engram's schema.

A Go engram store is backed up (the db triplet, verified) and converted in place
(:mod:`engram.store.legacy`); an Engram store with pending migrations is migrated; a current
one is left alone. Anything else is refused by the store with its one-line reason.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from engram.store.db import Store


@dataclass(frozen=True)
class MigrationOutcome:
    """What ``engram migrate`` did: ``state`` is converted, migrated, current or missing."""

    state: str
    path: str
    schema_version: int = 0
    from_version: int = 0
    go_flavour: str | None = None
    backup: str | None = None
    copied: dict[str, int] = field(default_factory=dict)
    placeholder_sessions: int = 0
    kept_tables: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return dict(self.__dict__)


def migrate_store(data_dir: str | os.PathLike[str] | None = None) -> MigrationOutcome:
    """Convert or migrate the store in ``data_dir`` (default: ENGRAM_DATA_DIR / ~/.engram).

    Raises:
        EngramError: ``store.backup_failed``, ``store.convert_failed``, ``store.schema_too_new``,
            ``store.unknown_schema``, ``store.schema_mismatch``, ``store.busy``...
    """
    from engram.store.datadir import data_dir_of, ensure_data_dir
    from engram.store.legacy.migrate_go import migrate_in_place
    from engram.store.migrate import schema_version

    path = ensure_data_dir(data_dir if data_dir is not None else data_dir_of(), create=False)
    if not os.path.exists(path):
        return MigrationOutcome("missing", path)
    before, flavour = _probe(path)
    if flavour is not None and before == 0:
        result = migrate_in_place(path)
        if result is not None:
            with Store(path) as store:
                version = schema_version(store.connection)
            report = result.report
            return MigrationOutcome(
                "converted",
                path,
                version,
                0,
                flavour,
                result.backup,
                report.copied,
                report.placeholder_sessions,
                report.kept_tables,
            )
        before = -1  # another process converted it while we waited: nothing done here
    with Store(path) as store:
        version = schema_version(store.connection)
    state = "current" if before in (version, -1) else "migrated"
    return MigrationOutcome(state, path, version, max(before, 0))


def _probe(path: str) -> tuple[int, str | None]:
    """``(user_version, Go flavour)`` read without writing, in one snapshot; retried while
    another process is mid-conversion (a read-only reader then meets "locking protocol")."""
    import sqlite3
    import time

    from engram.store.legacy.detect import go_flavour, open_read_only
    from engram.store.migrate import schema_version

    for attempt in range(20):
        try:
            probe = open_read_only(path)
            try:
                # One read transaction: the version and the tables from the same snapshot, or
                # a conversion committed between two reads shows version 0 with our tables.
                probe.execute("BEGIN")
                return schema_version(probe), go_flavour(probe)
            finally:
                probe.close()
        except sqlite3.OperationalError as exc:
            if attempt == 19:
                from engram.store.errors import store_error

                raise store_error(exc, path) from None
            time.sleep(0.1)
    raise AssertionError("unreachable")
