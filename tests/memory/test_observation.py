"""Update, delete and pin by id, with the owner assertion."""

from __future__ import annotations

import pytest

from engram.errors import EngramError
from engram.memory.observation import (
    delete_observation,
    get_observation,
    set_pinned,
    update_observation,
)
from engram.memory.save import save_observation
from engram.store.db import Store
from engram.store.fts import MatchQuery
from engram.store.search import search_observations


def _new(store: Store, content: str = "use Redis for cache; Redis is fast") -> int:
    return save_observation(store, title="Cache", content=content, project="acme").observation.id


def _found(store: Store, text: str) -> list[int]:
    query = MatchQuery.build(text)
    assert query is not None
    return [hit.observation.id for hit in search_observations(store.connection, query)]


def test_update_fields(store: Store) -> None:
    obs = _new(store)
    result = update_observation(
        store, obs, expected_project="ACME ", title="Cache layer", type="decision"
    )
    assert result.changed and result.observation.title == "Cache layer"
    assert result.observation.type == "decision"
    assert result.observation.revision_count == 2
    assert _found(store, "layer") == [obs]


def test_find_replace_is_literal_case_sensitive_global(store: Store) -> None:
    obs = _new(store)
    result = update_observation(store, obs, expected_project="acme", find="Redis", replace="Valkey")
    assert result.observation.content == "use Valkey for cache; Valkey is fast"
    assert result.replacements == 2
    none = update_observation(store, obs, expected_project="acme", find="valkey", replace="x")
    assert not none.changed and none.observation.content.count("Valkey") == 2
    regex = update_observation(store, obs, expected_project="acme", find=".*", replace="")
    assert not regex.changed


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"find": "x"}, "memory.find_replace_pair"),
        ({"replace": "x"}, "memory.find_replace_pair"),
        ({"find": "a", "replace": "b", "content": "c"}, "memory.find_with_content"),
        ({"title": "  "}, "memory.empty_title"),
        ({"content": ""}, "memory.empty_content"),
        ({"find": "Redis", "replace": "x" * 300}, "memory.content_too_large"),
    ],
)
def test_bad_updates_change_nothing(store: Store, kwargs: dict[str, str], code: str) -> None:
    obs = _new(store)
    before = get_observation(store, obs)
    with pytest.raises(EngramError) as caught:
        update_observation(
            store,
            obs,
            expected_project="acme",
            limit_bytes=200,
            **kwargs,  # type: ignore[arg-type]
        )
    assert caught.value.code == code
    assert get_observation(store, obs) == before


@pytest.mark.parametrize(
    ("expected", "code"),
    [
        (None, "memory.expected_project_required"),
        (" ", "memory.expected_project_required"),
        ("other", "memory.project_mismatch"),
    ],
)
def test_owner_assertion_guards_update_and_delete(
    store: Store, expected: str | None, code: str
) -> None:
    obs = _new(store)
    with pytest.raises(EngramError) as caught:
        update_observation(store, obs, expected_project=expected, title="hijack")
    assert caught.value.code == code
    with pytest.raises(EngramError) as caught:
        delete_observation(store, obs, expected_project=expected, hard=True)
    assert caught.value.code == code
    assert get_observation(store, obs).title == "Cache"


def test_soft_delete_hides_then_hard_delete_removes(store: Store) -> None:
    obs = _new(store)
    delete_observation(store, obs, expected_project="acme")
    assert _found(store, "Redis") == []
    with pytest.raises(EngramError):
        get_observation(store, obs)
    delete_observation(store, obs, expected_project="acme", hard=True)
    assert store.connection.execute("SELECT count(*) FROM observations").fetchone()[0] == 0
    with pytest.raises(EngramError) as caught:
        delete_observation(store, obs, expected_project="acme", hard=True)
    assert caught.value.code == "memory.not_found"


def test_pin_is_idempotent_and_local(store: Store) -> None:
    obs = _new(store)
    before = get_observation(store, obs)
    assert set_pinned(store, obs, True).pinned
    assert set_pinned(store, obs, True).pinned
    after = get_observation(store, obs)
    assert after.pinned and after.updated_at == before.updated_at
    assert not set_pinned(store, obs, False).pinned
    with pytest.raises(EngramError) as caught:
        set_pinned(store, 999, True)
    assert caught.value.code == "memory.not_found"
