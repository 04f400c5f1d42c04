"""Two processes opening a store that is being migrated: the one checking the schema reads the
version and the tables in one snapshot, so a migration another process commits in between is
never mistaken for a contradicting schema (seen: eight writers opening a new data dir at once,
one refused with "says schema version 7, but its tables are not that version's")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engram.store import migrate


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


def test_a_migration_committed_between_the_checks_reads_as_the_old_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "engram.db"
    early = _connect(path)
    for m in migrate.available_migrations():
        if m.version > 7:
            break
        early.execute("BEGIN IMMEDIATE")
        for statement in migrate._statements(m.sql):
            early.execute(statement)
        early.execute(f"PRAGMA user_version = {m.version:d}")
        early.execute("COMMIT")
    other = _connect(path)
    checking = _connect(path)
    real = migrate._looks_like_version

    def meanwhile(conn: sqlite3.Connection, version: int) -> bool:
        migrate.migrate(other, checked=True)  # another process finishes the migrations right now
        return real(conn, version)

    monkeypatch.setattr(migrate, "_looks_like_version", meanwhile)
    assert migrate.migrate_check(checking) == 7
    monkeypatch.setattr(migrate, "_looks_like_version", real)
    assert migrate.migrate(checking) == migrate.available_migrations()[-1].version


def test_a_rolled_back_first_write_leaves_later_writes_working(tmp_path: Path) -> None:
    """The first write of a connection sets up its TEMP embedding queue; when that write is
    rolled back (an error inside it), the next write must still work (seen: every later
    write failed with "no such table: temp.embedding_queue", e.g. mem_pin after a refusal)."""
    from engram.store.db import Store

    with Store.open(tmp_path) as store:
        with pytest.raises(RuntimeError), store.write():
            raise RuntimeError("refused inside the first write")
        with store.write() as conn:
            conn.execute(
                "INSERT INTO sessions (id, project, started_at) VALUES ('s', 'p', '2026-01-01')"
            )
        assert store.connection.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1


def test_a_write_refused_inside_a_read_leaves_later_writes_working(tmp_path: Path) -> None:
    """A write begun inside a read is refused (one transaction at a time) and its rollback
    ends the read's transaction too: the TEMP embedding queue must not be created inside it,
    or it is rolled back with it and every later write fails with "no such table"."""
    from engram.errors import EngramError
    from engram.store.db import Store

    with Store.open(tmp_path) as store:
        with pytest.raises(EngramError), store.read(), store.write():
            pass
        with store.write() as conn:
            conn.execute(
                "INSERT INTO sessions (id, project, started_at) VALUES ('s', 'p', '2026-01-01')"
            )
        assert store.connection.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
