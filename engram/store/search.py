"""Full-text search over live observations: filtered in the index, ranked in a bounded window.

See :mod:`engram.store.fts` for sanitising, filter keys and the ranking (a word in the
title weighs 5, anywhere else 1).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engram.store.fts import WINDOW, MatchQuery
from engram.store.observations import get_many
from engram.store.ranking import rank
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
    ranked = rank(
        conn,
        query.filtered(project=project, type=type, scope=scope),
        total_rows=int(total),
        limit=offset + limit,
    )[offset:]
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
