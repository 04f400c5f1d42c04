"""The edges of a Go store's conversion: a schema we do not know, a backup that does not
verify, two processes converting at once, a Go binary opening the converted store, and a Go
export carrying relations."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engram.memory.backup import import_backup
from engram.store.db import Store
from engram.testing import Sandbox
from tests.legacy.conftest import Run
from tests.legacy.go_stores import V01_SCHEMA, build_v01, build_v2

ENGRAM = Path(sys.executable).with_name("engram")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_go_store_with_a_user_version_is_a_schema_we_do_not_know(
    sandbox: Sandbox, cli: Run
) -> None:
    db = build_v2(sandbox.data_dir)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 7")
    conn.close()
    before = digest(db)
    for args in (("save", "a", "b"), ("search", "x", "--all"), ("migrate",)):
        result = cli(*args)
        assert result.returncode == 1
        errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
        assert len(errors) == 1 and "Traceback" not in result.stderr
        assert "a schema this Engram does not know" in errors[0]
    assert digest(db) == before


def test_a_backup_that_does_not_verify_stops_the_conversion(
    sandbox: Sandbox, cli: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = build_v01(sandbox.data_dir)
    before = digest(db)
    import engram.store.legacy.backup as backup

    def half_copy(reader: object, writer: object, length: int = 0) -> None:
        data = reader.read()  # type: ignore[attr-defined]
        writer.write(data[: len(data) // 2])  # type: ignore[attr-defined]

    monkeypatch.setattr(backup.shutil, "copyfileobj", half_copy)  # a disk that lost writes
    result = cli("migrate")
    assert result.returncode == 1
    assert "did not verify" in result.stderr and "was not converted" in result.stderr
    assert digest(db) == before
    assert rows_of(db, "PRAGMA user_version") == [(0,)]


def rows_of(db: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        return [tuple(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def test_two_processes_converting_at_once_convert_once(sandbox: Sandbox) -> None:
    db = build_v2(sandbox.data_dir)
    procs = [
        subprocess.Popen(
            [str(ENGRAM), "migrate", "--json"],
            env=sandbox.env(),
            cwd=sandbox.workspace,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outcomes.append(json.loads(out)["state"])
    assert sorted(outcomes) == ["converted", "current"]
    assert len(list(sandbox.data_dir.glob("engram-go-backup-*.db"))) == 1
    assert rows_of(db, "SELECT count(*) FROM observations") == [(5,)]


def test_a_conversion_committed_while_migrate_looks_is_not_reported_as_a_migration(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race above, made certain: another process converts the store between our reading
    # its version and its tables. What we report must match one state of the file.
    import engram.store.legacy.detect as detect
    from engram.memory.store_migration import migrate_store
    from engram.store.legacy.migrate_go import migrate_in_place

    db = build_v2(sandbox.data_dir)
    real = detect.go_flavour
    interloped: list[object] = []

    def convert_first(conn: sqlite3.Connection) -> str | None:
        if not interloped:
            interloped.append(migrate_in_place(str(db)))
        return real(conn)

    monkeypatch.setattr(detect, "go_flavour", convert_first)
    outcome = migrate_store(sandbox.data_dir)
    assert interloped and interloped[0] is not None  # the other process did convert it
    assert outcome.state == "current"  # it found the Go store, and then nothing to do
    assert len(list(sandbox.data_dir.glob("engram-go-backup-*.db"))) == 1
    assert rows_of(db, "SELECT count(*) FROM observations") == [(5,)]


def test_an_old_go_binary_opening_the_converted_store_leaves_the_index_exact(
    sandbox: Sandbox, cli: Run
) -> None:
    db = build_v01(sandbox.data_dir)
    assert cli("migrate").returncode == 0
    # What the Go v0.1.x binary runs on start: its schema (IF NOT EXISTS), and its FTS
    # triggers unless a trigger named obs_fts_insert exists.
    conn = sqlite3.connect(db)
    statements = V01_SCHEMA.split("CREATE TRIGGER")[0].replace(
        "CREATE TABLE", "CREATE TABLE IF NOT EXISTS"
    )
    statements = statements.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS")
    statements = statements.replace("CREATE VIRTUAL TABLE", "CREATE VIRTUAL TABLE IF NOT EXISTS")
    conn.executescript(statements)
    has_guard = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'obs_fts_insert'"
    ).fetchone()
    assert has_guard  # so the Go binary installs none of its own
    with pytest.raises(sqlite3.IntegrityError):  # a Go v0.1 save: no sync_id
        conn.execute(
            "INSERT INTO observations (session_id, type, title, content, project)"
            " VALUES ('s-acme', 'manual', 'from go', 'text', 'acme')"
        )
    conn.close()
    assert cli("save", "After Go", "Saved by Engram", "--project", "acme").returncode == 0
    doctor = cli("doctor", "--check", "store")
    assert doctor.returncode == 0 and "FAIL" not in doctor.stdout, doctor.stdout


def test_a_go_010_export_with_relations_keeps_them(sandbox: Sandbox) -> None:
    data = {
        "version": "0.1.0",
        "sessions": [{"id": "s1", "project": "acme", "directory": "/w", "started_at": "2025-01-01 00:00:00"}],
        "observations": [
            {"id": 1, "sync_id": "obs-a", "session_id": "s1", "type": "decision", "title": "A",
             "content": "first", "project": "acme", "created_at": "2025-01-01 00:01:00"},
            {"id": 2, "sync_id": "obs-b", "session_id": "s1", "type": "decision", "title": "B",
             "content": "second", "project": "acme", "created_at": "2025-01-01 00:02:00"},
        ],
        "prompts": [],
        "relations": [
            {"id": 1, "sync_id": "rel-1", "source_id": "obs-b", "target_id": "obs-a",
             "relation": "supersedes", "judgment_status": "judged",
             "created_at": "2025-01-01 00:03:00"}
        ],
    }  # fmt: skip
    with Store.open() as store:
        assert import_backup(store, json.dumps(data)).relations == 1


def test_a_hook_on_a_go_store_fails_open_and_converts_nothing(sandbox: Sandbox) -> None:
    db = build_v01(sandbox.data_dir)
    before = digest(db)
    event = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s1"}
    result = subprocess.run(
        [str(ENGRAM), "hook", "claude"],
        input=json.dumps({**event, "cwd": str(sandbox.workspace)}),
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert digest(db) == before
    assert not list(sandbox.data_dir.glob("engram-go-backup-*"))


def test_iso_timestamps_arrive_in_the_store_form(sandbox: Sandbox, cli: Run) -> None:
    db = build_v2(sandbox.data_dir)
    conn = sqlite3.connect(db)
    conn.execute(
        "UPDATE observations SET updated_at = '2025-03-01T10:40:00+02:00',"
        " last_seen_at = '2025-03-01T10:00:00.123456789Z' WHERE sync_id = 'obs-1111'"
    )
    conn.commit()
    conn.close()
    assert cli("migrate").returncode == 0
    assert rows_of(
        db, "SELECT updated_at, last_seen_at FROM observations WHERE sync_id = 'obs-1111'"
    ) == [("2025-03-01 08:40:00", "2025-03-01 10:00:00")]
    export = {
        "version": "0.1.0",
        "sessions": [{"id": "s9", "project": "acme", "directory": "/w",
                      "started_at": "2025-04-01T09:00:00Z"}],
        "observations": [{"id": 90, "sync_id": "obs-iso", "session_id": "s9", "type": "manual",
                          "title": "Iso", "content": "iso times", "project": "acme",
                          "created_at": "2025-04-01T09:00:00.5-03:00"}],
        "prompts": [],
    }  # fmt: skip
    with Store.open() as store:
        import_backup(store, json.dumps(export))
    assert rows_of(db, "SELECT created_at FROM observations WHERE sync_id = 'obs-iso'") == [
        ("2025-04-01 12:00:00",)
    ]
    assert rows_of(db, "SELECT started_at FROM sessions WHERE id = 's9'") == [
        ("2025-04-01 09:00:00",)
    ]


def test_a_virtual_table_of_a_module_we_lack_is_kept_as_it_is(sandbox: Sandbox, cli: Run) -> None:
    db = build_v2(sandbox.data_dir)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA writable_schema = ON")  # a vec0 table, as if sqlite-vec made it
    conn.execute(
        "INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES"
        " ('table', 'memory_vectors', 'memory_vectors', 0,"
        " 'CREATE VIRTUAL TABLE memory_vectors USING vec0(embedding float[4])')"
    )
    conn.commit()
    conn.close()
    searched = cli("search", "redis", "--all", "--json")
    assert searched.returncode == 0, searched.stderr
    result = cli("migrate", "--json")
    assert result.returncode == 0, result.stderr
    assert "memory_vectors" in json.loads(result.stdout)["kept_tables"]
    assert rows_of(db, "SELECT count(*) FROM observations") == [(5,)]


def test_engram_mcp_on_a_go_store_converts_it_and_answers_json_only(sandbox: Sandbox) -> None:
    from tests.server.mcp_process import call, initialize, run_server

    build_v01(sandbox.data_dir)
    lines = [*initialize(), call(1, "mem_search", {"query": "redis", "all_projects": True})]
    exchange = run_server(sandbox, lines)  # stdout parsed line by line as JSON-RPC
    assert exchange.returncode == 0, exchange.stderr
    assert "Redis for the cache" in json.dumps(exchange.result(1))
    assert "is a Go engram store (0.1.x schema)" in exchange.stderr
    assert len(list(sandbox.data_dir.glob("engram-go-backup-*.db"))) == 1


def test_the_backup_holds_rows_still_in_the_go_wal(sandbox: Sandbox, cli: Run) -> None:
    db = build_v01(sandbox.data_dir)
    go = sqlite3.connect(db, isolation_level=None)  # the Go tool, running, WAL not checkpointed
    go.execute("PRAGMA wal_autocheckpoint = 0")
    go.execute(
        "INSERT INTO observations (session_id, type, title, content, project, created_at)"
        " VALUES ('s-beta', 'decision', 'Only in the WAL', 'not checkpointed yet', 'beta',"
        " '2025-01-05 10:00:00')"
    )
    assert Path(f"{db}-wal").stat().st_size > 0
    try:
        result = cli("migrate", "--json")
        assert result.returncode == 0, result.stderr
        backup = Path(json.loads(result.stdout)["backup"])
        assert Path(f"{backup}-wal").exists()  # the triplet, not the main file alone
        assert rows_of(backup, "SELECT title FROM observations WHERE id = 4") == [
            ("Only in the WAL",)
        ]
        assert rows_of(db, "SELECT title, project FROM observations WHERE id = 4") == [
            ("Only in the WAL", "beta")
        ]
    finally:
        go.close()


def test_a_self_contained_fts_table_is_kept_with_its_data(sandbox: Sandbox, cli: Run) -> None:
    db = build_v2(sandbox.data_dir)
    conn = sqlite3.connect(db)
    conn.execute("CREATE VIRTUAL TABLE scratch_notes USING fts5(body)")  # holds its own text
    conn.execute("INSERT INTO scratch_notes (body) VALUES ('kept text')")
    conn.commit()
    conn.close()
    result = cli("migrate", "--json")
    assert result.returncode == 0, result.stderr
    assert "go_scratch_notes" in json.loads(result.stdout)["kept_tables"]
    assert rows_of(db, "SELECT body FROM go_scratch_notes") == [("kept text",)]
    assert rows_of(db, "SELECT count(*) FROM observations") == [(5,)]


def test_a_blank_go_title_is_taken_from_the_content(sandbox: Sandbox, cli: Run) -> None:
    db = build_v01(sandbox.data_dir)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE observations SET title = '  ' WHERE id = 3")
    conn.commit()
    conn.close()
    assert cli("migrate").returncode == 0
    assert rows_of(db, "SELECT title FROM observations WHERE id = 3") == [
        ("Table driven tests everywhere",)
    ]
