"""The v0.1.0 ranking, for bench/retrieval_bench.py to compare against.

It is ``engram.store.fts.rank_window``, unchanged since v0.1.0 and still what ranks prompt
search: the newest ``WINDOW`` rows matching every word, an IDF estimated from each word's
newest ``IDF_PROBE`` matches, a word in the title weighing 5 and anywhere else 1. Observation
search moved to :mod:`engram.store.ranking`. Should ``rank_window`` ever change, pin the
v0.1.0 version here instead of importing it.
"""

from __future__ import annotations

from engram.store.fts import IDF_PROBE, MAX_SCORED_TERMS, WINDOW, Ranked, rank_window

__all__ = ["IDF_PROBE", "MAX_SCORED_TERMS", "WINDOW", "Ranked", "rank_window"]
