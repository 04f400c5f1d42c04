"""The review lifecycle: knowledge that goes stale gets a ``review_after`` date.

Each observation type has a decay period (``REVIEW_DAYS``); a save or a review sets
``review_after`` that many days ahead. Once it has passed, the observation's state is
``needs_review`` and it shows up in :func:`list_due` until :func:`mark_reviewed` restarts the
cycle. Review state is local-only: it does not change ``updated_at``.

A memory whose cited code is gone or moved (:mod:`engram.memory.citations`) is ``stale``; one
that stays stale with no agent fetching or re-saving it for ``ENGRAM_STALE_REVIEW_DAYS`` is
``needs_review`` before its date (:func:`state_with_code`). Fetching a memory
(:func:`renew_by_use`) or saving it again under its topic key restarts its cycle.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from engram.memory.checks import not_found
from engram.memory.citations.status import CodeStatus, stale_review_days
from engram.memory.clock import stamp, stamp_after, utc_now
from engram.store import observations
from engram.store.db import Store
from engram.store.records import Observation

# Days until an observation of this type should be re-checked; absent types never decay.
REVIEW_DAYS: dict[str, int] = {
    "decision": 180,
    "architecture": 180,
    "pattern": 120,
    "preference": 180,
    "config": 90,
    "discovery": 90,
    "learning": 90,
    "bugfix": 60,
}
DEFAULT_REVIEW_LIMIT = 10
MAX_REVIEW_LIMIT = 100


def review_after_for(type_: str, now: datetime | None = None) -> str | None:
    """When an observation of ``type_`` saved or reviewed at ``now`` falls due (None: never)."""
    days = REVIEW_DAYS.get(type_)
    return stamp_after(now, timedelta(days=days)) if days else None


def state_of(observation: Observation, now: datetime | None = None) -> str:
    """``needs_review`` once ``review_after`` has passed, else ``active``."""
    due = observation.review_after
    return "needs_review" if due is not None and due <= stamp(now) else "active"


def state_with_code(
    observation: Observation, code: CodeStatus | None, now: datetime | None = None
) -> str:
    """The state a served memory shows: :func:`state_of`, except that a memory whose code is
    stale is ``stale`` — or ``needs_review`` once unused for ``ENGRAM_STALE_REVIEW_DAYS``."""
    state = state_of(observation, now)
    if code is None or not code.stale or state == "needs_review":
        return state
    cutoff = stamp((now or utc_now()) - timedelta(days=stale_review_days()))
    return "needs_review" if code.used_at <= cutoff else "stale"


def renew_by_use(store: Store, observation: Observation, now: datetime | None = None) -> None:
    """An agent fetched ``observation``: restart its review cycle and its stale grace time."""
    with store.write() as conn:
        renew_on(conn, observation, now)


def renew_on(
    conn: sqlite3.Connection, observation: Observation, now: datetime | None = None
) -> None:
    """:func:`renew_by_use` inside the caller's transaction (or as autocommit statements)."""
    from engram.store import citations

    moment = now or utc_now()
    observations.set_review_after(conn, observation.id, review_after_for(observation.type, moment))
    citations.mark_used(conn, observation.id, stamp(moment))


@dataclass(frozen=True, slots=True)
class ReviewItem:
    """An observation due for review."""

    observation: Observation
    state: str

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: the observation's fields plus ``state``."""
        return {**self.observation.to_dict(), "state": self.state}


def list_due(
    store: Store,
    *,
    project: str | None = None,
    limit: int = DEFAULT_REVIEW_LIMIT,
    now: datetime | None = None,
) -> list[ReviewItem]:
    """Observations whose review date has passed (all projects when ``project`` is None),
    then stale ones no agent used for ``ENGRAM_STALE_REVIEW_DAYS`` (:func:`state_with_code`)."""
    limit = DEFAULT_REVIEW_LIMIT if limit <= 0 else min(limit, MAX_REVIEW_LIMIT)
    with store.read() as conn:
        due = observations.due_for_review(conn, project=project, now=stamp(now), limit=limit)
    items = [ReviewItem(obs, "needs_review") for obs in due]
    if len(items) < limit:
        from engram.memory.stale import list_stale

        seen = {obs.id for obs in due}
        neglected = list_stale(store, project=project, limit=MAX_REVIEW_LIMIT, now=now)
        items += [
            ReviewItem(s.observation, "needs_review")
            for s in neglected
            if s.state == "needs_review" and s.observation.id not in seen
        ]
    return items[:limit]


def mark_reviewed(
    store: Store, obs_id: int, *, now: datetime | None = None, project: str | None = None
) -> ReviewItem:
    """Restart ``obs_id``'s review cycle from ``now`` using its type's decay period.

    With ``project``, another project's observation is not found.

    Raises:
        EngramError: ``memory.not_found``.
    """
    with store.write() as conn:
        current = observations.get(conn, obs_id)
        if current is None or (project is not None and current.project != project):
            raise not_found(obs_id)
        observations.set_review_after(conn, obs_id, review_after_for(current.type, now))
        refreshed = observations.get(conn, obs_id)
    assert refreshed is not None
    return ReviewItem(refreshed, state_of(refreshed, now))
