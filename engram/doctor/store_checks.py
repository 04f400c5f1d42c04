"""Store health: where the data lives, whether SQLite thinks it is sound, and a real round trip.

Doctor is read-only for the user's memory: it never creates the database, and the round trip
saves, finds and hard-deletes one observation in a scratch copy of the store (its schema,
triggers and index as they are), so it adds no row, mutation, tombstone or id to the real one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

from engram.doctor.findings import Finding, Severity
from engram.doctor.runner import Check, DoctorContext
from engram.doctor.store_format import check_format, go_flavour_of
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


def check_fts(ctx: DoctorContext) -> Iterator[Finding]:
    """``store.fts``: the full-text indexes hold exactly the live rows (search finds them)."""
    from engram.store.datadir import DB_FILENAME, resolve_data_dir
    from engram.store.db import Store
    from engram.store.health import fts_problems

    try:
        db = resolve_data_dir(ctx.env) / DB_FILENAME
    except EngramError:
        return
    if not db.exists():
        yield Finding("store.fts", Severity.SKIP, "no database yet", str(db))
        return
    if go_flavour_of(db) is not None:  # its index also holds soft-deleted rows, by design
        yield Finding(
            "store.fts", Severity.SKIP, "a Go engram store: `engram migrate` rebuilds the index"
        )
        return
    try:
        store = Store(db, migrate_schema=False)
        try:
            problems = fts_problems(store.connection)
        finally:
            store.close()
    except (EngramError, sqlite3.DatabaseError) as exc:
        problems = [str(exc)]
    if not problems:
        yield Finding("store.fts", Severity.PASS, "full-text indexes match their tables", str(db))
        return
    for problem in problems:
        yield Finding(
            "store.fts",
            Severity.FAIL,
            problem,
            str(db),
            "stop Engram, back up engram.db, then rebuild the index: sqlite3 engram.db "
            "\"INSERT INTO observations_fts(observations_fts) VALUES('rebuild')\"",
        )


def check_round_trip(ctx: DoctorContext) -> Iterator[Finding]:
    """``store.round_trip``: save, search and hard-delete one observation in a scratch store.

    The scratch store is a copy of the real database (read through a read-only connection)
    when it exists and is at most :data:`SCRATCH_COPY_LIMIT` bytes, else a fresh store; either
    way it lives in a temporary folder that is removed afterwards.
    """
    import os
    import tempfile

    from engram.store.datadir import DB_FILENAME, resolve_data_dir

    try:
        data_dir = resolve_data_dir(ctx.env)
    except EngramError:
        return
    db = data_dir / DB_FILENAME
    if go_flavour_of(db) is not None:  # a copy would be converted, not checked
        yield Finding(
            "store.round_trip", Severity.SKIP, "a Go engram store: run `engram migrate` first"
        )
        return
    with tempfile.TemporaryDirectory(prefix="engram-doctor-") as scratch:
        copied = _copy_store(db, Path(scratch) / DB_FILENAME)
        if isinstance(copied, Finding):
            yield copied
            return
        finding = _round_trip(Path(scratch), os.urandom(6).hex())
        where = f"{db} (in a scratch {'copy' if copied else 'store'})"
        yield Finding(finding.code, finding.severity, finding.message, where, finding.remedy)


SCRATCH_COPY_LIMIT = 256 * 1024 * 1024


def _copy_store(db: Path, target: Path) -> bool | Finding:
    """Copy ``db`` into ``target`` without writing to it: True when copied, False when there is
    nothing to copy (or it is too large: the round trip then uses a fresh store)."""
    if not db.exists() or db.stat().st_size > SCRATCH_COPY_LIMIT:
        return False
    try:
        source = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        try:
            copy = sqlite3.connect(target)
            try:
                source.backup(copy)
            finally:
                copy.close()
        finally:
            source.close()
    except sqlite3.Error as exc:
        return Finding(
            "store.round_trip",
            Severity.FAIL,
            f"cannot read the store for the round trip: {exc}",
            str(db),
            "run `engram doctor --check store` for the store's own findings",
        )
    return True


def _round_trip(data_dir: Path, token: str) -> Finding:
    from engram.memory.observation import delete_observation
    from engram.memory.removal import delete_session
    from engram.memory.save import default_session_id, save_observation
    from engram.memory.search import search
    from engram.store.db import Store

    project, word = f"engram-doctor-{token}", f"doctorprobe{token}"
    remedy = "run `engram doctor --check store` for the store's own findings; report a bug if clean"
    try:
        store = Store.open(data_dir)
    except EngramError as exc:
        return Finding("store.round_trip", Severity.FAIL, exc.message, str(data_dir), exc.remedy)
    try:
        saved = save_observation(
            store, title=f"Doctor probe {word}", content=word, project=project, type="discovery"
        )
        hits = search(store, word, project=project)
        delete_observation(store, saved.observation.id, expected_project=project, hard=True)
        delete_session(store, default_session_id(project))
        after = search(store, word, project=project)
    except (EngramError, sqlite3.Error) as exc:
        return Finding(
            "store.round_trip", Severity.FAIL, f"round trip failed: {exc}", str(data_dir), remedy
        )
    finally:
        store.close()
    if [h.observation.id for h in hits] != [saved.observation.id] or after:
        return Finding(
            "store.round_trip",
            Severity.FAIL,
            "a saved observation was not found by search (or outlived its deletion)",
            str(data_dir),
            remedy,
        )
    return Finding(
        "store.round_trip", Severity.PASS, "save -> search -> delete works", str(data_dir)
    )


CHECKS: list[Check] = [
    check_data_dir,
    check_format,
    check_integrity,
    check_fts,
    check_round_trip,
]
