"""Ownership rescue: only unowned rows move, the plan never moves anything out from under a
record of another project, and everything left behind is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engram.errors import EngramError
from engram.memory.rescue import rescue_ownership
from engram.store.db import Store
from engram.testing import Sandbox

ENGRAM = Path(sys.executable).with_name("engram")
NOW = "2026-01-01 00:00:00"


def _legacy(store: Store) -> dict[str, int]:
    """Rows as an old Engram left them: blank or NULL-like projects next to owned ones."""
    conn = store.connection
    for sid, project in (("s-blank", ""), ("s-space", "  "), ("s-owned", "other"), ("s-mixed", "")):
        conn.execute(
            "INSERT INTO sessions (id, project, started_at) VALUES (?, ?, ?)", (sid, project, NOW)
        )
    ids = {}
    for key, session, project in (
        ("free", "s-blank", ""),
        ("under_owned", "s-owned", ""),
        ("owned", "s-owned", "other"),
        ("foreign_child", "s-mixed", "other"),
    ):
        cursor = conn.execute(
            "INSERT INTO observations (sync_id, session_id, title, content, project,"
            " normalized_hash, created_at, updated_at) VALUES (?, ?, 't', 'c', ?, 'h', ?, ?)",
            (f"obs-{key}", session, project, NOW, NOW),
        )
        ids[key] = int(cursor.lastrowid or 0)
    cursor = conn.execute(
        "INSERT INTO user_prompts (sync_id, session_id, content, project, created_at)"
        " VALUES ('p-1', 's-blank', 'q', ' ', ?)",
        (NOW,),
    )
    ids["prompt"] = int(cursor.lastrowid or 0)
    return ids


def _project(store: Store, table: str, row_id: object) -> str:
    return str(
        store.connection.execute(f"SELECT project FROM {table} WHERE id = ?", (row_id,)).fetchone()[
            0
        ]
    )


def test_rescue_moves_only_unowned_rows(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        ids = _legacy(store)
        report = rescue_ownership(
            store,
            "Acme",
            session_ids=["s-blank", "s-space", "s-owned", "s-mixed", "nope"],
            observation_ids=[ids["free"], ids["under_owned"], ids["owned"], 99999],
            prompt_ids=[ids["prompt"]],
        )
        data = report.to_dict()
        assert data["target_project"] == "acme"
        assert data["rescued_sessions"] == 2
        assert data["rescued_observations"] == 1
        assert data["rescued_prompts"] == 1
        assert data["status"] == "partially_rescued" and data["complete"] is False
        blocked = {(b["kind"], str(b["id"]), b["reason"], b["owned_by"]) for b in data["blocked"]}
        assert blocked == {
            ("session", "s-owned", "owned_by_other_project", "other"),
            ("session", "s-mixed", "dependent_record_owned_by_other_project", ""),
            ("session", "nope", "missing", ""),
            ("observation", str(ids["under_owned"]), "session_owned_by_other_project", "other"),
            ("observation", str(ids["owned"]), "owned_by_other_project", "other"),
            ("observation", "99999", "missing", ""),
        }
        assert data["conflicting_records"] == 4
        assert data["journaled_local"] is True
        assert _project(store, "sessions", "s-blank") == "acme"
        assert _project(store, "sessions", "s-space") == "acme"
        assert _project(store, "sessions", "s-owned") == "other"
        assert _project(store, "sessions", "s-mixed") == ""
        assert _project(store, "observations", ids["free"]) == "acme"
        assert _project(store, "observations", ids["under_owned"]) == ""
        assert _project(store, "observations", ids["owned"]) == "other"
        assert _project(store, "user_prompts", ids["prompt"]) == "acme"
        again = rescue_ownership(store, "acme", session_ids=["s-blank"])
        assert again.to_dict()["status"] == "rescued"
        assert again.to_dict()["skipped_records"] == 1
        assert again.to_dict()["journaled_local"] is False


def test_rescue_needs_a_selection_and_a_name(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        with pytest.raises(EngramError) as nothing:
            rescue_ownership(store, "acme", session_ids=[" "], observation_ids=[0, -2])
        assert nothing.value.code == "memory.rescue_nothing_selected"
        with pytest.raises(EngramError) as bad:
            rescue_ownership(store, "a/b", session_ids=["x"])
        assert bad.value.code == "project.invalid_name"


def test_cli_rescue_needs_no_server(sandbox: Sandbox) -> None:
    sandbox.data_dir.mkdir(parents=True, exist_ok=True)
    with Store.open(sandbox.data_dir) as store:
        _legacy(store)
    done = subprocess.run(
        [
            str(ENGRAM),
            "projects",
            "rescue-ownership",
            "--project",
            "acme",
            "--session",
            "s-blank",
            "--session",
            "s-owned",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["rescued_sessions"] == 1
    assert [b["id"] for b in data["blocked"]] == ["s-owned"]
    text = subprocess.run(
        [str(ENGRAM), "projects", "rescue-ownership", "--project", "acme"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
        timeout=60,
    )
    # No ids: every legacy row of the project (here the unowned records of sessions it owns).
    assert text.returncode == 0 and text.stdout.startswith("moved "), text.stderr


def test_rescue_without_ids_takes_every_legacy_row_of_the_project(sandbox: Sandbox) -> None:
    repo = sandbox.workspace / "acme"
    repo.mkdir()
    with Store.open(sandbox.data_dir) as store:
        conn = store.connection
        for sid, directory in (
            ("s-acme", str(repo)),
            ("s-gone", "/old/laptop/acme"),
            ("s-other", "/old/laptop/billing"),
        ):
            conn.execute(
                "INSERT INTO sessions (id, project, directory, started_at) VALUES (?, '', ?, ?)",
                (sid, directory, NOW),
            )
        conn.execute(
            "INSERT INTO sessions (id, project, started_at) VALUES ('s-own', 'acme', ?)", (NOW,)
        )
        for key, session in (("a", "s-acme"), ("b", "s-gone"), ("c", "s-other"), ("d", "s-own")):
            conn.execute(
                "INSERT INTO observations (sync_id, session_id, title, content, project,"
                " normalized_hash, created_at, updated_at) VALUES (?, ?, 't', 'c', '', 'h', ?, ?)",
                (f"obs-{key}", session, NOW, NOW),
            )
    done = subprocess.run(
        [str(ENGRAM), "projects", "rescue-ownership", "--project", "acme"],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
    )
    assert done.returncode == 0, done.stderr
    assert "moved 2 sessions, 3 observations, 0 prompts to 'acme'" in done.stdout, done.stdout
    with Store.open(sandbox.data_dir) as store:
        rows = dict(store.connection.execute("SELECT sync_id, project FROM observations"))
        assert rows == {"obs-a": "acme", "obs-b": "acme", "obs-c": "", "obs-d": "acme"}
        sessions = dict(store.connection.execute("SELECT id, project FROM sessions"))
        assert sessions["s-other"] == "" and sessions["s-gone"] == "acme"
    # The ids only narrow it.
    again = subprocess.run(
        [
            str(ENGRAM),
            "projects",
            "rescue-ownership",
            "--project",
            "billing",
            "--session",
            "s-other",
        ],
        capture_output=True,
        text=True,
        env=sandbox.env(),
        cwd=sandbox.workspace,
    )
    assert "moved 1 session, 0 observations, 0 prompts to 'billing'" in again.stdout, again.stdout
