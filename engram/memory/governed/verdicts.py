"""Deterministic verdicts: what committing each candidate would do.

In order: a candidate equal (case and whitespace folded) to a live memory or to an earlier
candidate is ``NOOP duplicate of <id>``; one naming ``supersedes`` is ``SUPERSEDE <id>``; one
whose topic key is held by a live memory in its scope is ``UPDATE <id>`` (``SUPERSEDE <id>``
for decisions, which are replaced, never edited); anything else is ``ADD``, listing live
memories it is lexically close to (Jaccard >= 0.6) as related.
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.content import (
    default_key,
    jaccard,
    normalized_hash,
    word_set,
)
from engram.memory.governed.models import Candidate, Verdict
from engram.store import governed as sql

RELATED_THRESHOLD = 0.6


def candidate_key(candidate: Candidate) -> str:
    """The topic key a candidate will be stored under."""
    return candidate.key or default_key(candidate.type, candidate.title)


def verdict_for(kb: KnowledgeBase, candidate: Candidate) -> Verdict:
    """The verdict of one candidate against the store as it is now."""
    norm = normalized_hash(candidate.title, candidate.body)
    duplicate = sql.find_active_by_norm_hash(kb.conn, kb.project, norm)
    if duplicate is not None:
        return Verdict("NOOP", duplicate["id"])
    if candidate.supersedes:
        target = sql.get_memory(kb.conn, kb.project, candidate.supersedes, tier="durable")
        if target is not None and target["status"] == "active":
            return Verdict("SUPERSEDE", target["id"])
        return Verdict("ADD", related=_related(kb, candidate))
    existing = sql.find_active_by_key(
        kb.conn, kb.project, candidate.scope, candidate_key(candidate)
    )
    if existing is not None:
        return Verdict("SUPERSEDE" if candidate.type == "decision" else "UPDATE", existing["id"])
    return Verdict("ADD", related=_related(kb, candidate))


def _related(kb: KnowledgeBase, candidate: Candidate) -> tuple[str, ...]:
    words = word_set(f"{candidate.title} {candidate.body}")
    scores = sql.fts_scores(kb.conn, kb.project, kb.today(), sorted(words), limit=50)
    related: set[str] = set()
    for row in sql.get_rows(kb.conn, scores):
        close = jaccard(words, word_set(f"{row['title']} {row['body']}")) >= RELATED_THRESHOLD
        if row["tier"] == "durable" and close:
            related.add(row["id"])
    return tuple(sorted(related))


def verdicts_for(kb: KnowledgeBase, candidates: Sequence[Candidate]) -> tuple[Verdict, ...]:
    """Verdicts of a batch: a repeat of an earlier candidate is ``NOOP duplicate of #n``."""
    seen: dict[str, int] = {}
    out: list[Verdict] = []
    for number, candidate in enumerate(candidates, 1):
        norm = normalized_hash(candidate.title, candidate.body)
        if norm in seen:
            out.append(Verdict("NOOP", f"#{seen[norm]}"))
            continue
        seen[norm] = number
        out.append(verdict_for(kb, candidate))
    return tuple(out)
