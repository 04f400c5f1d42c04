"""``store.format``: whose schema the database has — this Engram's, the Go tool's, or another.

A Go engram store is not a failure: reads answer from a converted copy and ``engram migrate``
converts it. The other store checks ask :func:`go_flavour_of` first, so they neither judge
the Go tool's index by our rules (it also indexes soft-deleted rows) nor write to it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import DoctorContext
from engram.errors import EngramError


def go_flavour_of(db: Path) -> str | None:
    """``"0.1.x"``/``"2.x"`` when ``db`` is an unconverted Go engram store, else None."""
    from engram.store.legacy.detect import go_flavour, open_read_only

    try:
        conn = open_read_only(str(db))
        try:
            if int(conn.execute("PRAGMA user_version").fetchone()[0]) != 0:
                return None
            return go_flavour(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def check_format(ctx: DoctorContext) -> Iterator[Finding]:
    """``store.format``: the database's schema is one this Engram reads."""
    from engram.store.datadir import DB_FILENAME, resolve_data_dir
    from engram.store.legacy.detect import open_read_only
    from engram.store.migrate import available_migrations, migrate_check

    try:
        db = resolve_data_dir(ctx.env) / DB_FILENAME
    except EngramError:
        return
    if not db.exists():
        return
    flavour = go_flavour_of(db)
    if flavour is not None:
        yield Finding(
            "store.format",
            Severity.WARN,
            f"a Go engram store ({flavour} schema), not yet converted: reads use a converted "
            "copy, the first write converts it",
            str(db),
            "run `engram migrate` (it keeps a verified, dated backup beside the database)",
        )
        return
    try:
        conn = open_read_only(str(db))
        try:
            version = migrate_check(conn)
        finally:
            conn.close()
    except EngramError as exc:
        yield Finding("store.format", Severity.FAIL, exc.message, str(db), exc.remedy)
        return
    except sqlite3.Error as exc:
        yield Finding("store.format", Severity.FAIL, f"cannot read the schema: {exc}", str(db))
        return
    latest = available_migrations()[-1].version
    note = "" if version == latest else f" ({latest - version} migration(s) pending)"
    yield Finding("store.format", Severity.PASS, f"Engram schema version {version}{note}", str(db))
