"""Full-text search over live observations (bm25, title weighted above content).

See :mod:`engram.store.fts` for query sanitising and the bounded ranking window.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from engram.store.fts import MatchQuery
from engram.store.records import Observation, from_row

# bm25 column weights, in observations_fts column order:
# title, content, tool_name, type, project, topic_key.
BM25_WEIGHTS = (5.0, 1.0, 0.5, 0.5, 0.25, 2.0)


@dataclass(frozen=True, slots=True)
class ScoredObservation:
    """An observation and its bm25 score (lower is better, as SQLite reports it)."""

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
    """Best-ranked live observations matching ``query``.

    Build ``query`` with ``column_filters={"project": project}`` when filtering by project so
    the FTS index narrows the candidates before ranking.
    """
    floor = query.rowid_floor(conn, "observations_fts")
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    # CROSS JOIN keeps the FTS index as the outer loop whatever the filters are.
    sql = (
        f"SELECT o.*, bm25(observations_fts, {weights}) AS score"
        " FROM observations_fts CROSS JOIN observations o ON o.id = observations_fts.rowid"
        " WHERE observations_fts MATCH ? AND observations_fts.rowid >= ?"
        " AND o.deleted_at IS NULL"
    )
    params: list[object] = [query.expression, floor]
    for column, value in (("project", project), ("type", type), ("scope", scope)):
        if value is not None:
            sql += f" AND o.{column} = ?"
            params.append(value)
    sql += " ORDER BY score, o.id DESC LIMIT ?"
    params.append(limit)
    return [
        ScoredObservation(from_row(Observation, row), float(row["score"]))
        for row in conn.execute(sql, params)
    ]
