"""Conflict candidates on save, judging them, comparing memories, search annotations."""

from __future__ import annotations

import pytest

from engram.errors import EngramError
from engram.memory.observation import delete_observation
from engram.memory.relations import compare, judge
from engram.memory.save import save_observation
from engram.memory.search import search
from engram.store.db import Store


def test_similar_save_surfaces_a_pending_candidate(store: Store) -> None:
    old = save_observation(store, title="Auth uses session cookies", content="a", project="acme")
    assert old.candidates == ()
    new = save_observation(store, title="Auth uses JWT cookies", content="b", project="acme")
    assert [c.id for c in new.candidates] == [old.observation.id]
    assert new.judgment_required and new.to_dict()["judgment_required"]
    hits = {h.observation.id: h for h in search(store, "auth", project="acme")}
    assert hits[old.observation.id].annotations == (
        f"conflict: contested by #{new.observation.id} (pending)",
    )
    # Unrelated saves and other projects raise no candidates.
    assert (
        save_observation(store, title="Logging format", content="c", project="acme").candidates
        == ()
    )
    assert (
        save_observation(
            store, title="Auth uses JWT cookies", content="d", project="other"
        ).candidates
        == ()
    )


def test_judging_supersedes_annotates_both_ends(store: Store) -> None:
    old = save_observation(store, title="Cache with Redis cluster", content="a", project="acme")
    new = save_observation(store, title="Cache with Valkey cluster", content="b", project="acme")
    verdict = judge(store, new.candidates[0].judgment_id, "supersedes", reason="migrated")
    assert verdict.judgment_status == "judged" and verdict.relation == "supersedes"
    hits = {h.observation.id: h for h in search(store, "cache cluster", project="acme")}
    assert hits[new.observation.id].annotations == (
        f"supersedes: #{old.observation.id} (Cache with Redis cluster)",
    )
    assert hits[old.observation.id].annotations == (
        f"superseded_by: #{new.observation.id} (Cache with Valkey cluster)",
    )
    delete_observation(store, old.observation.id, expected_project="acme")
    hits = {h.observation.id: h for h in search(store, "cache cluster", project="acme")}
    assert hits[new.observation.id].annotations == (f"supersedes: #{old.observation.id} (deleted)",)


def test_judge_rejects_unknown_ids_and_verdicts(store: Store) -> None:
    with pytest.raises(EngramError) as caught:
        judge(store, "rel-nope", "related")
    assert caught.value.code == "memory.unknown_judgment"
    with pytest.raises(EngramError) as caught:
        judge(store, "rel-nope", "friends")
    assert caught.value.code == "memory.bad_relation"


def test_compare_is_idempotent_per_pair_and_same_project_only(store: Store) -> None:
    a = save_observation(
        store, title="Use tabs", content="x", project="acme", surface_conflicts=False
    )
    b = save_observation(
        store, title="Use spaces", content="y", project="acme", surface_conflicts=False
    )
    first = compare(
        store,
        a.observation.id,
        b.observation.id,
        "conflicts_with",
        confidence=0.9,
        reasoning="opposite",
    )
    second = compare(
        store,
        a.observation.id,
        b.observation.id,
        "not_conflict",
        confidence=0.8,
        reasoning="scoped",
    )
    assert first.id == second.id and second.relation == "not_conflict"
    assert second.marked_by_kind == "system" and second.marked_by_actor == "engram"
    count = store.connection.execute("SELECT count(*) FROM memory_relations").fetchone()[0]
    assert count == 1
    c = save_observation(
        store, title="Use tabs", content="x", project="beta", surface_conflicts=False
    )
    with pytest.raises(EngramError) as caught:
        compare(store, a.observation.id, c.observation.id, "related", confidence=1, reasoning="r")
    assert caught.value.code == "memory.cross_project_relation"
    with pytest.raises(EngramError) as caught:
        compare(store, a.observation.id, a.observation.id, "related", confidence=1, reasoning="r")
    assert caught.value.code == "memory.self_relation"
    with pytest.raises(EngramError) as caught:
        compare(store, a.observation.id, b.observation.id, "related", confidence=1.5, reasoning="r")
    assert caught.value.code == "memory.bad_confidence"
