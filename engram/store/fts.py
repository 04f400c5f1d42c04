"""Safe FTS5 queries and bounded ranking.

**Sanitising.** ``MatchQuery.build(text, mode)`` keeps every whitespace-separated word that
holds a letter or digit and wraps it in an FTS5 string (``"foo-bar"``, inner quotes doubled),
so no user input can raise an FTS5 syntax error: ``AND``, ``NEAR``, ``*``, ``:``, brackets are
literal text. ``mode="all"`` joins the words with AND, ``mode="any"`` with OR (the
ranking in :mod:`engram.store.ranking` uses both).

**Filters.** Each indexed row carries ``search_keys`` tokens (``p<hex(project)>``,
``t<hex(type)>``, ``s<hex(scope)>``), so filters are single index tokens that FTS5 intersects
with skip-ahead — a small project costs little even for a word in every row.

**Ranking.** FTS5's own ``bm25()`` first counts every row holding each phrase (its IDF pass),
so its cost grows with the commonest word's document frequency however few rows are ranked.
:func:`rank_window` bounds all work instead:

1. the window is the ``WINDOW`` newest rows matching words + filters (a descending rowid walk);
2. each word's IDF is estimated from the rowid span of its ``IDF_PROBE`` newest matches
   (exact when it has fewer);
3. a row scores, per word, ``idf * (1 + 4 if the word is in its title)`` — BM25 with binary
   term frequency, title weighted above content — ties broken newest first. Title presence
   comes from the title-only index ``observation_titles`` over the same rowid range.

Rare and mid-frequency queries therefore rank over all their matches; a query matching more
than ``WINDOW`` rows ranks its newest ``WINDOW``.
"""

from __future__ import annotations

import math
import re
import sqlite3

from engram.store.records import record

TYPE_CHECKING = False  # typing costs the hook path (prompts import this module) more than its work
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Literal

if TYPE_CHECKING:
    MatchMode = Literal["all", "any"]

WINDOW = 1000
IDF_PROBE = 256
MAX_TERMS = 32
MAX_SCORED_TERMS = 8

_HAS_WORD = re.compile(r"[^\W_]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def quote(text: str) -> str:
    """An FTS5 string literal for ``text`` (a phrase of its tokens)."""
    return '"' + _CONTROL.sub(" ", text).replace('"', '""') + '"'


def filter_key(kind: str, value: str) -> str:
    """The ``search_keys`` token for one filter value (``kind`` is ``p``, ``t`` or ``s``)."""
    return kind + value.encode("utf-8").hex()


@record
class MatchQuery:
    """A sanitised FTS5 query: the user's words and how they combine.

    Attributes:
        terms: the words that survived sanitising (at most ``MAX_TERMS``).
        mode: ``all`` or ``any``.
        keys: ``search_keys`` tokens every match must carry (filters).
    """

    terms: tuple[str, ...]
    mode: MatchMode = "all"
    keys: tuple[str, ...] = ()

    @classmethod
    def build(cls, text: str, mode: MatchMode = "all") -> MatchQuery | None:
        """The query for ``text``, or None when no searchable word is left."""
        terms: list[str] = []
        for word in _CONTROL.sub(" ", text).split():
            if _HAS_WORD.search(word) and word not in terms:
                terms.append(word)
        if not terms:
            return None
        return cls(tuple(terms[:MAX_TERMS]), mode)

    def filtered(self, **values: str | None) -> MatchQuery:
        """This query narrowed to rows whose ``search_keys`` carry each given value
        (``project=``, ``type=``, ``scope=``; None means no filter)."""
        kinds = {"project": "p", "type": "t", "scope": "s"}
        keys = [
            filter_key(kinds[name], value) for name, value in values.items() if value is not None
        ]
        return MatchQuery(self.terms, self.mode, self.keys + tuple(keys))

    def as_mode(self, mode: MatchMode) -> MatchQuery:
        """The same words and filters combined with ``mode``."""
        return MatchQuery(self.terms, mode, self.keys)

    @property
    def expression(self) -> str:
        """The FTS5 MATCH expression: words joined by AND/OR, then every filter key."""
        joiner = " OR " if self.mode == "any" else " AND "
        words = joiner.join(quote(term) for term in self.terms)
        if not self.keys:
            return words
        keys = " AND ".join(quote(key) for key in self.keys)
        return f"({words}) AND search_keys : ({keys})"


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


@record
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
