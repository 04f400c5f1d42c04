"""Full-text search over live observations: filtered in the index, ranked in a bounded window.

See :mod:`engram.store.fts` for sanitising, filter keys and the ranking (title weighted 5,
every other column 1).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engram.store.fts import MatchQuery, rank_window
from engram.store.observations import get_many
from engram.store.records import Observation

# Extra weight (on top of 1) when a word is in this column.
COLUMN_BOOSTS = {"title": 4.0}


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
) -> list[ScoredObservation]:
    """The best-ranked live observations matching ``query`` and the exact filters given."""
    total = conn.execute("SELECT coalesce(max(id), 0) FROM observations").fetchone()[0]
    ranked = rank_window(
        conn,
        "observations_fts",
        query.filtered(project=project, type=type, scope=scope),
        total_rows=int(total),
        column_boosts=COLUMN_BOOSTS,
        limit=limit,
    )
    rows = get_many(conn, [r.rowid for r in ranked])
    return [ScoredObservation(rows[r.rowid], r.score) for r in ranked if r.rowid in rows]
