"""Doctor reports store problems: bad data dir, network filesystem, a corrupt database."""

from __future__ import annotations

from pathlib import Path

from engram.doctor import store_checks
from engram.doctor.findings import Severity
from engram.doctor.runner import DoctorContext, run_doctor
from engram.store.db import Store
from engram.testing import Sandbox


def run(sandbox: Sandbox, only: str, mountinfo: Path | None = None, **env: str) -> list[Severity]:
    ctx = DoctorContext(
        home=sandbox.home,
        workspace=sandbox.workspace,
        env={**sandbox.env(), **env},
        mountinfo=mountinfo or Path("/nonexistent/mountinfo"),
    )
    return [f.severity for f in run_doctor(ctx, store_checks.CHECKS, only=only).findings]


def test_relative_data_dir_fails(sandbox: Sandbox) -> None:
    assert run(sandbox, "store.data_dir", ENGRAM_DATA_DIR="relative/place") == [Severity.FAIL]


def test_network_filesystem_fails(sandbox: Sandbox, tmp_path: Path) -> None:
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(f"36 35 0:40 / {sandbox.home} rw,relatime - nfs4 server:/home rw\n")
    assert run(sandbox, "store.network_filesystem", mountinfo) == [Severity.FAIL]
    assert run(sandbox, "store.network_filesystem") == [Severity.PASS]


def test_missing_database_is_skipped_and_not_created(sandbox: Sandbox) -> None:
    assert run(sandbox, "store.integrity") == [Severity.SKIP]
    assert not (sandbox.data_dir / "engram.db").exists()


def test_healthy_database_passes(sandbox: Sandbox) -> None:
    Store.open(sandbox.data_dir).close()
    assert run(sandbox, "store.integrity") == [Severity.PASS]


def test_corrupt_database_fails(sandbox: Sandbox) -> None:
    store = Store.open(sandbox.data_dir)
    with store.write() as conn:
        conn.execute("CREATE TABLE filler (x TEXT)")
        conn.executemany("INSERT INTO filler VALUES (?)", [("x" * 500,)] * 200)
    store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    db = sandbox.data_dir / "engram.db"
    raw = bytearray(db.read_bytes())
    page = 4096
    for offset in range(page * 3, min(len(raw), page * 20), 97):
        raw[offset] = (raw[offset] + 1) % 256
    db.write_bytes(bytes(raw))
    assert run(sandbox, "store.integrity") == [Severity.FAIL]


def save_some(sandbox: Sandbox) -> Store:
    from engram.memory.save import save_observation

    store = Store.open(sandbox.data_dir)
    for n in range(3):
        save_observation(store, title=f"Fact {n}", content="body", project="p")
    return store


def test_fts_index_out_of_step_fails(sandbox: Sandbox) -> None:
    store = save_some(sandbox)
    store.close()
    assert run(sandbox, "store.fts") == [Severity.PASS]
    store = Store.open(sandbox.data_dir)
    store.connection.execute(
        "INSERT INTO observations_fts(observations_fts, rowid, title, content, tool_name, type,"
        " project, topic_key, search_keys) SELECT 'delete', id, title, content, tool_name, type,"
        " project, topic_key, search_keys FROM observations WHERE title = 'Fact 1'"
    )
    store.close()
    assert run(sandbox, "store.fts") == [Severity.FAIL]


def test_round_trip_leaves_no_trace(sandbox: Sandbox) -> None:
    from engram.memory.projects import list_projects

    save_some(sandbox).close()
    before = (sandbox.data_dir / "engram.db").stat().st_size
    assert run(sandbox, "store.round_trip") == [Severity.PASS]
    store = Store.open(sandbox.data_dir)
    try:
        assert [p.name for p in list_projects(store)] == ["p"]
        rows = store.connection.execute("SELECT count(*) FROM observations").fetchone()[0]
        sessions = store.connection.execute("SELECT count(*) FROM sessions").fetchone()[0]
    finally:
        store.close()
    assert (rows, sessions) == (3, 1)
    assert before > 0


def test_round_trip_without_a_database_does_not_create_one(sandbox: Sandbox) -> None:
    assert run(sandbox, "store.round_trip") == [Severity.PASS]
    assert not (sandbox.data_dir / "engram.db").exists()
