"""Import checks what save checks (issue 10, point 10): one bad row is a one-line error naming
it and nothing is imported; and the store's own export re-imports after a hard delete."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engram.memory.relations import compare
from engram.store.db import Store
from engram.testing import Sandbox
from tests.reliability.conftest import Run, assert_one_line_error

Backup = dict[str, Any]


def _dump(db: Path) -> list[Any]:
    with sqlite3.connect(db) as conn:
        return [
            conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
            for table in ("observations", "sessions", "user_prompts", "memory_relations")
        ]


@pytest.fixture
def backup(sandbox: Sandbox, engram: Run) -> Backup:
    """A valid export of a small store made elsewhere (two related observations, a prompt)."""
    other = {"ENGRAM_DATA_DIR": str(sandbox.root / "elsewhere")}
    for title in ("Cache layout", "Cache layout v2"):
        assert engram("save", title, "Keys are hashed", "--project", "shop", env=other)
    with Store.open(sandbox.root / "elsewhere") as store:
        compare(store, 1, 2, "related", confidence=0.8, reasoning="same cache")
    event = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": "h",
        "prompt": "hello",
        "cwd": str(sandbox.workspace),
    }
    engram("hook", "claude", stdin=json.dumps(event), env={**other, "ENGRAM_PROJECT": "shop"})
    exported = engram("export", "--all", env=other)
    assert exported.returncode == 0, exported.stderr
    data: Backup = json.loads(exported.stdout)
    assert data["observations"] and data["relations"] and data["prompts"]
    return data


def _set(kind: str, field: str, value: Any) -> Callable[[Backup], None]:
    def change(data: Backup) -> None:
        data[kind][0][field] = value

    return change


BAD_ROWS = {
    "scope": ("observations[0].scope", _set("observations", "scope", "galaxy")),
    "project": ("observations[0].project", _set("observations", "project", "../etc")),
    "huge id": ("observations[0].id", _set("observations", "id", 10**30)),
    "negative count": (
        "observations[0].duplicate_count",
        _set("observations", "duplicate_count", -5),
    ),
    "timestamp": ("observations[0].created_at", _set("observations", "created_at", "yesterday")),
    "deleted_at": ("observations[0].deleted_at", _set("observations", "deleted_at", "soon")),
    "size": ("observations[0].content", _set("observations", "content", "x" * 5000)),
    "title size": ("observations[0].title", _set("observations", "title", "t" * 5000)),
    "sync id": ("observations[0].sync_id", _set("observations", "sync_id", "a\x00b")),
    "session time": ("sessions[0].started_at", _set("sessions", "started_at", "13/45/2026")),
    "prompt project": ("prompts[0].project", _set("prompts", "project", "a/b")),
    "prompt size": ("prompts[0].content", _set("prompts", "content", "p" * 5000)),
    "verdict": ("relations[0].relation", _set("relations", "relation", "hates")),
    "status": ("relations[0].judgment_status", _set("relations", "judgment_status", "maybe")),
    "confidence": ("relations[0].confidence", _set("relations", "confidence", 7)),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_a_bad_row_is_named_and_nothing_is_imported(
    sandbox: Sandbox, engram: Run, backup: Backup, case: str
) -> None:
    assert engram("save", "Mine", "already here", "--project", "mine").returncode == 0
    before = _dump(sandbox.data_dir / "engram.db")
    row, change = BAD_ROWS[case]
    change(backup)
    file = sandbox.root / "bad.json"
    file.write_text(json.dumps(backup))
    result = engram("import", str(file), env={"ENGRAM_MAX_CONTENT_BYTES": "4096"})
    assert_one_line_error(result)
    assert row in result.stderr, result.stderr
    assert _dump(sandbox.data_dir / "engram.db") == before


def test_export_after_a_hard_delete_reimports(sandbox: Sandbox, engram: Run) -> None:
    for title in ("Queue sizing", "Queue sizing again"):
        assert engram("save", title, "Use 64", "--project", "shop").returncode == 0
    with Store.open(sandbox.data_dir) as store:
        compare(store, 1, 2, "supersedes", confidence=0.9, reasoning="newer")
    assert engram("delete", "1", "--hard", "--project", "shop").returncode == 0
    file = sandbox.root / "export.json"
    assert engram("export", str(file), "--all").returncode == 0
    relations = json.loads(file.read_text())["relations"]
    assert relations and all(r["judgment_status"] == "orphaned" for r in relations)
    fresh = {"ENGRAM_DATA_DIR": str(sandbox.root / "fresh")}
    result = engram("import", str(file), env=fresh)
    assert result.returncode == 0, result.stderr
    again = engram("import", str(file))
    assert again.returncode == 0, again.stderr
