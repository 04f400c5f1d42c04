"""A Go engram store in the data directory: read before any write, converted with a backup,
every record kept; other schemas refused in one line."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

from engram.testing import Sandbox
from tests.legacy.conftest import Run
from tests.legacy.go_stores import build_v01, build_v2


def fingerprint(path: Path) -> tuple[str, bytes]:
    """The database's bytes and its WAL's (SQLite's own -shm index is not data)."""
    wal = Path(f"{path}-wal")
    return hashlib.sha256(path.read_bytes()).hexdigest(), wal.read_bytes() if wal.exists() else b""


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return [tuple(row) for row in conn.execute(sql)]
    finally:
        conn.close()


def test_reads_answer_from_a_go_store_without_writing_it(sandbox: Sandbox, cli: Run) -> None:
    db = build_v01(sandbox.data_dir)
    before = fingerprint(db)
    found = cli("search", "redis", "--all", "--json")
    assert found.returncode == 0, found.stderr
    assert [hit["title"] for hit in json.loads(found.stdout)["results"]] == ["Redis for the cache"]
    assert "Go engram store (0.1.x schema)" in found.stderr
    assert "engram migrate" in found.stderr
    context = cli("context", "acme", "--json")
    assert context.returncode == 0, context.stderr
    assert "Redis for the cache" in context.stdout
    exported = cli("export", "--all")
    assert exported.returncode == 0, exported.stderr
    backup = json.loads(exported.stdout)
    assert sorted(o["title"] for o in backup["observations"]) == [
        "Fixed the flaky login",
        "Redis for the cache",
        "Use table tests",
    ]
    assert len(backup["prompts"]) == 2 and len(backup["sessions"]) == 2
    assert fingerprint(db) == before
    assert {p.name for p in sandbox.data_dir.iterdir()} <= {
        "engram.db",
        "engram.db-shm",
        "engram.db-wal",
    }


def test_migrate_converts_a_2x_store_keeping_every_record(sandbox: Sandbox, cli: Run) -> None:
    db = build_v2(sandbox.data_dir)
    result = cli("migrate", "--json")
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["state"] == "converted" and outcome["go_flavour"] == "2.x"
    backup = Path(outcome["backup"])
    assert backup.parent == sandbox.data_dir and backup.name.startswith("engram-go-backup-")
    assert rows(backup, "SELECT count(*) FROM observations") == [(5,)]
    assert rows(backup, "PRAGMA user_version") == [(0,)]  # the Go file as it was
    observations = rows(
        db,
        "SELECT id, sync_id, session_id, project, scope, topic_key, revision_count,"
        " duplicate_count, pinned, review_after, expires_at, created_at, updated_at, deleted_at"
        " FROM observations ORDER BY id",
    )
    assert observations == [
        (1, "obs-1111", "s-acme", "acme", "project", "architecture/cache-layer", 3, 1, 1,
         "2025-06-01", None, "2025-03-01 09:10:00", "2025-03-01 10:40:00", None),
        (2, "obs-2222", "s-acme", "acme", "personal", None, 1, 4, 0, None, "2026-01-01",
         "2025-03-01 09:20:00", "2025-03-01 09:20:00", None),
        (3, "obs-3333", "s-acme", "acme", "project", None, 1, 1, 0, None, None,
         "2025-03-01 09:30:00", "2025-03-01 09:45:00", "2025-03-01 09:45:00"),
        (4, "obs-4444", "s-legacy", "", "project", None, 1, 1, 0, None, None,
         "2025-02-01 08:05:00", "2025-02-01 08:05:00", None),
        (5, "obs-4444-dup-5", "s-legacy", "", "project", None, 1, 1, 0, None, None,
         "2025-02-01 08:06:00", "2025-02-01 08:06:00", None),
    ]  # fmt: skip
    assert rows(db, "SELECT id, project, ownership_mode, ended_at FROM sessions ORDER BY id") == [
        ("s-acme", "acme", "project_owned", "2025-03-01 11:00:00"),
        ("s-legacy", "", "shared", None),
    ]
    assert rows(db, "SELECT sync_id, project FROM user_prompts ORDER BY id") == [
        ("prompt-aaaa", "acme"),
        (rows(db, "SELECT sync_id FROM user_prompts WHERE id = 2")[0][0], ""),
    ]
    assert rows(db, "SELECT sync_id FROM prompt_tombstones") == [("prompt-gone",)]
    assert rows(
        db, "SELECT sync_id, source_id, target_id, relation, judgment_status FROM memory_relations"
    ) == [("rel-1", "obs-1111", "obs-3333", "supersedes", "judged")]
    assert rows(db, "SELECT target_key, chunk_id FROM sync_chunks ORDER BY chunk_id") == [
        ("git", "a3f8c1d2"),
        ("cloud", "c0ffee00"),
    ]
    assert rows(db, "SELECT entity_key, last_remote_mutation_seq FROM sync_delete_tombstones") == [
        ("obs-9999", 12)
    ]
    assert rows(db, "SELECT project FROM sync_enrolled_projects") == [("acme",)]
    assert outcome["kept_tables"] == [
        "go_cloud_upgrade_state",
        "go_sync_apply_deferred",
        "go_sync_delete_tombstone_remote_floors",
        "go_sync_mutations",
        "go_sync_state",
    ]
    assert rows(db, "SELECT entity_key FROM go_sync_mutations") == [("obs-1111",)]
    # The index holds live rows only: the soft-deleted one is not found, the others are.
    assert json.loads(cli("search", "retry", "--all", "--json").stdout)["results"] == []
    hits = json.loads(cli("search", "redis", "--all", "--json").stdout)["results"]
    assert [hit["id"] for hit in hits] == [1]
    doctor = cli("doctor", "--check", "store")
    assert doctor.returncode == 0, doctor.stdout
    assert "FAIL" not in doctor.stdout
    again = cli("migrate")
    assert again.returncode == 0 and "already at schema version" in again.stdout


def test_the_first_write_converts_with_a_notice(sandbox: Sandbox, cli: Run) -> None:
    db = build_v01(sandbox.data_dir)
    saved = cli("save", "New note", "Saved after the Go tool", "--project", "acme")
    assert saved.returncode == 0, saved.stderr
    assert "converting it to this Engram's format first" in saved.stderr
    assert len(list(sandbox.data_dir.glob("engram-go-backup-*.db"))) == 1
    titles = rows(db, "SELECT title, project FROM observations ORDER BY id")
    assert titles == [
        ("Redis for the cache", "acme"),
        ("Fixed the flaky login", ""),
        ("Use table tests", "beta"),
        ("New note", "acme"),
    ]
    assert rows(db, "SELECT target_key, chunk_id FROM sync_chunks") == [("git", "a3f8c1d2")]
    second = cli("save", "Another", "No second conversion", "--project", "acme")
    assert second.returncode == 0 and "convert" not in second.stderr


def test_doctor_on_a_go_store_warns_and_writes_nothing(sandbox: Sandbox, cli: Run) -> None:
    db = build_v2(sandbox.data_dir)
    before = fingerprint(db)
    doctor = cli("doctor", "--check", "store")
    assert doctor.returncode == 0, doctor.stdout
    assert "FAIL" not in doctor.stdout
    assert "WARN store.format: a Go engram store (2.x schema)" in doctor.stdout
    assert fingerprint(db) == before


def test_a_database_of_another_program_is_refused_in_one_line(sandbox: Sandbox, cli: Run) -> None:
    sandbox.data_dir.mkdir(parents=True, mode=0o700)
    db = sandbox.data_dir / "engram.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE bookmarks (url TEXT)")
    conn.commit()
    conn.close()
    before = fingerprint(db)
    for args in (("save", "a", "b"), ("search", "a", "--all"), ("migrate",)):
        result = cli(*args)
        assert result.returncode == 1
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert "is not an Engram database" in result.stderr and "bookmarks" in result.stderr
    assert fingerprint(db) == before


def test_our_store_with_a_contradicting_user_version_is_refused(sandbox: Sandbox, cli: Run) -> None:
    assert cli("save", "First", "A note", "--project", "acme").returncode == 0
    db = sandbox.data_dir / "engram.db"
    for version in (3, -1):
        conn = sqlite3.connect(db)
        conn.execute(f"PRAGMA user_version = {version}")
        conn.close()
        result = cli("save", "Second", "Another note", "--project", "acme")
        assert result.returncode == 1, result.stdout
        assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
        assert "its tables are not that version's" in result.stderr
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    result = cli("save", "Third", "A third note", "--project", "acme")
    assert result.returncode == 1 and "newer than this Engram" in result.stderr


def test_every_sentinel_is_created_by_its_migration() -> None:
    from engram.store.migrate import SENTINELS, available_migrations

    by_version = {m.version: m.sql for m in available_migrations()}
    for version, name in SENTINELS.items():
        assert f" {name} " in by_version[version] or f" {name}\n" in by_version[version]
