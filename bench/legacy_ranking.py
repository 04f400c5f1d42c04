"""The v0.1.0 ranking, kept only so bench/retrieval_bench.py can compare against it.

A verbatim copy of ``engram.store.fts.rank_window`` (and its helpers) as released in v0.1.0:
the newest ``WINDOW`` rows matching every word, an IDF estimated from each word's newest
``IDF_PROBE`` matches, a word in the title weighing 5 and anywhere else 1. Engram itself no
longer uses it.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engram.store.fts import MatchQuery, quote

WINDOW = 1000
IDF_PROBE = 256
MAX_SCORED_TERMS = 8


def _rowids(conn: sqlite3.Connection, table: str, expression: str, floor: int) -> set[int]:
    rows = conn.execute(
        f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid >= ?", (expression, floor)
    )
    return {row[0] for row in rows}


def _idf(conn: sqlite3.Connection, table: str, term: str, total: int) -> float:
    """BM25's IDF for ``term``, its document frequency estimated from its newest matches."""
    count, oldest = conn.execute(
        f"SELECT count(*), min(rowid) FROM (SELECT rowid FROM {table} WHERE {table} MATCH ?"
        " ORDER BY rowid DESC LIMIT ?)",
        (quote(term), IDF_PROBE),
    ).fetchone()
    if count < IDF_PROBE:
        frequency = float(count)
    else:  # assume the term is spread evenly over the id range
        frequency = IDF_PROBE * total / max(total - int(oldest) + 1, 1)
    frequency = min(frequency, float(total))
    return math.log(1.0 + (total - frequency + 0.5) / (frequency + 0.5))


@dataclass(frozen=True, slots=True)
class Ranked:
    """A matching rowid and its score (higher is better)."""

    rowid: int
    score: float


def rank_window(
    conn: sqlite3.Connection,
    table: str,
    query: MatchQuery,
    *,
    total_rows: int,
    boosts: Mapping[str, float],
    limit: int,
) -> list[Ranked]:
    """The ``limit`` best rows of ``table`` for ``query`` (see module docstring).

    Args:
        total_rows: the size of the collection (for IDF), e.g. the content table's max id.
        boosts: extra weight when a word is found in another FTS5 table over the same rows
            with a ``search_keys`` column (``{"observation_titles": 4.0}``). A separate
            index, because a column filter on ``table`` walks every row of a common word
            until one holds it in that column.
    """
    base = query.expression
    window: Sequence[int] = [
        row[0]
        for row in conn.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ?",
            (base, WINDOW),
        )
    ]
    if not window:
        return []
    floor = window[-1]
    scores = dict.fromkeys(window, 0.0)
    total = max(total_rows, len(window), 1)
    scored = query.terms[:MAX_SCORED_TERMS]
    for term in scored:
        # With one word the IDF scales every score alike, so the order needs no estimate.
        weight = _idf(conn, table, term, total) if len(scored) > 1 else 1.0
        if query.mode == "any":
            for rowid in _rowids(conn, table, f"({base}) AND {quote(term)}", floor):
                if rowid in scores:
                    scores[rowid] += weight
        else:  # every word is in every matching row
            for rowid in scores:
                scores[rowid] += weight
        for boost_table, boost in boosts.items():
            narrowed = MatchQuery((term,), "all", query.keys).expression
            for rowid in _rowids(conn, boost_table, narrowed, floor):
                if rowid in scores:
                    scores[rowid] += weight * boost
    best = sorted(scores.items(), key=lambda item: (-item[1], -item[0]))[:limit]
    return [Ranked(rowid, score) for rowid, score in best]
