"""The other tier: journal entries that match a governed load or search, labelled as such.

A user who saved "Rate limit login" with ``engram save`` and then asks ``engram load "add rate
limiting to login"`` should see it. Governed reads therefore also return up to a few matching
journal observations of the same project, as a separate, labelled list (``tier: journal``,
``approved: false``): never inside the approved pack, never counted in its budget. Matching is
"any word" full-text search, kept only when at least two of the task's significant words (or
its only one) appear in the entry, so a single common word does not drag in noise.
"""

from __future__ import annotations

import re

from engram.errors import EngramError
from engram.memory.citations.checking import code_status_on
from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.models import JournalMatch
from engram.memory.search import build_query
from engram.store.search import search_observations

MAX_MATCHES = 3
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "from",
        "that",
        "this",
        "into",
        "onto",
        "add",
        "use",
        "make",
        "when",
        "what",
        "how",
        "why",
        "are",
        "was",
        "its",
        "our",
        "you",
        "not",
        "but",
        "all",
        "any",
        "can",
        "will",
    ]
)
_WORD = re.compile(r"[^\W_]{3,}")


def _stems(text: str) -> set[str]:
    """Significant words, cut to a 4-letter stem so limit/limiting/limits meet."""
    return {w.casefold()[:4] for w in _WORD.findall(text) if w.casefold() not in _STOP}


def journal_matches(kb: KnowledgeBase, query: str, limit: int = MAX_MATCHES) -> list[JournalMatch]:
    """Up to ``limit`` journal observations of the workspace's project that match ``query``."""
    wanted = _stems(query)
    if not wanted:
        return []
    try:
        match = build_query(" ".join(_WORD.findall(query)), "any")
    except EngramError:
        return []
    found = search_observations(kb.conn, match, project=kb.project, limit=limit * 4)
    need = min(2, len(wanted))
    kept = [
        s.observation
        for s in found
        if len(wanted & _stems(f"{s.observation.title} {s.observation.content}")) >= need
    ][:limit]
    codes = code_status_on(kb.conn, [o.id for o in kept])
    out = []
    for obs in kept:
        code = codes.get(obs.id)
        label = code.label() if code is not None and code.state != "current" else ""
        out.append(JournalMatch(obs.id, obs.title, obs.type, obs.project, obs.created_at, label))
    return out
