"""The sync deferred queue through ``engram conflicts deferred``: a pulled relation whose
memories have not arrived waits, is retried by replay, and dies after five failures."""

from __future__ import annotations

import json

from engram.memory.conflicts import conflict_stats
from engram.store import sync_deferred
from engram.store.db import Store
from engram.sync.deferred import inspect_deferred, list_deferred, replay_deferred
from engram.testing import Sandbox
from tests.cli.conftest import Run

RELATION = {
    "origin": "f" * 32,
    "seq": 7,
    "entity": "relation",
    "key": "rel-waiting1",
    "op": "upsert",
    "project": "shop",
    "payload": {
        "sync_id": "rel-waiting1",
        "source_id": "obs-notherey",
        "target_id": "obs-notthere2",
        "relation": "conflicts_with",
        "judgment_status": "pending",
        "reason": None,
        "evidence": None,
        "confidence": None,
        "marked_by_kind": None,
        "marked_by_actor": None,
        "marked_by_model": None,
        "session_id": None,
        "superseded_at": None,
        "created_at": "2026-01-15 12:00:00",
        "updated_at": "2026-01-15 12:00:00",
    },
}


def plant(store: Store) -> None:
    with store.write() as conn:
        sync_deferred.defer(
            conn,
            target_key="git",
            origin=RELATION["origin"],
            remote_seq=RELATION["seq"],
            entity="relation",
            entity_key="rel-waiting1",
            op="upsert",
            project="shop",
            line=json.dumps(RELATION),
            error="source FK not found",
            now="2026-01-15 12:00:00",
        )


def test_waiting_row_is_listed_inspected_replayed_and_dies_after_five(sandbox: Sandbox) -> None:
    with Store.open() as store:
        check_lifecycle(store)


def check_lifecycle(store: Store) -> None:
    plant(store)
    page = list_deferred(store).to_dict()
    assert page["total"] == 1 and page["limit"] == 50
    row = page["rows"][0]
    assert (row["sync_id"], row["entity"], row["apply_status"]) == (
        "rel-waiting1",
        "relation",
        "deferred",
    )
    assert row["payload_valid"] is True
    assert row["payload"]["source_id"] == "obs-notherey" and row["payload"]["project"] == "shop"
    assert json.loads(row["payload_raw"]) == RELATION
    assert inspect_deferred(store, "rel-waiting1")["retry_count"] == 0
    assert conflict_stats(store, project=None).deferred == 1

    outcomes = [replay_deferred(store) for _ in range(5)]
    assert outcomes[0] == {"retried": 1, "succeeded": 0, "failed": 1, "dead": 0}
    assert outcomes[-1] == {"retried": 1, "succeeded": 0, "failed": 0, "dead": 1}
    assert replay_deferred(store)["retried"] == 0  # dead rows are not retried
    stats = conflict_stats(store, project=None)
    assert (stats.deferred, stats.dead) == (0, 1)
    assert list_deferred(store, status="dead").total == 1
    assert list_deferred(store, status="deferred").total == 0


def test_cli_lists_inspects_replays_and_refuses_unknown_rows(engram: Run) -> None:
    with Store.open() as store:
        plant(store)
    listed = engram("conflicts", "deferred")
    assert listed.returncode == 0 and "rel-waiting1" in listed.stdout
    shown = engram("conflicts", "deferred", "--inspect", "rel-waiting1")
    assert shown.returncode == 0 and "obs-notherey" in shown.stdout
    replayed = engram("conflicts", "deferred", "--replay", "--json")
    assert json.loads(replayed.stdout) == {"retried": 1, "succeeded": 0, "failed": 1, "dead": 0}
    missing = engram("conflicts", "deferred", "--inspect", "rel-nope")
    assert missing.returncode == 1 and "no deferred row" in missing.stderr
    bad = engram("conflicts", "deferred", "--status", "lost")
    assert bad.returncode == 1 and "unknown deferred status" in bad.stderr
    both = engram("conflicts", "deferred", "--inspect", "x", "--replay")
    assert both.returncode == 2
