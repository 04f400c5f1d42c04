"""Which live session a write without session_id joins: leases first, then recent unleased
sessions, one candidate only — never a pick by recency (seed 003, "Write tools")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.errors import EngramError
from engram.memory.live_session import live_session_for
from engram.memory.runtime_sessions import register_session
from engram.memory.save import save_observation
from engram.memory.sessions import end_session, start_session
from engram.store.db import Store

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
HERE = "/src/acme"


def _pick(store: Store, now: datetime = NOW) -> str | None:
    return live_session_for(store, project="acme", directories=[HERE], now=now)


def test_one_unleased_recent_session_is_joined(store: Store) -> None:
    start_session(store, "s1", project="acme", directory=HERE, now=NOW - timedelta(days=1))
    start_session(store, "elsewhere", project="acme", directory="/src/other", now=NOW)
    start_session(store, "other-project", project="zeta", directory=HERE, now=NOW)
    assert _pick(store) == "s1"


def test_an_idle_unleased_session_expires_after_seven_days_of_no_activity(store: Store) -> None:
    start_session(store, "s1", project="acme", directory=HERE, now=NOW - timedelta(days=10))
    assert _pick(store) is None
    save_observation(
        store, title="t", content="c", project="acme", session_id="s1", now=NOW - timedelta(days=2)
    )
    assert _pick(store) == "s1"  # its latest observation keeps it active


def test_a_live_lease_wins_over_unleased_rows_and_expired_leases_never_count(
    store: Store,
) -> None:
    start_session(store, "legacy", project="acme", directory=HERE, now=NOW)
    register_session(store, "leased", project="acme", directory=HERE, now=NOW)
    assert _pick(store) == "leased"
    # Past the 30-minute lease: the expired lease is excluded, the legacy row counts again.
    assert _pick(store, NOW + timedelta(hours=1)) == "legacy"


def test_several_candidates_fail_closed_and_ended_sessions_never_count(store: Store) -> None:
    start_session(store, "a", project="acme", directory=HERE, now=NOW)
    start_session(store, "b", project="acme", directory=HERE, now=NOW)
    with pytest.raises(EngramError) as refused:
        _pick(store)
    assert refused.value.code == "memory.live_session_ambiguous"
    end_session(store, "b", summary=None)
    assert _pick(store) == "a"
