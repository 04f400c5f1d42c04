"""Observation ranking: one path for every surface that searches the journal.

- :mod:`engram.store.ranking.lexical`: best-match scoring of FTS5 candidates over bounded
  candidate sets (every surface's ranking when semantic recall is off);
- :mod:`engram.store.ranking.fusion`: that lexical list fused with the nearest vectors
  (weighted reciprocal-rank fusion) when semantic recall is on.

:func:`engram.store.search.search_observations` is the one caller; the CLI, ``mem_search``,
``GET /search``, the TUI, governed routing and the conflict scan all reach it.
"""

from engram.store.ranking.lexical import STOP_WORDS, Ranked, demote_superseded, rank

__all__ = ["STOP_WORDS", "Ranked", "demote_superseded", "rank"]
