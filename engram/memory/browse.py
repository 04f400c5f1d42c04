"""Browsing memory page by page, for a person (``engram tui``).

Every list is a :class:`Page`: at most ``limit`` items from ``offset`` and a total counted no
further than a cap, so a page costs the same in a store of a thousand observations or a
million. Observations and sessions of *active* sessions — not ended, and started within
``ACTIVE_WINDOW`` (a session whose host never ended it stops counting after that) — come
first, newest first, then everything else, newest first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from engram.memory import checks
from engram.memory.citations.checking import code_status
from engram.memory.clock import stamp, utc_now
from engram.memory.search import annotation, build_query
from engram.store import browse, observations, relations, sessions
from engram.store.db import Store
from engram.store.fts import WINDOW
from engram.store.records import Observation, Session
from engram.store.search import count_matches, search_observations

T = TypeVar("T")

PAGE_SIZE = 20
MAX_PAGE = 100
COUNT_CAP = 10_000
ACTIVE_WINDOW = timedelta(hours=24)
MAX_ACTIVE_SESSIONS = 50


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a list.

    Attributes:
        items: this page's items.
        offset: how many items come before this page.
        total: how many items the list holds, or the cap when ``more`` is True.
        more: the list holds more than ``total`` (the count stopped at its cap).
    """

    items: tuple[T, ...]
    offset: int
    total: int
    more: bool = False

    @property
    def has_next(self) -> bool:
        """Whether a page follows this one."""
        return self.more or self.offset + len(self.items) < self.total

    @property
    def position(self) -> str:
        """Where this page sits: ``showing 1-20 of 50`` (``of 10,000+`` past the cap)."""
        if not self.items:
            return "nothing to show"
        total = f"{self.total:,}+" if self.more else f"{self.total:,}"
        return f"showing {self.offset + 1:,}-{self.offset + len(self.items):,} of {total}"


@dataclass(frozen=True, slots=True)
class ListedObservation:
    """An observation in a list: whether its session is active, and its relation notes."""

    observation: Observation
    active: bool = False
    annotations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ListedSession:
    """A session in a list, with how many live observations it holds (capped)."""

    session: Session
    active: bool
    observations: int


@dataclass(frozen=True, slots=True)
class ObservationDetail:
    """One observation in full: its session, whether that is active, its relation notes."""

    observation: Observation
    session: Session | None
    active: bool
    annotations: tuple[str, ...]


def _bounds(offset: int, limit: int | None) -> tuple[int, int]:
    size = PAGE_SIZE if limit is None or limit <= 0 else min(limit, MAX_PAGE)
    return max(offset, 0), size


def _capped(count: int, cap: int) -> tuple[int, bool]:
    return (cap, True) if count > cap else (count, False)


def active_sessions(store: Store, *, project: str | None, now: datetime | None = None) -> list[str]:
    """Ids of the active sessions (newest first, at most ``MAX_ACTIVE_SESSIONS``)."""
    since = stamp((now or utc_now()) - ACTIVE_WINDOW)
    with store.read() as conn:
        return browse.active_session_ids(
            conn, project=project, since=since, limit=MAX_ACTIVE_SESSIONS
        )


def recent_observations(
    store: Store,
    *,
    project: str | None,
    offset: int = 0,
    limit: int | None = None,
    now: datetime | None = None,
) -> Page[ListedObservation]:
    """A page of live observations: those of active sessions first, then the rest, each
    newest first (``project`` None: every project)."""
    offset, size = _bounds(offset, limit)
    since = stamp((now or utc_now()) - ACTIVE_WINDOW)
    with store.read() as conn:
        active = browse.active_session_ids(
            conn, project=project, since=since, limit=MAX_ACTIVE_SESSIONS
        )
        in_active = browse.count_in_sessions(conn, active)
        first = browse.in_sessions_page(conn, active, offset=offset, limit=size)
        rest = browse.outside_sessions_page(
            conn,
            active,
            project=project,
            offset=max(offset - in_active, 0),
            limit=size - len(first),
        )
        total, more = _capped(
            browse.count_live_capped(conn, project=project, cap=COUNT_CAP), COUNT_CAP
        )
    items = [ListedObservation(o, True) for o in first] + [ListedObservation(o) for o in rest]
    return Page(tuple(items), offset, total, more)


def recent_sessions_page(
    store: Store,
    *,
    project: str | None,
    offset: int = 0,
    limit: int | None = None,
    now: datetime | None = None,
) -> Page[ListedSession]:
    """A page of sessions: active ones first, then the rest, each newest first."""
    offset, size = _bounds(offset, limit)
    since = stamp((now or utc_now()) - ACTIVE_WINDOW)
    with store.read() as conn:
        active = browse.active_session_ids(
            conn, project=project, since=since, limit=MAX_ACTIVE_SESSIONS
        )
        first = browse.sessions_by_ids(conn, active[offset : offset + size])
        rest = browse.sessions_page(
            conn,
            active,
            project=project,
            offset=max(offset - len(active), 0),
            limit=size - len(first),
        )
        listed = [
            ListedSession(s, s.id in active, browse.count_in_session(conn, s.id, cap=COUNT_CAP))
            for s in (*first, *rest)
        ]
        count = browse.count_sessions_capped(conn, project=project, cap=COUNT_CAP)
    total, more = _capped(count, COUNT_CAP)
    return Page(tuple(listed), offset, total, more)


def session_observations(
    store: Store,
    session_id: str,
    *,
    offset: int = 0,
    limit: int | None = None,
    now: datetime | None = None,
) -> Page[ListedObservation]:
    """A page of one session's live observations, in the order they were recorded."""
    offset, size = _bounds(offset, limit)
    with store.read() as conn:
        session = sessions.get(conn, session_id)
        rows = browse.session_page(conn, session_id, offset=offset, limit=size)
        count = browse.count_in_session(conn, session_id, cap=COUNT_CAP)
    active = is_active(session, now)
    total, more = _capped(count, COUNT_CAP)
    return Page(tuple(ListedObservation(o, active) for o in rows), offset, total, more)


def is_active(session: Session | None, now: datetime | None = None) -> bool:
    """Whether ``session`` is active: not ended, and started within ``ACTIVE_WINDOW``."""
    if session is None or session.ended_at is not None:
        return False
    return session.started_at >= stamp((now or utc_now()) - ACTIVE_WINDOW)


def search_page(
    store: Store,
    text: str,
    *,
    project: str | None,
    offset: int = 0,
    limit: int | None = None,
    mode: str = "all",
    now: datetime | None = None,
) -> Page[ListedObservation]:
    """A page of search results, best first (the same ranking as ``engram search``; results
    of active sessions are marked, not moved). The total counts no further than the ranked
    window of newest matches.

    Raises:
        EngramError: ``memory.empty_query``, ``memory.bad_mode``.
    """
    offset, size = _bounds(offset, limit)
    query = build_query(text, mode)
    with store.locked() as conn:
        scored = search_observations(conn, query, project=project, limit=size, offset=offset)
        notes = _annotations(conn, [s.observation for s in scored])
        # rows holding every word, or at least what this page shows: with too few of them
        # the ranking fills the page with partial matches
        count = max(count_matches(conn, query, project=project), offset + len(scored))
        since = stamp((now or utc_now()) - ACTIVE_WINDOW)
        active = set(
            browse.active_session_ids(conn, project=project, since=since, limit=MAX_ACTIVE_SESSIONS)
        )
    notes = _with_code(store, [s.observation for s in scored], notes)
    total, more = _capped(count, WINDOW)
    items = tuple(
        ListedObservation(
            s.observation,
            s.observation.session_id in active,
            notes.get(s.observation.sync_id, ()),
        )
        for s in scored
    )
    return Page(items, offset, total, more)


def observation_detail(
    store: Store, obs_id: int, *, now: datetime | None = None
) -> ObservationDetail:
    """One observation in full, with its session and relation notes.

    Raises:
        EngramError: ``memory.not_found``.
    """
    with store.read() as conn:
        observation = observations.get(conn, obs_id)
        if observation is None:
            raise checks.not_found(obs_id)
        session = sessions.get(conn, observation.session_id) if observation.session_id else None
        notes = _annotations(conn, [observation])
    notes = _with_code(store, [observation], notes)
    return ObservationDetail(
        observation, session, is_active(session, now), notes.get(observation.sync_id, ())
    )


def _with_code(
    store: Store, rows: Sequence[Observation], notes: dict[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """``notes`` with each row's code status first (``stale: ...``, ``... changed since
    saved``) for the rows whose cited code is not current."""
    codes = code_status(store, [o.id for o in rows])
    out = dict(notes)
    for row in rows:
        code = codes.get(row.id)
        if code is not None and code.state != "current":
            out[row.sync_id] = (code.label(), *notes.get(row.sync_id, ()))
    return out


def _annotations(
    conn: sqlite3.Connection, rows: Sequence[Observation]
) -> dict[str, tuple[str, ...]]:
    notes: dict[str, list[str]] = {}
    for end in relations.for_observations(conn, [o.sync_id for o in rows]):
        line = annotation(end)
        if line:
            notes.setdefault(end.observation_sync_id, []).append(line)
    return {key: tuple(value) for key, value in notes.items()}
