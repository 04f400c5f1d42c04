"""Passive capture, topic-key suggestions, project list / stats / merge, review."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.errors import EngramError
from engram.memory.passive import capture_passive, extract_learnings
from engram.memory.projects import list_projects, merge_projects, stats
from engram.memory.prompts import save_prompt
from engram.memory.review import list_due, mark_reviewed
from engram.memory.save import save_observation
from engram.memory.search import search
from engram.memory.topic import suggest_topic_key
from engram.store.db import Store

REPLY = """Done with the refactor.

## Key Learnings:

1. bcrypt cost=12 is the right balance for our server
2) JWT refresh tokens need atomic rotation
   to prevent race conditions
- Bullets count too

## Next
3. not a learning
"""


def test_extract_learnings() -> None:
    assert extract_learnings(REPLY) == [
        "bcrypt cost=12 is the right balance for our server",
        "JWT refresh tokens need atomic rotation to prevent race conditions",
        "Bullets count too",
    ]
    assert extract_learnings("no section\n1. nope") == []


def test_capture_saves_each_item_once(store: Store) -> None:
    first = capture_passive(store, REPLY, project="acme")
    assert first.found == 3 and len(first.saved_ids) == 3 and first.skipped == 0
    again = capture_passive(store, REPLY, project="acme")
    assert again.saved_ids == () and again.skipped == 3
    assert search(store, "bcrypt", project="acme")[0].observation.type == "learning"


@pytest.mark.parametrize(
    ("type_", "title", "expected"),
    [
        ("architecture", "Auth model for the API", "architecture/auth-model-api"),
        ("bugfix", "Fixed N+1 query in UserList", "bug/n-1-query-userlist"),
        ("decision", "Chose Zustand over Redux", "decision/zustand-redux"),
        (None, "Fixed crash on startup", "bug/crash-startup"),
        ("", "Weekly sync notes", "topic/weekly-sync-notes"),
    ],
)
def test_suggest_topic_key(type_: str | None, title: str, expected: str) -> None:
    assert suggest_topic_key(type_, title) == expected


def test_suggest_topic_key_falls_back_to_content_and_rejects_empty() -> None:
    assert (
        suggest_topic_key("config", "", "\n\nPort settings for dev\nmore")
        == "config/port-settings-dev"
    )
    with pytest.raises(EngramError) as caught:
        suggest_topic_key("config", " ", "")
    assert caught.value.code == "memory.empty_topic_input"


def test_projects_list_stats_and_merge(store: Store) -> None:
    for name in ("acme-api", "acme-api", "Acme_API", "other"):
        save_observation(
            store, title=f"t {name}", content="c", project=name, surface_conflicts=False
        )
    save_prompt(store, "p", project="Acme_API")
    listed = {p.name: p for p in list_projects(store)}
    assert listed["acme-api"].observation_count == 1
    assert listed["Acme_API"].prompt_count == 1
    assert stats(store).observations == 3  # the two identical saves deduplicated
    plan = merge_projects(store, ["Acme_API"], "acme-api")
    assert not plan.applied and plan.moves["Acme_API"].observations == 1
    assert {p.name for p in list_projects(store)} == {"acme-api", "Acme_API", "other"}
    done = merge_projects(store, ["Acme_API"], "acme-api", apply=True)
    assert done.applied and done.total.prompts == 1
    assert {p.name for p in list_projects(store)} == {"acme-api", "other"}
    assert stats(store, project="acme-api").observations == 2
    assert len(search(store, "t", project="acme-api")) == 2


@pytest.mark.parametrize(
    ("sources", "target", "code"),
    [
        (["other"], "acme-api", "memory.merge_bad_names"),
        (["acme-api"], "acme-api", "memory.merge_bad_names"),
        ([], "acme-api", "memory.merge_bad_names"),
        (["acmeapi"], "acme-api", "memory.unknown_project"),
    ],
)
def test_merge_refusals_change_nothing(
    store: Store, sources: list[str], target: str, code: str
) -> None:
    save_observation(store, title="t", content="c", project="acme-api")
    save_observation(store, title="t", content="c", project="other")
    with pytest.raises(EngramError) as caught:
        merge_projects(store, sources, target, apply=True)
    assert caught.value.code == code
    assert {p.name for p in list_projects(store)} == {"acme-api", "other"}


def test_review_cycle(store: Store) -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    saved = save_observation(
        store, title="Use bun", content="c", project="acme", type="bugfix", now=t0
    )
    save_observation(store, title="Note", content="c", project="acme", now=t0)
    later = datetime(2026, 4, 1, tzinfo=UTC)
    assert [i.observation.id for i in list_due(store, project="acme", now=later)] == [
        saved.observation.id
    ]
    assert list_due(store, project="beta", now=later) == []
    refreshed = mark_reviewed(store, saved.observation.id, now=later)
    assert (
        refreshed.state == "active" and refreshed.observation.review_after == "2026-05-31 00:00:00"
    )
    assert list_due(store, now=later) == []
    with pytest.raises(EngramError):
        mark_reviewed(store, 999)
