"""Every file the Go ``engram export`` writes imports; ours carries what the Go importer reads."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from engram.memory.backup import export_backup, import_backup
from engram.memory.save import save_observation
from engram.store.db import Store
from engram.testing import Sandbox
from tests.legacy.conftest import Run
from tests.legacy.go_stores import build_v01


def go_v01_export(db: Path) -> dict[str, Any]:
    """The file the Go v0.1.x ``engram export`` writes for ``db``: ``omitempty`` pointers
    (tool_name, project, ended_at, summary) left out when NULL, ``version`` "0.1.0"."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row

    def pick(sql: str) -> list[dict[str, Any]]:
        return [{k: v for k, v in dict(r).items() if v is not None} for r in conn.execute(sql)]

    data = {
        "version": "0.1.0",
        "exported_at": "2025-01-05 00:00:00",
        "sessions": pick(
            "SELECT id, project, directory, started_at, ended_at, summary FROM sessions"
            " ORDER BY started_at"
        ),
        "observations": pick(
            "SELECT id, session_id, type, title, content, tool_name, project, created_at"
            " FROM observations ORDER BY id"
        ),
        "prompts": [
            {**p, "project": p.get("project", "")}  # Prompt.Project is a plain string
            for p in pick(
                "SELECT id, session_id, content, project, created_at FROM user_prompts ORDER BY id"
            )
        ],
    }
    conn.close()
    return data


GO_2X_EXPORT: dict[str, Any] = {
    "version": "0.1.0",
    "exported_at": "2025-03-05 00:00:00",
    "sessions": [
        {"id": "s-acme", "project": "acme", "directory": "/w", "started_at": "2025-03-01 09:00:00",
         "ended_at": "2025-03-01 10:00:00", "summary": "done"},
        {"id": "s-old", "project": "", "directory": "/w/old", "started_at": "2025-02-01 09:00:00"},
    ],
    "observations": [
        {"id": 7, "sync_id": "obs-a1", "session_id": "s-acme", "type": "architecture",
         "title": "Cache layer", "content": "Redis in front", "tool_name": "Edit",
         "project": "acme", "scope": "project", "topic_key": "architecture/cache",
         "revision_count": 3, "duplicate_count": 2, "last_seen_at": "2025-03-01 09:40:00",
         "created_at": "2025-03-01 09:10:00", "updated_at": "2025-03-01 09:40:00"},
        {"id": 8, "sync_id": "obs-a2", "session_id": "s-acme", "type": "bugfix",
         "title": "Dropped retry", "content": "gone", "project": "acme", "scope": "personal",
         "revision_count": 1, "duplicate_count": 1, "created_at": "2025-03-01 09:20:00",
         "updated_at": "2025-03-01 09:30:00", "deleted_at": "2025-03-01 09:30:00"},
        {"id": 9, "sync_id": "obs-a3", "session_id": "s-old", "type": "discovery",
         "title": "Legacy note", "content": "no project here", "scope": "project",
         "revision_count": 1, "duplicate_count": 1, "created_at": "2025-02-01 09:10:00",
         "updated_at": "2025-02-01 09:10:00"},
    ],
    "prompts": [
        {"id": 1, "sync_id": "prompt-1", "session_id": "s-acme", "content": "go faster",
         "project": "acme", "created_at": "2025-03-01 09:01:00"},
    ],
}  # fmt: skip


def test_a_go_v01_export_with_a_row_without_project_imports(sandbox: Sandbox, cli: Run) -> None:
    data = go_v01_export(build_v01(sandbox.root / "go"))
    assert "project" not in data["observations"][1]  # the legacy row, as the Go tool writes it
    path = sandbox.root / "go-export.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    first = cli("import", str(path))
    assert first.returncode == 0, first.stderr
    assert "imported 3 observations, 2 sessions, 2 prompts" in first.stdout
    assert "2 of them belong to no project" in first.stdout
    assert "rescue-ownership" in first.stdout
    again = cli("import", str(path), "--json")
    assert json.loads(again.stdout)["observations"] == 0
    with Store.open() as store:
        rows = store.connection.execute(
            "SELECT id, title, project, session_id FROM observations ORDER BY id"
        ).fetchall()
    assert [tuple(r) for r in rows] == [
        (1, "Redis for the cache", "acme", "s-acme"),
        (2, "Fixed the flaky login", "", "s-acme"),
        (3, "Use table tests", "beta", "s-beta"),
    ]


def test_a_go_2x_export_keeps_every_field(sandbox: Sandbox) -> None:
    with Store.open() as store:
        result = import_backup(store, json.dumps(GO_2X_EXPORT))
        assert (result.observations, result.sessions, result.prompts) == (3, 2, 1)
        assert result.unowned == 1
        got = [
            tuple(r)
            for r in store.connection.execute(
                "SELECT id, sync_id, project, scope, topic_key, revision_count, duplicate_count,"
                " last_seen_at, updated_at, deleted_at FROM observations ORDER BY id"
            )
        ]
    assert got == [
        (7, "obs-a1", "acme", "project", "architecture/cache", 3, 2, "2025-03-01 09:40:00",
         "2025-03-01 09:40:00", None),
        (8, "obs-a2", "acme", "personal", None, 1, 1, None, "2025-03-01 09:30:00",
         "2025-03-01 09:30:00"),
        (9, "obs-a3", "", "project", None, 1, 1, None, "2025-02-01 09:10:00", None),
    ]  # fmt: skip


def test_a_go_export_and_its_converted_store_share_sync_ids(sandbox: Sandbox) -> None:
    go_db = build_v01(sandbox.root / "go")
    export = go_v01_export(go_db)
    with Store.open(sandbox.root / "imported") as store:
        import_backup(store, json.dumps(export))
        imported = {r[0] for r in store.connection.execute("SELECT sync_id FROM observations")}
        imported_prompts = {
            r[0] for r in store.connection.execute("SELECT sync_id FROM user_prompts")
        }
    with Store.open(sandbox.root / "go") as converted:  # the first write converts it
        # Importing the Go export into its own converted store adds nothing.
        again = import_backup(converted, json.dumps(export))
        assert (again.observations, again.prompts) == (0, 0)
        mine = {r[0] for r in converted.connection.execute("SELECT sync_id FROM observations")}
        prompts = {r[0] for r in converted.connection.execute("SELECT sync_id FROM user_prompts")}
    assert mine == imported and prompts == imported_prompts
    assert go_db.exists()


# The Go tool's ExportData, as its importer decodes it: JSON field -> the kinds it accepts.
GO_READS = {
    "sessions": {"id": (str,), "project": (str,), "directory": (str,), "started_at": (str,),
                 "ended_at": (str, type(None)), "summary": (str, type(None))},
    "observations": {"id": (int,), "sync_id": (str,), "session_id": (str,), "type": (str,),
                     "title": (str,), "content": (str,), "tool_name": (str, type(None)),
                     "project": (str, type(None)), "scope": (str,),
                     "topic_key": (str, type(None)), "revision_count": (int,),
                     "duplicate_count": (int,), "last_seen_at": (str, type(None)),
                     "created_at": (str,), "updated_at": (str,),
                     "deleted_at": (str, type(None))},
    "prompts": {"id": (int,), "sync_id": (str,), "session_id": (str,), "content": (str,),
                "project": (str,), "created_at": (str,)},
}  # fmt: skip


def test_our_export_has_every_field_the_go_importer_reads(sandbox: Sandbox) -> None:
    with Store.open() as store:
        save_observation(store, title="Cache", content="redis", project="acme", type="decision")
        store.connection.execute(
            "INSERT INTO user_prompts (sync_id, session_id, content, project, created_at)"
            " VALUES ('prompt-x', 'manual-save-acme', 'hi', 'acme', '2025-01-01 00:00:00')"
        )
        backup = export_backup(store, None)
    assert isinstance(backup["version"], str) and isinstance(backup["exported_at"], str)
    for kind, fields in GO_READS.items():
        assert backup[kind], kind
        for record in backup[kind]:
            for name, kinds in fields.items():
                assert isinstance(record.get(name), kinds), (kind, name, record.get(name))
                assert not isinstance(record.get(name), bool) or bool in kinds


def test_blank_go_fields_take_the_go_defaults(sandbox: Sandbox) -> None:
    data = {
        "version": "0.1.0",
        "sessions": [{"id": "s1", "project": "", "directory": "", "started_at": "2025-01-01 00:00:00"}],
        "observations": [
            {"id": 1, "sync_id": "obs-blank", "session_id": "", "type": "", "title": "",
             "content": "first line\nsecond", "scope": "", "revision_count": 0,
             "duplicate_count": 0, "created_at": "2025-01-01 00:01:00"}
        ],
        "prompts": [{"id": 1, "session_id": "s1", "content": "hi", "created_at": "2025-01-01 00:02:00"}],
    }  # fmt: skip
    with Store.open() as store:
        result = import_backup(store, json.dumps(data))
        row = store.connection.execute(
            "SELECT type, title, scope, project, session_id, revision_count, duplicate_count"
            " FROM observations"
        ).fetchone()
    assert (result.observations, result.prompts, result.unowned) == (1, 1, 2)
    assert tuple(row) == ("manual", "first line", "project", "", None, 1, 1)
