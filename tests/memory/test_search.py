"""Search through the memory layer: ranking, filters, modes, limits, bad queries."""

from __future__ import annotations

import pytest

from engram.errors import EngramError
from engram.memory.observation import delete_observation
from engram.memory.save import save_observation
from engram.memory.search import search
from engram.store.db import Store


def _save(store: Store, title: str, content: str, **kw: str) -> int:
    args = {"project": "acme", **kw}
    return save_observation(
        store, title=title, content=content, surface_conflicts=False, **args
    ).observation.id  # type: ignore[arg-type]


def test_title_match_outranks_content_match(store: Store) -> None:
    in_body = _save(store, "Database notes", "we picked postgres for the queue")
    in_title = _save(store, "Postgres chosen", "for the main store")
    assert [h.observation.id for h in search(store, "postgres", project="acme")] == [
        in_title,
        in_body,
    ]


def test_all_and_any_modes(store: Store) -> None:
    both = _save(store, "redis cache", "eviction policy")
    one = _save(store, "redis cluster", "failover")
    _save(store, "kafka notes", "unrelated")
    # all: rows holding every word first; too few of them, so partial matches follow
    assert [h.observation.id for h in search(store, "redis eviction", project="acme")] == [
        both,
        one,
    ]
    assert [h.observation.id for h in search(store, "redis eviction", project="acme", limit=1)] == [
        both
    ]
    found = {h.observation.id for h in search(store, "redis eviction", project="acme", mode="any")}
    assert found == {both, one}
    with pytest.raises(EngramError) as caught:
        search(store, "redis", project="acme", mode="some")
    assert caught.value.code == "memory.bad_mode"


def test_filters_project_type_scope(store: Store) -> None:
    mine = _save(store, "deploy script", "x", type="config")
    _save(store, "deploy script", "x", project="other", type="config")
    _save(store, "deploy notes", "y", type="discovery")
    personal = _save(store, "deploy habit", "z", scope="personal")
    assert [h.observation.id for h in search(store, "deploy", project="acme", type="config")] == [
        mine
    ]
    assert [
        h.observation.id for h in search(store, "deploy", project="acme", scope="personal")
    ] == [personal]
    assert len(search(store, "deploy", project=None)) == 4


def test_limit_default_10_max_20(store: Store) -> None:
    for n in range(25):
        _save(store, f"widget {n}", f"body {n}")
    assert len(search(store, "widget", project="acme")) == 10
    assert len(search(store, "widget", project="acme", limit=50)) == 20
    assert len(search(store, "widget", project="acme", limit=3)) == 3


@pytest.mark.parametrize("text", ["", "   ", "!!!", '"', "---  ***"])
def test_query_without_words_is_a_clear_error(store: Store, text: str) -> None:
    with pytest.raises(EngramError) as caught:
        search(store, text, project="acme")
    assert caught.value.code == "memory.empty_query"


@pytest.mark.parametrize("text", ["AND", 'NEAR("x"', "title:foo", "foo*", "(a OR", "a -b ^c"])
def test_fts_syntax_in_user_text_never_raises(store: Store, text: str) -> None:
    _save(store, "foo AND bar", "title:foo NEAR stuff")
    search(store, text, project="acme")


def test_soft_deleted_rows_are_not_found(store: Store) -> None:
    gone = _save(store, "ephemeral", "x")
    delete_observation(store, gone, expected_project="acme")
    assert search(store, "ephemeral", project="acme") == []


def test_results_carry_lifecycle_state(store: Store) -> None:
    from datetime import UTC, datetime

    _save(store, "old decision", "x", type="decision")
    later = datetime(2099, 1, 1, tzinfo=UTC)
    assert search(store, "decision", project="acme", now=later)[0].state == "needs_review"
    assert search(store, "decision", project="acme")[0].state == "active"
