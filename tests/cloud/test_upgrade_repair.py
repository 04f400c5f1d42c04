"""``engram cloud upgrade doctor|repair`` for pending journal rows the cloud would refuse."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engram.testing import Sandbox
from tests.cloud.conftest import SYNC_TOKEN, StartServer, server_env
from tests.cloud.laptops import Laptop


def _damage_journal(db: Path) -> None:
    """A journal as an older Engram (or a hand edit) may leave it: one row lacking a field of
    a memory that still exists, one malformed row of a prompt that no longer exists."""
    with sqlite3.connect(db) as conn:
        conn.execute(
            "UPDATE sync_mutations SET payload = json_remove(payload, '$.scope')"
            " WHERE entity = 'observation' AND json_extract(payload, '$.title') = 'kept decision'"
        )
        conn.execute(
            "INSERT INTO sync_mutations (entity, entity_key, op, project, payload)"
            " VALUES ('prompt', 'gone-prompt', 'upsert', 'legacy', '{\"sync_id\": \"gone-prompt\"}')"
        )


def test_repair_re_journals_or_retires_rows_the_cloud_refuses(
    sandbox: Sandbox, start_server: StartServer, database_url: str, tmp_path: Path
) -> None:
    cloud = start_server(server_env(database_url))
    base = sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN)
    a, b = Laptop(tmp_path / "a", base), Laptop(tmp_path / "b", base)
    a.ok("save", "kept decision", "use Postgres for the cloud", "--project", "legacy")
    a.ok("save", "second note", "stays as it is", "--project", "legacy")
    a.ok("cloud", "config", "--server", cloud.url)
    _damage_journal(a.data_dir / "engram.db")

    doctor = a.ok("cloud", "upgrade", "doctor", "--project", "legacy")
    assert "blocked (repairable/invalid_journal_rows)" in doctor
    assert "re-journal observation" in doctor and "prompt gone-prompt" in doctor
    refused = a.run("cloud", "upgrade", "bootstrap", "--project", "legacy")
    assert refused.returncode == 1 and refused.stderr.startswith("error: invalid_journal_rows")
    assert "repair --project legacy --apply" in refused.stderr

    plan = a.ok("cloud", "upgrade", "repair", "--project", "legacy", "--dry-run")
    assert plan.count("would: ") == 2
    assert a.ok("cloud", "upgrade", "doctor", "--project", "legacy") == doctor  # dry run
    applied = a.ok("cloud", "upgrade", "repair", "--project", "legacy", "--apply")
    assert applied.count("applied: ") == 2
    assert a.ok("cloud", "upgrade", "doctor", "--project", "legacy").strip() == "legacy: ready"
    assert "nothing to repair" in a.ok(
        "cloud", "upgrade", "repair", "--project", "legacy", "--apply"
    )
    done = a.ok("cloud", "upgrade", "bootstrap", "--project", "legacy")
    assert done.strip() == "legacy: bootstrap_verified"

    b.ok("cloud", "config", "--server", cloud.url)
    b.ok("cloud", "enroll", "legacy")
    b.ok("sync", "--cloud", "--import", "--project", "legacy")
    assert sorted(t for t, _, _ in b.memories("legacy").values()) == [
        "kept decision",
        "second note",
    ]


def test_a_malformed_delete_has_no_automatic_repair(
    sandbox: Sandbox, start_server: StartServer, database_url: str, tmp_path: Path
) -> None:
    cloud = start_server(server_env(database_url))
    a = Laptop(tmp_path / "a", sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN))
    a.ok("save", "a note", "body", "--project", "legacy")
    a.ok("cloud", "config", "--server", cloud.url)
    with sqlite3.connect(a.data_dir / "engram.db") as conn:
        conn.execute(
            "INSERT INTO sync_mutations (entity, entity_key, op, project, payload)"
            " VALUES ('observation', 'obs-x', 'delete', 'legacy', '{}')"
        )
    doctor = a.ok("cloud", "upgrade", "doctor", "--project", "legacy")
    assert "blocked (blocked/invalid_journal_rows)" in doctor
    assert "has no safe automatic repair" in doctor
    assert "nothing to repair" in a.ok(
        "cloud", "upgrade", "repair", "--project", "legacy", "--apply"
    )
    refused = a.run("cloud", "upgrade", "bootstrap", "--project", "legacy")
    assert refused.returncode == 1 and "see engram cloud upgrade doctor" in refused.stderr
