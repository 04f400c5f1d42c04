"""Observation ranking: best-match scoring over bounded candidate sets.

FTS5's own ``bm25()`` scores every row that matches, after counting every row that holds each
word, so its cost grows with the commonest word's document frequency. This ranking reads at
most a fixed number of rowids per word instead, and still finds:

- **rows holding every word**: the ``WINDOW`` newest of them (a descending rowid walk);
- **rows whose title holds every word**, however old (``TITLE_WINDOW`` newest of them, from
  the title-only index): a window of newest matches can no longer hide an exact title match
  behind a thousand newer notes that merely mention the same common words;
- **rows holding every content word** (``STOP_WORDS`` left out) in the title, and in the
  text when one of them is distinctive: a question's "where", "how", "did" are in no memory;
- **rows holding some of the words** (best match): each word's ``POSTINGS`` newest matches
  under the filters. A word with fewer (a distinctive word) is read in full, title matches
  too, so a row holding only the distinctive half of a query is always a candidate; a common
  word marks presence in its newest rows and its title matches in the every-word range.

Each candidate scores, per word it holds, ``idf * (1 + TITLE_BOOST if the word is in its
title)``; IDF is BM25's, from the word's document frequency (exact under ``IDF_PROBE``
matches, otherwise estimated from the rowid span of its newest ones). Ties go to the newest.
In ``all`` mode rows known to hold every word come first; the rest (best partial matches)
fill the list only when those are too few. Rows superseded by a judged verdict from a live
memory score ``SUPERSEDED`` of their score. Every constant was chosen on the labelled
retrieval benchmark (bench/retrieval_bench.py, docs/search.md); a recency prior was measured
there and removed (it cost old-but-relevant answers their first place and won nothing).
"""

from __future__ import annotations

import heapq
import math
import sqlite3
from dataclasses import dataclass

from engram.store.fts import MatchQuery, quote

WINDOW = 1000
TITLE_WINDOW = 200
POSTINGS = 256
TITLE_POSTINGS = 200
IDF_PROBE = 256
MAX_SCORED_TERMS = 16
TITLE_BOOST = 1.0
SUPERSEDED = 0.5

# Function words of questions; left out of the content-word match only (they still score).
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "that",
        "the",
        "their",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)

_PUNCTUATION = "?!.,:;\"'()[]"

TEXT_TABLE = "observations_fts"
TITLE_TABLE = "observation_titles"


@dataclass(frozen=True, slots=True)
class Ranked:
    """A matching rowid, its score (higher is better) and whether it holds every word."""

    rowid: int
    score: float
    complete: bool


def _newest(conn: sqlite3.Connection, table: str, expression: str, limit: int) -> list[int]:
    rows = conn.execute(
        f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ?",
        (expression, limit),
    )
    return [row[0] for row in rows]


@dataclass
class _Term:
    weight: float
    rows: set[int]  # its newest rows under the filters: all of them when complete
    titles: set[int]  # its title matches (a common word's: only in the every-word range)
    complete: bool


def _term(
    conn: sqlite3.Connection, term: str, keys: tuple[str, ...], total: int, floor: int
) -> _Term:
    """A word's weight; its rows and title matches when it is distinctive, else only its
    title matches from ``floor`` on (the range of the rows holding every word)."""
    probe = _newest(conn, TEXT_TABLE, quote(term), IDF_PROBE)
    if len(probe) < IDF_PROBE:
        frequency = float(len(probe))
    else:  # assume the word is spread evenly over the id range
        frequency = IDF_PROBE * total / max(total - probe[-1] + 1, 1)
    frequency = min(frequency, float(total))
    weight = math.log(1.0 + (total - frequency + 0.5) / (frequency + 0.5))
    narrowed = MatchQuery((term,), "all", keys).expression
    # Its newest matches under the filters: all of them when fewer than POSTINGS.
    rows = probe if not keys else _newest(conn, TEXT_TABLE, narrowed, POSTINGS)
    complete = len(rows) < (IDF_PROBE if not keys else POSTINGS)
    if complete:
        titles = _newest(conn, TITLE_TABLE, narrowed, TITLE_POSTINGS)
    else:
        titles = _since(conn, TITLE_TABLE, narrowed, floor, TITLE_POSTINGS)
    return _Term(weight, set(rows), set(titles), complete)


def _since(
    conn: sqlite3.Connection, table: str, expression: str, floor: int, limit: int
) -> list[int]:
    rows = conn.execute(
        f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid >= ?"
        " ORDER BY rowid DESC LIMIT ?",
        (expression, floor, limit),
    )
    return [row[0] for row in rows]


def rank(
    conn: sqlite3.Connection, query: MatchQuery, *, total_rows: int, limit: int
) -> list[Ranked]:
    """The ``limit`` best observations for ``query`` (see the module docstring)."""
    total = max(total_rows, 1)
    every_words = query.as_mode("all").expression
    window = _newest(conn, TEXT_TABLE, every_words, WINDOW)
    floor = window[-1] if window else total + 1
    scored = query.terms[:MAX_SCORED_TERMS]
    titled = set(_newest(conn, TITLE_TABLE, every_words, TITLE_WINDOW))
    every = titled.union(window)
    if len(scored) == 1:  # its rows are the window, its titles the title match: no more reads
        terms = [_Term(1.0, set(window), titled, len(window) < WINDOW)]
    else:
        terms = [_term(conn, t, query.keys, total, floor) for t in scored]
    _add_content_word_matches(conn, query, scored, terms)
    scores, held = _scores(terms, every, titled)
    if not scores:  # only common words, never together: the newest rows holding any
        scores = dict.fromkeys(
            _newest(conn, TEXT_TABLE, query.as_mode("any").expression, WINDOW), 0.0
        )
    words = len(query.terms)
    if query.mode == "all":
        head = heapq.nsmallest(
            limit * 3, scores, key=lambda r: (held.get(r, 0) < words, -scores[r], -r)
        )
    else:
        head = heapq.nsmallest(limit * 3, scores, key=lambda r: (-scores[r], -r))
    ranked = [Ranked(r, scores[r], held.get(r, 0) >= words) for r in head]
    return demote_superseded(conn, ranked, query.mode, limit)


def _add_content_word_matches(
    conn: sqlite3.Connection, query: MatchQuery, scored: tuple[str, ...], terms: list[_Term]
) -> None:
    """Questions carry words no memory holds ("where", "did"): rows holding every *content*
    word (stop words left out) are candidates too, in the text and in the title."""
    content = [
        i for i, word in enumerate(scored) if word.lower().strip(_PUNCTUATION) not in STOP_WORDS
    ]
    if not content or len(content) == len(query.terms):
        return
    words = MatchQuery(tuple(scored[i] for i in content), "all", query.keys).expression
    # Intersecting only common words' doclists costs tens of ms at 1M rows, and their newest
    # rows are what the other candidates already hold: the text side needs a distinctive word.
    rows: set[int] = set()
    if any(terms[i].complete for i in content):
        rows = set(_newest(conn, TEXT_TABLE, words, WINDOW))
    titles = set(_newest(conn, TITLE_TABLE, words, TITLE_WINDOW))
    for i in content:
        terms[i].rows |= rows
        terms[i].titles |= titles


def _scores(
    terms: list[_Term], every: set[int], titled: set[int]
) -> tuple[dict[int, float], dict[int, int]]:
    """Per candidate: the weights of the words it holds (each title word ``TITLE_BOOST``
    more), and how many words it is known to hold (rows of ``every`` hold them all)."""
    scores = dict.fromkeys(every, sum(t.weight for t in terms))
    held = dict.fromkeys(every, 1 << 30)
    for term in terms:
        for rowid in (term.rows | term.titles) - every:
            scores[rowid] = scores.get(rowid, 0.0) + term.weight
            held[rowid] = held.get(rowid, 0) + 1
        for rowid in term.titles | titled:
            scores[rowid] += term.weight * TITLE_BOOST
    return scores, held


def _order(ranked: list[Ranked], mode: str) -> list[Ranked]:
    """Best first; in ``all`` mode rows holding every word before partial matches."""
    if mode == "all":
        return sorted(ranked, key=lambda r: (not r.complete, -r.score, -r.rowid))
    return sorted(ranked, key=lambda r: (-r.score, -r.rowid))


def demote_superseded(
    conn: sqlite3.Connection, ranked: list[Ranked], mode: str, limit: int
) -> list[Ranked]:
    """The top ``limit`` after superseded rows (a judged ``supersedes`` verdict points at them
    from a live memory) lose ``SUPERSEDED`` of their score and drop below their successors."""
    if not ranked:
        return []
    marks = ",".join("?" * len(ranked))
    superseded = {
        row[0]
        for row in conn.execute(
            "SELECT o.id FROM observations o JOIN memory_relations r ON r.target_id = o.sync_id"
            " JOIN observations n ON n.sync_id = r.source_id"
            f" WHERE o.id IN ({marks}) AND r.relation = 'supersedes'"
            " AND r.judgment_status = 'judged' AND n.deleted_at IS NULL",
            [r.rowid for r in ranked],
        )
    }
    if not superseded:
        return ranked[:limit]
    demoted = [
        Ranked(r.rowid, r.score * SUPERSEDED, r.complete) if r.rowid in superseded else r
        for r in ranked
    ]
    return _order(demoted, mode)[:limit]
