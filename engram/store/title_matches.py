"""The similar-title lookup a save runs to surface conflict candidates.

Only the four columns a candidate needs are read: a save compares titles, and loading whole
rows (bodies of up to 100 KiB) for 50 neighbours was most of a save's cost.
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from engram.store.fts import MatchQuery


class TitleMatch(NamedTuple):
    """A live observation whose title shares a word with a new save's title."""

    id: int
    sync_id: str
    title: str
    type: str


def recent_title_matches(
    conn: sqlite3.Connection, words: list[str], *, project: str, scope: str, limit: int = 50
) -> list[TitleMatch]:
    """The newest live observations of ``project`` + ``scope`` among the ``limit`` newest
    whose title holds any of ``words`` — unranked, so the cost stays bounded on a save."""
    query = MatchQuery.build(" ".join(words), "any")
    if query is None:
        return []
    # The scope key is in nearly every row; checking it on the fetched rows is cheaper.
    expression = query.filtered(project=project).expression
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples: no sqlite3.Row per neighbour
    cursor.execute(
        "SELECT id, sync_id, title, type FROM observations WHERE id IN"
        " (SELECT rowid FROM observation_titles WHERE observation_titles MATCH ?"
        "  ORDER BY rowid DESC LIMIT ?)"
        " AND deleted_at IS NULL AND scope = ? ORDER BY id DESC",
        (expression, limit, scope),
    )
    return list(map(TitleMatch._make, cursor))
