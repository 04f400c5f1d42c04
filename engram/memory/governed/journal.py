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
from dataclasses import dataclass
from typing import Any

from engram.errors import EngramError
from engram.memory.governed.base import KnowledgeBase
from engram.memory.search import build_query
from engram.store.search import search_observations

MAX_MATCHES = 3
HEADING = "## From the journal (recorded by agents; not approved rules)"
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


@dataclass(frozen=True, slots=True)
class JournalMatch:
    """One journal observation that matches a governed query."""

    id: int
    title: str
    type: str
    project: str
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, labelled with its tier."""
        return {
            "id": self.id,
            "title": self.title,
            "type": self.type,
            "project": self.project,
            "created_at": self.created_at,
            "tier": "journal",
            "approved": False,
        }

    def line(self) -> str:
        """One line for the text a person or an agent reads."""
        return f"- #{self.id} [{self.type}] {self.title} (journal: `engram show {self.id}`)"


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
    out = []
    for scored in found:
        obs = scored.observation
        if len(wanted & _stems(f"{obs.title} {obs.content}")) >= need:
            out.append(JournalMatch(obs.id, obs.title, obs.type, obs.project, obs.created_at))
    return out[:limit]


def journal_section(matches: list[JournalMatch]) -> str:
    """The labelled text block (empty when nothing matched)."""
    if not matches:
        return ""
    return HEADING + "\n" + "\n".join(m.line() for m in matches) + "\n"
