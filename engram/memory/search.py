"""Searching observations: sanitised FTS5, bounded BM25-style ranking, relation annotations.

:func:`search` is what ``engram search`` and ``mem_search`` call. Every result carries its
lifecycle ``state`` and the verdicts other memories hold about it, as stable one-line
annotations agents can match by prefix::

    supersedes: #12 (Old auth model)
    superseded_by: #40 (New auth model)
    conflicts: #7 (Use Redis)
    conflict: contested by #9 (pending)

A result whose cited code was checked carries its ``code`` status
(:mod:`engram.memory.citations`): a ``stale`` one says why in ``state: stale`` and its
annotation, and ranks below current results of similar relevance (``STALE_WEIGHT``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engram.errors import EngramError
from engram.memory import checks
from engram.memory.citations.checking import code_status
from engram.memory.citations.status import CodeStatus
from engram.memory.review import state_with_code
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
# A stale result is ordered as if this much as relevant: below current ones of equal relevance.
STALE_WEIGHT = 0.8


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result."""

    observation: Observation
    score: float
    state: str
    annotations: tuple[str, ...] = ()
    code: CodeStatus | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the observation's fields plus score, state, annotations and ``code``
        (``{"state": "stale", "reasons": [...]}``; null for a memory that cites no code)."""
        return {
            **self.observation.to_dict(),
            "score": self.score,
            "state": self.state,
            "annotations": list(self.annotations),
            "code": code_dict(self.code),
        }


def code_dict(code: CodeStatus | None) -> dict[str, Any] | None:
    """A code status as JSON (null when nothing was checked)."""
    if code is None:
        return None
    return {"state": code.state, "reasons": list(code.reasons), "citations": code.citations}


def demote_stale(hits: list[SearchHit]) -> list[SearchHit]:
    """``hits`` (best first) with stale ones ordered at ``STALE_WEIGHT`` of their score
    (a stable sort: equal keys keep their order)."""
    if not any(h.code is not None and h.code.stale for h in hits):
        return hits
    weight = {id(h): STALE_WEIGHT if h.code is not None and h.code.stale else 1.0 for h in hits}
    return sorted(hits, key=lambda h: -h.score * weight[id(h)])


def clamp_limit(limit: int | None, default: int = DEFAULT_LIMIT, ceiling: int = MAX_LIMIT) -> int:
    """``default`` for a missing or non-positive limit, else at most ``ceiling``."""
    if limit is None or limit <= 0:
        return default
    return min(limit, ceiling)


@functools.lru_cache(maxsize=16)
def build_query(text: str, mode: str) -> MatchQuery:
    """A sanitised query, or ``memory.empty_query`` / ``memory.bad_mode`` (remembered: the
    query is immutable, and mem_search builds it twice, for memories and for prompts)."""
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
    check_code: bool = True,
) -> list[SearchHit]:
    """Observations matching ``text``, best first.

    Args:
        project: only this project (None: every project).
        type / scope: exact filters (``scope`` is checked: project, personal, global).
        limit: default 10, at most 20.
        mode: ``all`` words (default) or ``any`` word.
        check_code: check the results' code citations (default; internal scans skip it).

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
    codes = code_status(store, [s.observation.id for s in scored]) if check_code else {}
    hits = []
    for s in scored:
        code = codes.get(s.observation.id)
        lines = notes.get(s.observation.sync_id, [])
        if code is not None and code.state != "current":
            lines = [code.label(), *lines]
        state = state_with_code(s.observation, code, now)
        hits.append(SearchHit(s.observation, s.score, state, tuple(lines), code))
    return demote_stale(hits)


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
