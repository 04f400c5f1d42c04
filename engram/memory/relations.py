"""Relations between memories: conflict candidates surfaced on save, judged by the agent.

- A save looks at the newest (at most 50) live observations of the same project and scope
  whose titles share a meaningful word, and keeps those sharing at least half of them; each
  becomes a *pending* relation whose ``sync_id`` is the ``judgment_id`` returned with the
  save (at most ``MAX_CANDIDATES``).
- :func:`judge` records the agent's verdict on a pending relation (re-judging overwrites).
- :func:`compare` records a verdict on any two memories of one project directly; the same
  ordered pair updates its row instead of adding another. Cross-project pairs are refused.

Search shows judged ``supersedes`` / ``conflicts_with`` verdicts and pending ones as
annotations (:mod:`engram.memory.search`).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from engram.errors import EngramError
from engram.memory import checks
from engram.memory.clock import stamp
from engram.memory.redaction import redact, redact_optional
from engram.memory.topic import STOP_WORDS
from engram.store import observations, relations
from engram.store.db import Store
from engram.store.records import Observation, Relation
from engram.store.title_matches import recent_title_matches

VERDICTS = ("related", "compatible", "scoped", "conflicts_with", "supersedes", "not_conflict")
MAX_CANDIDATES = 3
MAX_REASONING_CHARS = 200
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class Candidate:
    """An existing memory a new save may conflict with, and the id to judge it by."""

    id: int
    sync_id: str
    title: str
    type: str
    judgment_id: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "id": self.id,
            "sync_id": self.sync_id,
            "title": self.title,
            "type": self.type,
            "judgment_id": self.judgment_id,
        }


@lru_cache(maxsize=2048)
def _meaningful(title: str) -> frozenset[str]:
    # Cached: every save compares its title with the same recent neighbours.
    return (
        frozenset(w for w in (m.lower() for m in _WORD.findall(title)) if len(w) > 2) - STOP_WORDS
    )


def surface_candidates(
    conn: sqlite3.Connection, saved: Observation, now: datetime, *, fresh: bool = False
) -> tuple[Candidate, ...]:
    """Record pending relations from ``saved`` to similar live memories; return them.

    Similar: same project and scope, and the title shares at least half of the new title's
    meaningful words. Looks at the newest titles sharing any word (bounded), most overlap
    first. ``fresh``: ``saved`` was just inserted, so no relation can name it yet.
    """
    words = _meaningful(saved.title)
    if not words:
        return ()
    neighbours = recent_title_matches(conn, sorted(words), project=saved.project, scope=saved.scope)
    scored = [
        (len(words & _meaningful(other.title)), other)
        for other in neighbours
        if other.id != saved.id
    ]
    scored = [(shared, other) for shared, other in scored if shared * 2 >= len(words)]
    scored.sort(key=lambda item: (-item[0], -item[1].id))
    chosen = []
    for _, other in scored:
        if not fresh and (
            relations.find_pair(conn, saved.sync_id, other.sync_id)
            or relations.find_pair(conn, other.sync_id, saved.sync_id)
        ):
            continue
        chosen.append(other)
        if len(chosen) == MAX_CANDIDATES:
            break
    if not chosen:
        return ()
    judgment_ids = relations.insert_pending(
        conn,
        source_id=saved.sync_id,
        target_ids=[other.sync_id for other in chosen],
        now=stamp(now),
        session_id=saved.session_id,
    )
    return tuple(
        Candidate(other.id, other.sync_id, other.title, other.type, judgment_id)
        for other, judgment_id in zip(chosen, judgment_ids, strict=True)
    )


def _check_verdict(relation: str, confidence: float | None) -> None:
    if relation not in VERDICTS:
        raise EngramError(
            "memory.bad_relation",
            f"unknown relation {relation!r}",
            f"use one of: {', '.join(VERDICTS)}",
        )
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        raise EngramError(
            "memory.bad_confidence",
            f"confidence must be between 0.0 and 1.0, got {confidence}",
            "pass a number from 0.0 to 1.0",
        )


def judge(
    store: Store,
    judgment_id: str,
    relation: str,
    *,
    reason: str | None = None,
    evidence: str | None = None,
    confidence: float | None = 1.0,
    session_id: str | None = None,
    now: datetime | None = None,
) -> Relation:
    """Record the agent's verdict on a relation surfaced by a save.

    Raises:
        EngramError: ``memory.bad_relation``, ``memory.bad_confidence``,
            ``memory.unknown_judgment``.
    """
    _check_verdict(relation, confidence)
    with store.write() as conn:
        row = relations.get(conn, judgment_id.strip())
        if row is None:
            raise EngramError(
                "memory.unknown_judgment",
                f"no pending judgment {judgment_id!r}",
                "use a judgment_id returned by a save's candidates",
                judgment_id=judgment_id,
            )
        relations.record_verdict(
            conn,
            row.id,
            relation=relation,
            now=stamp(now),
            reason=redact_optional(reason),
            evidence=redact_optional(evidence),
            confidence=confidence,
            marked_by_kind="agent",
            marked_by_actor=None,
            session_id=session_id,
        )
        judged = relations.get(conn, row.sync_id)
    assert judged is not None
    return judged


def _check_reasoning(reasoning: str | None) -> str:
    text = (reasoning or "").strip()
    if not text or len(text) > MAX_REASONING_CHARS:
        raise EngramError(
            "memory.reasoning_required",
            f"reasoning must be 1-{MAX_REASONING_CHARS} characters",
            "explain the verdict in one short sentence",
        )
    return text


def _same_project_pair(
    conn: sqlite3.Connection, id_a: int, id_b: int
) -> tuple[Observation, Observation]:
    first, second = observations.get(conn, id_a), observations.get(conn, id_b)
    if first is None or second is None:
        raise checks.not_found(id_a if first is None else id_b)
    if first.project != second.project:
        raise EngramError(
            "memory.cross_project_relation",
            f"#{first.id} ({first.project}) and #{second.id} ({second.project}) "
            "are in different projects",
            "compare memories of the same project",
        )
    return first, second


def compare(
    store: Store,
    memory_id_a: int,
    memory_id_b: int,
    relation: str,
    *,
    confidence: float,
    reasoning: str,
    model: str | None = None,
    now: datetime | None = None,
) -> Relation:
    """Persist a verdict that memory A relates to memory B (A is the source).

    Raises:
        EngramError: ``memory.bad_relation``, ``memory.bad_confidence``,
            ``memory.reasoning_required``, ``memory.self_relation``, ``memory.not_found``,
            ``memory.cross_project_relation``.
    """
    _check_verdict(relation, confidence)
    reasoning = _check_reasoning(reasoning)
    if memory_id_a == memory_id_b:
        raise EngramError(
            "memory.self_relation",
            "a memory cannot be compared with itself",
            "pass two different observation ids",
        )
    with store.write() as conn:
        first, second = _same_project_pair(conn, memory_id_a, memory_id_b)
        existing = relations.find_pair(conn, first.sync_id, second.sync_id)
        if existing is None:
            existing = relations.insert(
                conn, source_id=first.sync_id, target_id=second.sync_id, now=stamp(now)
            )
        relations.record_verdict(
            conn,
            existing.id,
            relation=relation,
            now=stamp(now),
            reason=redact(reasoning),
            evidence=None,
            confidence=confidence,
            marked_by_kind="system",
            marked_by_actor="engram",
            marked_by_model=redact_optional(model),
        )
        saved = relations.get(conn, existing.sync_id)
    assert saved is not None
    return saved
