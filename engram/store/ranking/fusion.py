"""Hybrid ranking: the lexical list and the nearest vectors, fused by weighted reciprocal rank.

A row's fused score is ``LEXICAL_WEIGHT / (RRF_K + its lexical rank)`` plus
``VECTOR_WEIGHT / (RRF_K + its vector rank)`` (a list it is not in adds nothing). Rank
fusion needs no calibration between BM25-style scores and cosine similarities, which live
on unrelated scales and shift with the corpus. Rows the lexical ranking knows hold every
query word take no vector vote and, in ``all`` mode, still come first (``COMPLETE_FIRST``): an exact title or a function
name is never outvoted by vectors that merely sit near it; vectors decide among the rest,
which is where a question phrased in other words finds its answer. Those rows score by
their lexical rank alone, so among themselves they keep the lexical order. Nearest vectors under
``MIN_SIMILARITY`` are left out; when no row holds any query word at all, the vectors answer
alone down to ``MIN_SIMILARITY_ALONE`` (a question in other words than every memory's).

Under that floor a nearest row can still be the answer when no row holds every query word:
a question that shares no word with its memory ("why did account totals diverge" for "fixed
the race in the ledger balance reconciliation worker") sits at a cosine of 0.2-0.37 with the
built-in embedder, while the lexical side fills its list with rows that share one word, or
only a word like "in" (the answer itself may be among them, far down). So the
``EXTRA_DEPTH`` nearest rows down to ``MIN_SIMILARITY_EXTRA`` that took no vector vote and
are not among the lexical side's first ``EXTRA_AFTER`` move up to just after those, one
between each lexical rank and the next from there (the i-th scores as lexical rank
``EXTRA_AFTER + i - 0.5`` would, or keeps its own score when that is higher): the lexical
side's first rows stay first, and every other row keeps its order relative to the rest.
Every constant was chosen on the labelled retrieval
benchmark's concept and mixed queries without moving its lexical kinds
(bench/retrieval_bench.py, docs/search.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.store.ranking.lexical import Ranked

TYPE_CHECKING = False
if TYPE_CHECKING:
    from engram.store.vector_index import Nearest

RRF_K = 20
LEXICAL_WEIGHT = 1.0
VECTOR_WEIGHT = 1.0
LEXICAL_DEPTH = 50
VECTOR_DEPTH = 50
MIN_SIMILARITY = 0.4
# When no row holds any query word, the nearest vectors answer alone down to this similarity.
MIN_SIMILARITY_ALONE = 0.25
COMPLETE_FIRST = 1
# Lexical candidates take the vectors' vote whatever their similarity (only rows the lexical
# side did not find need MIN_SIMILARITY to enter).
RERANK_LEXICAL = 0
# Nearest rows under the floor that move up anyway, after the lexical side's first EXTRA_AFTER.
EXTRA_DEPTH = 3
EXTRA_AFTER = 2
MIN_SIMILARITY_EXTRA = 0.15


def fuse(lexical: Sequence[Ranked], nearest: Sequence[Nearest], mode: str) -> list[Ranked]:
    """Both lists as one, best first (see the module docstring); ``complete`` is kept from
    the lexical side. With ``COMPLETE_FIRST`` a row holding every word scores by its lexical
    rank alone, so those rows keep the lexical order, and in ``all`` mode they come first
    (the superseded demotion that follows re-orders them exactly as it would the lexical
    list); ``any`` mode orders every row by its fused score."""
    keep_complete = bool(COMPLETE_FIRST)
    complete_first = keep_complete and mode == "all"
    scores: dict[int, float] = {}
    complete: set[int] = set()
    for position, row in enumerate(lexical[:LEXICAL_DEPTH], start=1):
        scores[row.rowid] = LEXICAL_WEIGHT / (RRF_K + position)
        if row.complete:
            complete.add(row.rowid)
    position = 0
    floor = MIN_SIMILARITY if lexical else MIN_SIMILARITY_ALONE
    voted: set[int] = set()
    for near in nearest[:VECTOR_DEPTH]:
        known = RERANK_LEXICAL and near.rowid in scores
        if near.similarity < floor and not known:
            continue
        position += 1
        if keep_complete and near.rowid in complete:
            continue
        scores[near.rowid] = scores.get(near.rowid, 0.0) + VECTOR_WEIGHT / (RRF_K + position)
        voted.add(near.rowid)
    if not complete:  # when the words found their row, no guess moves up after it
        first = {row.rowid for row in lexical[:EXTRA_AFTER]}
        _lift_below_the_floor(scores, nearest, voted | first)
    # In all mode a row holding every word scores above any other (+1: a fused score is at
    # most 2 / (RRF_K + 1)), so a caller re-sorting by score keeps them first.
    bonus = 1.0 if complete_first else 0.0
    fused = [
        Ranked(rowid, score + (bonus if rowid in complete else 0.0), rowid in complete)
        for rowid, score in scores.items()
    ]
    if complete_first:
        fused.sort(key=lambda r: (not r.complete, -r.score, -r.rowid))
    else:
        fused.sort(key=lambda r: (-r.score, -r.rowid))
    return fused


def _lift_below_the_floor(
    scores: dict[int, float], nearest: Sequence[Nearest], passed: set[int]
) -> None:
    """The ``EXTRA_DEPTH`` nearest rows down to ``MIN_SIMILARITY_EXTRA`` not in ``passed``,
    each at least between two lexical ranks from ``EXTRA_AFTER`` on (the module docstring)."""
    lifted = 0
    for near in nearest[:VECTOR_DEPTH]:
        if lifted == EXTRA_DEPTH or near.similarity < MIN_SIMILARITY_EXTRA:
            return  # nearest first: every later row is farther
        if near.rowid not in passed:
            lifted += 1
            slot = LEXICAL_WEIGHT / (RRF_K + EXTRA_AFTER + lifted - 0.5)
            scores[near.rowid] = max(scores.get(near.rowid, 0.0), slot)


def order_mode(mode: str) -> str:
    """The mode the superseded demotion should re-order fused rows by (as :func:`fuse` did)."""
    return mode if COMPLETE_FIRST else "any"
