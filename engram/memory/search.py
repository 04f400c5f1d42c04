"""Searching observations: sanitised FTS5, bounded BM25-style ranking, relation annotations.

:func:`search` is what ``engram search`` and ``mem_search`` call. Every result carries its
lifecycle ``state`` and the verdicts other memories hold about it, as stable one-line
annotations agents can match by prefix::

    supersedes: #12 (Old auth model)
    superseded_by: #40 (New auth model)
    conflicts: #7 (Use Redis)
    conflict: contested by #9 (pending)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engram.errors import EngramError
from engram.memory import checks
from engram.memory.review import state_of
from engram.store import relations
from engram.store.db import Store
from engram.store.fts import MatchQuery
from engram.store.records import Observation
from engram.store.search import search_observations

if TYPE_CHECKING:
    from engram.store.fts import MatchMode

DEFAULT_LIMIT = 10
MAX_LIMIT = 20
MODES = ("all", "any")


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    observation: Observation
    score: float
    state: str
    annotations: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the observation's fields plus score, state and annotations."""
        return {
            **self.observation.to_dict(),
            "score": self.score,
            "state": self.state,
            "annotations": list(self.annotations),
        }


def clamp_limit(limit: int | None, default: int = DEFAULT_LIMIT, ceiling: int = MAX_LIMIT) -> int:
    """``default`` for a missing or non-positive limit, else at most ``ceiling``."""
    if limit is None or limit <= 0:
        return default
    return min(limit, ceiling)


def build_query(text: str, mode: str) -> MatchQuery:
    """A sanitised query, or ``memory.empty_query`` / ``memory.bad_mode``."""
    if mode not in MODES:
        raise EngramError(
            "memory.bad_mode", f"unknown match mode {mode!r}", "use `all` (default) or `any`"
        )
    match_mode: MatchMode = "any" if mode == "any" else "all"
    query = MatchQuery.build(text, match_mode)
    if query is None:
        raise EngramError(
            "memory.empty_query",
            f"nothing to search for in {text!r}",
            "search for at least one word with a letter or digit",
        )
    return query


def search(
    store: Store,
    text: str,
    *,
    project: str | None,
    type: str | None = None,
    scope: str | None = None,
    limit: int | None = None,
    mode: str = "all",
    now: datetime | None = None,
) -> list[SearchHit]:
    """Observations matching ``text``, best first.

    Args:
        project: only this project (None: every project).
        type / scope: exact filters (``scope`` is checked: project, personal, global).
        limit: default 10, at most 20.
        mode: ``all`` words (default) or ``any`` word.

    Raises:
        EngramError: ``memory.empty_query``, ``memory.bad_mode``, ``memory.bad_scope``.
    """
    query = build_query(text, mode)
    kind = checks.check_type(type) if type else None
    where = checks.check_scope(scope) if scope else None
    # No snapshot needed: a row deleted between the statements is simply left out.
    with store.locked() as conn:
        scored = search_observations(
            conn, query, project=project, type=kind, scope=where, limit=clamp_limit(limit)
        )
        ends = relations.for_observations(conn, [s.observation.sync_id for s in scored])
    notes: dict[str, list[str]] = {}
    for end in ends:
        line = annotation(end)
        if line:
            notes.setdefault(end.observation_sync_id, []).append(line)
    return [
        SearchHit(
            s.observation,
            s.score,
            state_of(s.observation, now),
            tuple(notes.get(s.observation.sync_id, ())),
        )
        for s in scored
    ]


def annotation(end: relations.RelatedEnd) -> str | None:
    """The annotation line for one relation end, or None for verdicts that need none."""
    ref = f"#{end.other_id}" if end.other_id is not None else "#?"
    if end.judgment_status == "pending":
        return f"conflict: contested by {ref} (pending)"
    title = end.other_title if end.other_title is not None else "deleted"
    if end.relation == "supersedes":
        kind = "supersedes" if end.outgoing else "superseded_by"
        return f"{kind}: {ref} ({title})"
    if end.relation == "conflicts_with":
        return f"conflicts: {ref} ({title})"
    return None
