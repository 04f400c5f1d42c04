"""Turning user text into a safe FTS5 query, and bounding how many matches get ranked.

``MatchQuery.build(text, mode)`` keeps every whitespace-separated word that holds a letter or
digit and wraps it in an FTS5 string (``"foo-bar"`` — inner quotes doubled), so no user input
can raise an FTS5 syntax error: ``AND``, ``NEAR``, ``*``, ``:``, brackets are all literal text.
``mode="all"`` requires every word; ``mode="any"`` requires one of them.

Ranking every match with bm25 is what makes a very common word slow on a large store, so a
query first finds the rowid of its ``CANDIDATE_WINDOW``-th newest match (a cheap descending
scan of the FTS index) and only the matches at or above that rowid are ranked. Rare and
mid-frequency terms rank over all their matches; for a term in more rows than the window the
ranking covers its most recent matches.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Literal

MatchMode = Literal["all", "any"]

CANDIDATE_WINDOW = 1000
MAX_TERMS = 32

_HAS_WORD = re.compile(r"[^\W_]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def quote(text: str) -> str:
    """An FTS5 string literal for ``text`` (a phrase of its tokens)."""
    return '"' + text.replace('"', '""') + '"'


@dataclass(frozen=True, slots=True)
class MatchQuery:
    """A sanitised FTS5 MATCH expression.

    Attributes:
        expression: the text to bind to ``MATCH ?``.
        terms: the user's words that survived sanitising.
    """

    expression: str
    terms: tuple[str, ...]

    @classmethod
    def build(
        cls, text: str, mode: MatchMode = "all", *, column_filters: dict[str, str] | None = None
    ) -> MatchQuery | None:
        """The query for ``text``, or None when no searchable word is left.

        ``column_filters`` narrows inside the index (``{"project": "acme"}`` becomes
        ``project : "acme"``); callers still check exact equality on the joined row.
        """
        terms: list[str] = []
        for word in _CONTROL.sub(" ", text).split():
            if _HAS_WORD.search(word) and word not in terms:
                terms.append(word)
        if not terms:
            return None
        terms = terms[:MAX_TERMS]
        joiner = " OR " if mode == "any" else " AND "
        expression = joiner.join(quote(term) for term in terms)
        filters = [
            f"{column} : {quote(_CONTROL.sub(' ', value))}"
            for column, value in (column_filters or {}).items()
            if _HAS_WORD.search(value)
        ]
        if filters:
            expression = " AND ".join([f"({expression})", *filters])
        return cls(expression, tuple(terms))

    def rowid_floor(self, conn: sqlite3.Connection, table: str) -> int:
        """The lowest rowid inside the ranking window (0 when every match fits in it)."""
        row = conn.execute(
            f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
            (self.expression, CANDIDATE_WINDOW - 1),
        ).fetchone()
        return int(row[0]) if row else 0
