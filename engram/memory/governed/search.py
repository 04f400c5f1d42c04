"""``engram_search``: governed memories matching a query, best first."""

from __future__ import annotations

from engram.errors import EngramError
from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.models import SCOPES, TYPES, SearchHit
from engram.memory.governed.routing import task_terms
from engram.store import governed as sql

MAX_LIMIT = 50


def search(
    kb: KnowledgeBase,
    query: str,
    limit: int = 10,
    type: str | None = None,
    scope: str | None = None,
) -> list[SearchHit]:
    """Visible memories matching any word of ``query`` (bm25, title weighted), best first.

    Args:
        query: free text; punctuation is ignored, so no input raises a syntax error.
        limit: 1-50 results (default 10).
        type: only this memory type.
        scope: only ``project`` or ``global`` memories.
    """
    terms = task_terms(query)
    if not terms:
        raise EngramError(
            "governed.empty_query", "the search query has no words", "pass words to search for"
        )
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise EngramError(
            "governed.bad_limit", f"limit must be 1-{MAX_LIMIT}, got {limit!r}", "pass e.g. 10"
        )
    if type is not None and type not in TYPES:
        raise EngramError(
            "governed.bad_type", f"unknown type {type!r}", f"use one of: {', '.join(TYPES)}"
        )
    if scope is not None and scope not in SCOPES:
        raise EngramError("governed.bad_scope", f"unknown scope {scope!r}", "use project or global")
    today = kb.today()
    scores = sql.fts_scores(kb.conn, kb.project, today, terms)
    hits = [
        SearchHit(
            row["id"],
            row["key"],
            row["type"],
            row["scope"],
            row["tier"],
            row["title"],
            round(-scores[row["rowid"]], 4),
        )
        for row in sql.get_rows(kb.conn, scores)
        if (type is None or row["type"] == type) and (scope is None or row["scope"] == scope)
    ]
    hits.sort(key=lambda h: (-h.score, h.id, h.tier))
    return hits[:limit]
