"""Store health: where the data lives, whether SQLite thinks it is sound, and a real round trip.

Doctor is read-only for the user's memory: it never creates the database, and the round trip
saves, finds and hard-deletes one observation in a scratch project of its own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import Check, DoctorContext
from engram.errors import EngramError

_DATA_DIR_REMEDY = "set ENGRAM_DATA_DIR to an absolute local path, or unset it for ~/.engram"


def check_data_dir(ctx: DoctorContext) -> Iterator[Finding]:
    """``store.data_dir`` and ``store.network_filesystem``: a usable, local data directory."""
    from engram.store.datadir import DB_FILENAME, check_local_filesystem, resolve_data_dir

    try:
        data_dir = resolve_data_dir(ctx.env)
    except EngramError as exc:
        yield Finding("store.data_dir", Severity.FAIL, exc.message, remedy=exc.remedy)
        return
    yield Finding("store.data_dir", Severity.PASS, f"data directory {data_dir}", str(data_dir))
    try:
        check_local_filesystem(data_dir, ctx.mountinfo)
    except EngramError as exc:
        yield Finding(
            "store.network_filesystem", Severity.FAIL, exc.message, str(data_dir), exc.remedy
        )
    else:
        yield Finding(
            "store.network_filesystem",
            Severity.PASS,
            "the data directory is not on a network filesystem",
            str(data_dir / DB_FILENAME),
        )


def check_integrity(ctx: DoctorContext) -> Iterator[Finding]:
    """``store.integrity``: SQLite's own ``PRAGMA integrity_check`` on an existing database."""
    from engram.store.datadir import DB_FILENAME, resolve_data_dir
    from engram.store.db import Store

    try:
        db = resolve_data_dir(ctx.env) / DB_FILENAME
    except EngramError:
        return  # already reported by check_data_dir
    if not db.exists():
        yield Finding(
            "store.integrity",
            Severity.SKIP,
            "no database yet (it is created by the first save)",
            str(db),
        )
        return
    try:
        store = Store(db, migrate_schema=False)
        try:
            verdict = store.integrity_check()
        finally:
            store.close()
    except EngramError as exc:
        verdict = exc.message
    except sqlite3.DatabaseError as exc:
        verdict = f"{db} is not a usable database: {exc}"
    if verdict == "ok":
        yield Finding("store.integrity", Severity.PASS, "integrity_check: ok", str(db))
    else:
        yield Finding(
            "store.integrity",
            Severity.FAIL,
            f"integrity_check: {verdict.splitlines()[0]}",
            str(db),
            "stop every Engram process, restore a backup or export what can be read "
            "(`engram export`), then move the database aside",
        )


CHECKS: list[Check] = [check_data_dir, check_integrity]
