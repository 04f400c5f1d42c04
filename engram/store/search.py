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


def recent_title_matches(
    conn: sqlite3.Connection, words: list[str], *, project: str, scope: str, limit: int = 50
) -> list[Observation]:
    """The newest live observations of ``project`` + ``scope`` whose title holds any of
    ``words`` — unranked, so the cost stays bounded on a save's hot path."""
    query = MatchQuery.build(" ".join(words), "any")
    if query is None:
        return []
    # The scope key is in nearly every row; checking it on the fetched rows is cheaper.
    expression = query.filtered(project=project).expression
    rows = conn.execute(
        "SELECT rowid FROM observation_titles WHERE observation_titles MATCH ?"
        " ORDER BY rowid DESC LIMIT ?",
        (expression, limit),
    ).fetchall()
    found = get_many(conn, [row[0] for row in rows])
    return [found[row[0]] for row in rows if row[0] in found and found[row[0]].scope == scope]
