"""Export/import round trips and all-or-nothing imports, on real SQLite stores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engram.errors import EngramError
from engram.memory.backup import export_backup, import_backup
from engram.store import observations, prompts, sessions
from engram.store.backup import read_rows
from engram.store.db import Store
from engram.store.observations import NewObservation
from engram.testing import Sandbox

NOW = "2026-01-02 03:04:05"


def seeded_store(path: Path) -> Store:
    store = Store.open(path)
    with store.write() as conn:
        sessions.create(conn, "s-1", project="acme", directory="/w/acme", now=NOW)
        sessions.create(conn, "s-2", project="other", directory="/w/other", now=NOW)
        first = observations.insert(conn, _obs("s-1", "Auth uses JWT", "acme"), NOW)
        observations.insert(conn, _obs("s-1", "Cache TTL is 60s", "acme"), NOW)
        gone = observations.insert(conn, _obs("s-1", "Old note", "acme"), NOW)
        observations.insert(conn, _obs("s-2", "Other project note", "other"), NOW)
        observations.set_pinned(conn, first, True)
        observations.soft_delete(conn, gone, NOW)
        prompts.insert(
            conn, session_id="s-1", content="how does auth work?", project="acme", now=NOW
        )
        sync_ids = [r[0] for r in conn.execute("SELECT sync_id FROM observations ORDER BY id")]
        for index, (source, target, status) in enumerate(
            [(sync_ids[0], sync_ids[1], "judged"), (sync_ids[1], "obs-vanished", "orphaned")]
        ):
            conn.execute(
                "INSERT INTO memory_relations (sync_id, source_id, target_id, relation,"
                " judgment_status, created_at, updated_at) VALUES (?, ?, ?, 'related', ?, ?, ?)",
                (f"rel-{index}", source, target, status, NOW, NOW),
            )
    return store


def _obs(session: str, title: str, project: str) -> NewObservation:
    return NewObservation(
        session_id=session,
        type="decision",
        title=title,
        content=f"{title} — details",
        project=project,
        scope="project",
        normalized_hash=f"hash-{title}",
    )


def snapshot(store: Store, project: str | None = None) -> dict[str, Any]:
    with store.read() as conn:
        rows = read_rows(conn, project)
    return {
        "sessions": rows.sessions,
        "observations": rows.observations,
        "prompts": rows.prompts,
        "relations": rows.relations,
    }


def test_export_then_import_into_an_empty_store_reproduces_every_row(sandbox: Sandbox) -> None:
    with seeded_store(sandbox.root / "a") as original, Store.open(sandbox.root / "b") as copy:
        backup = export_backup(original, None)
        assert backup["version"] == "0.2.0"
        result = import_backup(copy, json.dumps(backup))
        assert (result.observations, result.sessions, result.prompts, result.relations) == (
            4,
            2,
            1,
            2,
        )
        assert snapshot(copy) == snapshot(original)
        fts = "SELECT rowid FROM observations_fts WHERE observations_fts MATCH 'note'"
        assert (
            copy.connection.execute(fts).fetchall() == original.connection.execute(fts).fetchall()
        )


def test_project_export_carries_its_sessions_pins_and_relations(sandbox: Sandbox) -> None:
    with seeded_store(sandbox.root / "a") as original:
        backup = export_backup(original, "acme")
    assert {s["id"] for s in backup["sessions"]} == {"s-1"}
    assert {o["project"] for o in backup["observations"]} == {"acme"}
    assert [o["pinned"] for o in backup["observations"]] == [True, False, False]
    assert backup["observations"][2]["deleted_at"] == NOW
    assert len(backup["relations"]) == 2


def test_importing_the_same_backup_twice_adds_nothing(sandbox: Sandbox) -> None:
    with seeded_store(sandbox.root / "a") as original, Store.open(sandbox.root / "b") as copy:
        text = json.dumps(export_backup(original, None))
        import_backup(copy, text)
        again = import_backup(copy, text)
        assert (again.observations, again.skipped) == (0, 9)
        assert snapshot(copy) == snapshot(original)


def test_legacy_010_backups_import_without_pins_or_relations(sandbox: Sandbox) -> None:
    with seeded_store(sandbox.root / "a") as original, Store.open(sandbox.root / "b") as copy:
        backup = export_backup(original, None)
        backup["version"] = "0.1.0"
        del backup["relations"]  # a 0.1.0 file has none (one that carries them keeps them)
        for observation in backup["observations"]:
            del observation["pinned"]
        result = import_backup(copy, json.dumps(backup))
        assert (result.version, result.relations) == ("0.1.0", 0)
        assert not any(o["pinned"] for o in snapshot(copy)["observations"])


def _corrupt_cases() -> list[tuple[str, str, str]]:
    good: dict[str, Any] = {"version": "0.2.0", "sessions": [], "prompts": [], "relations": []}
    obs = {"sync_id": "obs-1", "title": "t", "content": "c", "project": "p", "created_at": NOW}
    cases = [
        ("not json", "{nope", "backup.not_json"),
        ("wrong version", json.dumps({**good, "version": "9.9.9"}), "backup.unsupported_version"),
        ("no version", json.dumps({"sessions": []}), "backup.unsupported_version"),
        ("a list", "[]", "backup.invalid"),
        ("missing lists", json.dumps({"version": "0.2.0"}), "backup.invalid"),
    ]
    no_title = {**obs}
    del no_title["title"]
    cases.append(
        ("missing title", json.dumps({**good, "observations": [obs, no_title]}), "backup.invalid")
    )
    cases.append(
        (
            "bad type",
            json.dumps({**good, "observations": [{**obs, "revision_count": "two"}]}),
            "backup.invalid",
        )
    )
    cases.append(
        (
            "missing session",
            json.dumps({**good, "observations": [{**obs, "session_id": "nowhere"}]}),
            "backup.dangling_reference",
        )
    )
    relation = {
        "id": 1,
        "sync_id": "rel-x",
        "source_id": "obs-1",
        "target_id": "obs-missing",
        "relation": "related",
        "judgment_status": "judged",
        "created_at": NOW,
    }
    cases.append(
        (
            "dangling relation",
            json.dumps({**good, "observations": [obs], "relations": [relation]}),
            "backup.dangling_reference",
        )
    )
    cases.append(
        (
            "missing superseding relation",
            json.dumps(
                {
                    **good,
                    "observations": [obs],
                    "relations": [{**relation, "target_id": "obs-1", "superseded_by_id": 7}],
                }
            ),
            "backup.dangling_reference",
        )
    )
    cases.append(
        ("duplicate ids", json.dumps({**good, "observations": [obs, obs]}), "backup.invalid")
    )
    cases.append(("nested too deeply", "[" * 100_000, "backup.not_json"))
    return cases


@pytest.mark.parametrize(("label", "text", "code"), _corrupt_cases(), ids=lambda v: str(v)[:20])
def test_a_bad_backup_changes_nothing(sandbox: Sandbox, label: str, text: str, code: str) -> None:
    with seeded_store(sandbox.root / "a") as store:
        before = snapshot(store)
        with pytest.raises(EngramError) as caught:
            import_backup(store, text)
        assert caught.value.code == code, label
        assert "\n" not in caught.value.one_line()
        assert snapshot(store) == before


def test_orphaned_relations_may_point_at_missing_observations(sandbox: Sandbox) -> None:
    relation = {
        "id": 3,
        "sync_id": "rel-orphan",
        "source_id": "obs-gone-1",
        "target_id": "obs-gone-2",
        "relation": "conflicts_with",
        "judgment_status": "orphaned",
        "created_at": NOW,
    }
    text = json.dumps(
        {
            "version": "0.2.0",
            "sessions": [],
            "observations": [],
            "prompts": [],
            "relations": [relation],
        }
    )
    with Store.open(sandbox.root / "b") as store:
        assert import_backup(store, text).relations == 1
        assert snapshot(store)["relations"][0]["source_id"] == "obs-gone-1"


def test_legacy_rows_without_sync_ids_get_stable_ones(sandbox: Sandbox) -> None:
    legacy = {
        "version": "0.1.0",
        "sessions": [{"id": "s-old", "project": "acme", "started_at": NOW}],
        "observations": [
            {
                "session_id": "s-old",
                "title": "Old",
                "content": "from 0.1",
                "project": "acme",
                "created_at": NOW,
            }
        ],
        "prompts": [
            {"session_id": "s-old", "content": "old prompt", "project": "acme", "created_at": NOW}
        ],
    }
    with Store.open(sandbox.root / "b") as store:
        first = import_backup(store, json.dumps(legacy))
        again = import_backup(store, json.dumps(legacy))
        assert (first.observations, first.prompts) == (1, 1)
        assert (again.observations, again.prompts, again.skipped) == (0, 0, 3)
        rows = snapshot(store)
        assert rows["observations"][0]["sync_id"].startswith("obs-legacy-")
        assert rows["observations"][0]["normalized_hash"]


def test_private_spans_in_a_backup_are_redacted_on_import(sandbox: Sandbox) -> None:
    backup = {
        "version": "0.2.0",
        "sessions": [
            {"id": "s-1", "project": "acme", "started_at": NOW, "summary": "<private>k1</private>"}
        ],
        "observations": [
            {
                "sync_id": "obs-p",
                "session_id": "s-1",
                "title": "Key <private>k2</private>",
                "content": "token <private>k3</private> here",
                "project": "acme",
                "normalized_hash": "stale",
                "created_at": NOW,
            }
        ],
        "prompts": [
            {"sync_id": "p-1", "session_id": "s-1", "content": "<private>k4", "created_at": NOW}
        ],
    }
    with Store.open(sandbox.root / "b") as store:
        import_backup(store, json.dumps(backup))
        rows = snapshot(store)
    assert not any(f"k{n}" in json.dumps(rows) for n in range(1, 5))
    observation = rows["observations"][0]
    assert (observation["title"], observation["content"]) == (
        "Key [REDACTED]",
        "token [REDACTED] here",
    )
    assert observation["normalized_hash"] != "stale"
