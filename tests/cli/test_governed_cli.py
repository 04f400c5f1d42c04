"""The governed CLI twins, run as the real ``engram`` console script in the sandbox."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from engram.memory.save import save_observation
from engram.store.db import Store
from engram.testing import Sandbox

ENGRAM = str(Path(sys.executable).parent / "engram")


def engram(sandbox: Sandbox, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENGRAM, *args, "--project", "demo"],
        cwd=sandbox.workspace,
        env=sandbox.env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def journal(sandbox: Sandbox) -> None:
    with Store.open(sandbox.data_dir) as store:
        for title, content, kind in [
            ("Chose SQLite", "One SQLite file with FTS5; no server.", "decision"),
            ("Ranking ties", "Sort FTS ties by id so output is stable.", "bugfix"),
            ("Ran the tests", "All green.", "manual"),
        ]:
            save_observation(store, title=title, content=content, project="demo", type=kind)


def governed_rows(sandbox: Sandbox) -> list[tuple[str, str]]:
    conn = sqlite3.connect(sandbox.data_dir / "engram.db")
    try:
        rows = conn.execute("SELECT id, type FROM governed_memories ORDER BY id").fetchall()
    finally:
        conn.close()
    return [tuple(r) for r in rows]


def test_save_session_proposes_then_force_writes(sandbox: Sandbox) -> None:
    journal(sandbox)
    proposed = engram(sandbox, "save-session", "--json")
    assert proposed.returncode == 0, proposed.stderr
    data = json.loads(proposed.stdout)
    assert [c["title"] for c in data["candidates"]] == ["Chose SQLite", "Ranking ties"]
    assert data["approval_token"]
    assert governed_rows(sandbox) == []  # a proposal writes nothing

    forced = engram(sandbox, "save-session", "--force", "--query-level", "50")
    assert forced.returncode == 0, forced.stderr
    assert "Saved 2 memories." in forced.stdout
    assert governed_rows(sandbox) == [("chose-sqlite", "decision"), ("ranking-ties", "gotcha")]

    again = engram(sandbox, "save-session", "-f", "--json")
    assert [d["reason"] for d in json.loads(again.stdout)["deferred"]] == [
        "duplicate of chose-sqlite",
        "duplicate of ranking-ties",
    ]

    route = json.loads(engram(sandbox, "route", "fix ranking ties", "--json").stdout)
    assert route["kinds"][0] == "debug" and route["entries"][0]["id"] == "ranking-ties"

    loaded = engram(sandbox, "load", "fix ranking ties", "--budget", "500")
    assert "Sort FTS ties by id" in loaded.stdout
    fetched = engram(sandbox, "load", "--id", "chose-sqlite", "--json")
    assert json.loads(fetched.stdout)["body_keys"] == ["decision/chose-sqlite"]

    assert engram(sandbox, "verify").returncode == 0


def test_verify_fails_on_a_tampered_memory(sandbox: Sandbox) -> None:
    journal(sandbox)
    engram(sandbox, "save-session", "--force")
    conn = sqlite3.connect(sandbox.data_dir / "engram.db")
    conn.execute("UPDATE governed_memories SET body = 'use postgres' WHERE id = 'chose-sqlite'")
    conn.commit()
    conn.close()
    result = engram(sandbox, "verify", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["mismatches"][0]["id"] == "chose-sqlite"


def test_bad_input_is_one_line_and_changes_nothing(sandbox: Sandbox) -> None:
    for args in (
        ("save-session", "--force"),  # empty journal
        ("save-session", "--query-level", "0"),
        ("load", "x", "--budget", "-5"),
        ("load", "x", "--disclosure", "loud"),
        ("promote", "no-such-note"),
    ):
        result = engram(sandbox, *args)
        assert result.returncode == 1, args
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, args
    assert not (sandbox.workspace / ".engram" / "pending-approvals.json").exists()


def test_help_does_not_open_the_store(sandbox: Sandbox) -> None:
    for command in ("load", "route", "save-session", "promote", "verify"):
        result = subprocess.run(
            [ENGRAM, command, "--help"],
            env=sandbox.env(),
            capture_output=True,
            text=True,
            cwd=sandbox.workspace,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
    assert not sandbox.data_dir.exists()
    assert os.listdir(sandbox.workspace) == []
