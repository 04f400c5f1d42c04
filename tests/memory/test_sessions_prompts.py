"""Sessions (start/end/summary), prompts, timeline."""

from __future__ import annotations

import pytest

from engram.errors import EngramError
from engram.memory.prompts import recent_prompts, save_prompt, search_prompts
from engram.memory.save import save_observation
from engram.memory.sessions import end_session, save_session_summary, start_session
from engram.memory.timeline import timeline
from engram.store.db import Store


def test_ended_session_is_never_reopened(store: Store) -> None:
    assert start_session(store, "s1", project="acme", directory="/w").changed
    assert not start_session(store, "s1", project="acme").changed  # idempotent while live
    ended = end_session(store, "s1", summary="done <private>x</private>")
    assert ended.changed and ended.session.ended_at and ended.session.summary == "done [REDACTED]"
    assert not end_session(store, "s1").changed
    with pytest.raises(EngramError) as caught:
        start_session(store, "s1", project="acme")
    assert caught.value.code == "memory.session_already_ended"
    assert caught.value.details["session_id"] == "s1"


def test_session_belongs_to_one_project(store: Store) -> None:
    start_session(store, "s1", project="acme")
    with pytest.raises(EngramError) as caught:
        start_session(store, "s1", project="beta")
    assert caught.value.code == "memory.session_project_mismatch"
    with pytest.raises(EngramError) as caught:
        save_observation(store, title="t", content="c", project="beta", session_id="s1")
    assert caught.value.code == "memory.session_project_mismatch"
    with pytest.raises(EngramError) as caught:
        end_session(store, "nope")
    assert caught.value.code == "memory.unknown_session"


def test_session_summary_is_saved_and_recorded(store: Store) -> None:
    start_session(store, "s1", project="acme")
    result = save_session_summary(store, "## Goal\nShip it", project="acme", session_id="s1")
    assert result.observation.type == "session_summary"
    row = store.connection.execute(
        "SELECT summary, ended_at FROM sessions WHERE id='s1'"
    ).fetchone()
    assert tuple(row) == ("## Goal\nShip it", None)


def test_prompts_redacted_limited_searchable(store: Store) -> None:
    saved = save_prompt(store, "deploy with key <private>sk-1</private> please", project="acme")
    assert saved.prompt.content == "deploy with key [REDACTED] please" and saved.redacted
    big = save_prompt(store, "ü" * 10, project="acme", limit_bytes=7)
    assert big.truncated and big.prompt.content == "üüü" and big.original_bytes == 20
    save_prompt(store, "deploy elsewhere", project="beta")
    assert [p.content for p in search_prompts(store, "deploy", project="acme")] == [
        saved.prompt.content
    ]
    assert len(search_prompts(store, "deploy", project=None)) == 2
    assert [p.id for p in recent_prompts(store, project="acme")] == [big.prompt.id, saved.prompt.id]
    with pytest.raises(EngramError) as caught:
        save_prompt(store, " ", project="acme")
    assert caught.value.code == "memory.empty_content"


def test_timeline_neighbours_in_session(store: Store) -> None:
    start_session(store, "s1", project="acme")
    ids = [
        save_observation(
            store,
            title=f"step {n}",
            content=f"c{n}",
            project="acme",
            session_id="s1",
            surface_conflicts=False,
        ).observation.id
        for n in range(7)
    ]
    save_observation(store, title="elsewhere", content="x", project="acme")
    line = timeline(store, ids[3], before=2, after=10)
    assert [o.id for o in line.before] == ids[1:3]
    assert [o.id for o in line.after] == ids[4:]
    assert line.session is not None and line.session.id == "s1"
    with pytest.raises(EngramError) as caught:
        timeline(store, ids[3], project="beta")
    assert caught.value.code == "memory.not_found"


def test_session_lookup_and_known_project(store: Store) -> None:
    from engram.memory.projects import is_known_project
    from engram.memory.sessions import get_session, session_project

    assert get_session(store, "s9") is None and session_project(store, "s9") is None
    assert session_project(store, None) is None and not is_known_project(store, "acme")
    start_session(store, "s9", project="acme")
    assert session_project(store, "s9") == "acme" and is_known_project(store, "acme")
    assert not is_known_project(store, "Acme")  # names are exact, not folded
