"""Saving: required fields, redaction, limits, the duplicate window and topic upserts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.errors import EngramError
from engram.memory.observation import get_observation
from engram.memory.save import save_observation
from engram.store.db import Store

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _save(store: Store, **kwargs: object) -> object:
    args: dict[str, object] = {
        "title": "JWT middleware",
        "content": "**What**: added",
        "project": "acme",
    }
    args.update(kwargs)
    return save_observation(store, **args)  # type: ignore[arg-type]


@pytest.mark.parametrize("title", [None, "", "   ", "\n\t"])
def test_title_is_required(store: Store, title: str | None) -> None:
    with pytest.raises(EngramError) as caught:
        _save(store, title=title)
    assert caught.value.code == "memory.empty_title"
    assert store.connection.execute("SELECT count(*) FROM observations").fetchone()[0] == 0


def test_content_is_required(store: Store) -> None:
    with pytest.raises(EngramError) as caught:
        _save(store, content="  ")
    assert caught.value.code == "memory.empty_content"


def test_bad_scope_is_rejected(store: Store) -> None:
    with pytest.raises(EngramError) as caught:
        _save(store, scope="team")
    assert caught.value.code == "memory.bad_scope"


def test_private_text_is_never_stored(store: Store) -> None:
    result = save_observation(
        store,
        title="Key <private>AKIA123</private>",
        content="Set up API with <private>sk-abc123</private>",
        project="acme",
    )
    row = store.connection.execute("SELECT title, content FROM observations").fetchone()
    assert tuple(row) == ("Key [REDACTED]", "Set up API with [REDACTED]")
    assert result.redacted
    fts = store.connection.execute(
        "SELECT count(*) FROM observations_fts WHERE observations_fts MATCH 'sk'"
    ).fetchone()[0]
    assert fts == 0


def test_content_over_the_limit_is_truncated_with_metadata(store: Store) -> None:
    result = save_observation(store, title="big", content="ñ" * 100, project="acme", limit_bytes=51)
    assert result.truncated and result.original_bytes == 200 and result.limit_bytes == 51
    assert result.observation.content == "ñ" * 25
    assert result.warnings


def test_exact_duplicate_within_window_is_counted_not_stored(store: Store) -> None:
    first = save_observation(store, title="T", content="Same  body", project="acme", now=T0)
    again = save_observation(
        store, title="T", content="same body", project="acme", now=T0 + timedelta(minutes=10)
    )
    assert again.action == "deduplicated" and again.observation.id == first.observation.id
    assert again.observation.duplicate_count == 2
    # The window rolls from the last sighting.
    third = save_observation(
        store, title="T", content="same body", project="acme", now=T0 + timedelta(minutes=24)
    )
    assert third.action == "deduplicated" and third.observation.duplicate_count == 3
    late = save_observation(
        store, title="T", content="same body", project="acme", now=T0 + timedelta(minutes=40)
    )
    assert late.action == "created" and late.observation.id != first.observation.id


@pytest.mark.parametrize(
    "change",
    [{"project": "other"}, {"scope": "personal"}, {"type": "bugfix"}, {"title": "T2"}],
)
def test_duplicate_key_includes_project_scope_type_title(
    store: Store, change: dict[str, str]
) -> None:
    base = {"title": "T", "content": "body", "project": "acme"}
    save_observation(store, **base, now=T0)  # type: ignore[arg-type]
    result = save_observation(store, **{**base, **change}, now=T0)  # type: ignore[arg-type]
    assert result.action == "created"


def test_topic_key_upserts_latest_live_observation(store: Store) -> None:
    first = save_observation(
        store,
        title="Auth model",
        content="sessions",
        project="acme",
        type="architecture",
        topic_key="architecture/auth-model",
        now=T0,
    )
    second = save_observation(
        store,
        title="Auth model v2",
        content="JWT now",
        project="acme",
        type="architecture",
        topic_key="architecture/auth-model",
        now=T0 + timedelta(hours=1),
    )
    assert second.action == "revised" and second.observation.id == first.observation.id
    assert second.observation.revision_count == 2
    assert second.observation.content == "JWT now"
    # Another scope or project is a different topic.
    other = save_observation(
        store,
        title="Auth",
        content="x",
        project="acme",
        scope="personal",
        topic_key="architecture/auth-model",
    )
    assert other.action == "created"


def test_unknown_session_is_refused(store: Store) -> None:
    with pytest.raises(EngramError) as caught:
        _save(store, session_id="nope")
    assert caught.value.code == "memory.unknown_session"


def test_saves_review_policy_by_type(store: Store) -> None:
    decision = save_observation(
        store, title="d", content="c", project="acme", type="decision", now=T0
    )
    assert decision.observation.review_after == "2026-08-28 12:00:00"
    assert decision.state == "active"
    manual = save_observation(store, title="m", content="c", project="acme", now=T0)
    assert manual.observation.review_after is None


def test_get_returns_full_content(store: Store) -> None:
    saved = save_observation(store, title="t", content="x" * 5000, project="acme")
    assert get_observation(store, saved.observation.id).content == "x" * 5000
