"""Search over live observations: filtered first, ranked lexically, fused with vectors.

See :mod:`engram.store.fts` for sanitising and filter keys, :mod:`engram.store.ranking` for
the ranking. With semantic recall on (:mod:`engram.store.semantic`) the nearest vectors under
the same filters are fused in; otherwise the lexical ranking alone answers.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engram.store import semantic
from engram.store.fts import WINDOW, MatchQuery
from engram.store.observations import get_many
from engram.store.ranking import demote_superseded, fusion, rank
from engram.store.records import Observation


@dataclass(frozen=True, slots=True)
class ScoredObservation:
    """An observation and its relevance score (higher is better)."""

    observation: Observation
    score: float


def search_observations(
    conn: sqlite3.Connection,
    query: MatchQuery,
    *,
    project: str | None = None,
    type: str | None = None,
    scope: str | None = None,
    limit: int = 10,
    offset: int = 0,
) -> list[ScoredObservation]:
    """The best-ranked live observations matching ``query`` and the exact filters given
    (``offset`` skips that many of the best: a later page of the same ranking)."""
    total = conn.execute("SELECT coalesce(max(id), 0) FROM observations").fetchone()[0]
    filtered = query.filtered(project=project, type=type, scope=scope)
    recall = semantic.of(conn)
    nearest = None
    if recall is not None:
        nearest = recall.nearest(
            " ".join(query.terms),
            project=project,
            type=type,
            scope=scope,
            limit=max(fusion.VECTOR_DEPTH, offset + limit),
        )
    if nearest is None:
        ranked = rank(conn, filtered, total_rows=int(total), limit=offset + limit)[offset:]
    else:
        depth = max(fusion.LEXICAL_DEPTH, offset + limit)
        lexical = rank(conn, filtered, total_rows=int(total), limit=depth)
        fused = fusion.fuse(lexical, nearest, query.mode)
        mode = fusion.order_mode(query.mode)
        ranked = demote_superseded(conn, fused, mode, offset + limit)[offset:]
    rows = get_many(conn, [r.rowid for r in ranked])
    return [ScoredObservation(rows[r.rowid], r.score) for r in ranked if r.rowid in rows]


def count_matches(
    conn: sqlite3.Connection,
    query: MatchQuery,
    *,
    project: str | None = None,
    type: str | None = None,
    scope: str | None = None,
) -> int:
    """How many live observations match, counting no further than the ranked window
    (``WINDOW + 1``: more than that is "more than search ranks")."""
    expression = query.filtered(project=project, type=type, scope=scope).expression
    return int(
        conn.execute(
            "SELECT count(*) FROM (SELECT rowid FROM observations_fts"
            " WHERE observations_fts MATCH ? LIMIT ?)",
            (expression, WINDOW + 1),
        ).fetchone()[0]
    )
