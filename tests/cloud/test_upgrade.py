"""``engram cloud upgrade``: doctor, repair, checkpointed bootstrap, status, rollback; and the
CLI reason codes for policy and pause refusals."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from engram.testing import Sandbox
from tests.cloud.conftest import ADMIN_TOKEN, SYNC_TOKEN, StartServer, server_env
from tests.cloud.laptops import Laptop


def test_upgrade_an_existing_project_into_the_cloud(
    sandbox: Sandbox, start_server: StartServer, database_url: str, tmp_path: Path
) -> None:
    cloud = start_server(server_env(database_url, ENGRAM_CLOUD_ALLOWED_PROJECTS="legacy"))
    base = sandbox.env(ENGRAM_CLOUD_TOKEN=SYNC_TOKEN)
    a, b = Laptop(tmp_path / "a", base), Laptop(tmp_path / "b", base)
    a.ok("save", "kept decision", "first line of it\nmore", "--project", "legacy")
    a.ok("save", "old note", "Needs a title\nbody", "--project", "legacy")
    with sqlite3.connect(a.data_dir / "engram.db") as conn:
        conn.execute("UPDATE observations SET title = ' ' WHERE title = 'old note'")
    assert "not_started" in a.ok("cloud", "upgrade", "status", "--project", "legacy")
    unconfigured = a.ok("cloud", "upgrade", "doctor", "--project", "legacy")
    assert "blocked (blocked/cloud_config_error)" in unconfigured
    a.ok("cloud", "config", "--server", cloud.url)
    doctor = a.ok("cloud", "upgrade", "doctor", "--project", "legacy")
    assert "blocked (repairable/untitled_observations)" in doctor
    refused = a.run("cloud", "upgrade", "bootstrap", "--project", "legacy")
    assert refused.returncode == 1 and refused.stderr.startswith("error: untitled_observations")
    plan = a.ok("cloud", "upgrade", "repair", "--project", "legacy", "--dry-run")
    assert "would: title observation" in plan and "'Needs a title'" in plan
    a.ok("cloud", "upgrade", "repair", "--project", "legacy", "--apply")
    assert a.ok("cloud", "upgrade", "doctor", "--project", "legacy").strip() == "legacy: ready"
    done = a.ok("cloud", "upgrade", "bootstrap", "--project", "legacy", "--resume")
    assert done.strip() == "legacy: bootstrap_verified"
    status = json.loads(a.ok("cloud", "upgrade", "status", "--project", "legacy", "--json"))
    assert status["stage"] == "bootstrap_verified"
    blocked = a.run("cloud", "upgrade", "rollback", "--project", "legacy")
    assert blocked.returncode == 1 and "bootstrap_verified" in blocked.stderr

    b.ok("cloud", "config", "--server", cloud.url)
    b.ok("cloud", "enroll", "legacy")
    b.ok("sync", "--cloud", "--import", "--project", "legacy")
    assert sorted(t for t, _, _ in b.memories("legacy").values()) == [
        "Needs a title",
        "kept decision",
    ]

    # A project outside the allowlist stops at its checkpoint and rolls back cleanly.
    a.ok("save", "secret", "not for this cloud", "--project", "secret")
    stopped = a.run("cloud", "upgrade", "bootstrap", "--project", "secret")
    assert stopped.returncode == 1 and stopped.stderr.startswith("error: policy_forbidden")
    assert "ENGRAM_CLOUD_ALLOWED_PROJECTS" in stopped.stderr
    state = json.loads(a.ok("cloud", "upgrade", "status", "--project", "secret", "--json"))
    assert state["stage"] == "bootstrap_enrolled" and state["reason_code"] == "policy_forbidden"
    assert "rolled back from bootstrap_enrolled" in a.ok(
        "cloud", "upgrade", "rollback", "--project", "secret"
    )
    unenrolled = a.run("sync", "--cloud", "--project", "secret")
    assert unenrolled.stderr.startswith("error: blocked_unenrolled")

    # A paused project: the push is refused with the paused reason; pulls still work.
    cloud.client(ADMIN_TOKEN).post("/admin/projects/legacy/sync", json={"enabled": False})
    a.ok("save", "while paused", "waits", "--project", "legacy")
    paused = a.run("sync", "--cloud", "--project", "legacy")
    assert paused.returncode == 1 and paused.stderr.startswith("error: paused")
    a.ok("sync", "--cloud", "--import", "--project", "legacy")
