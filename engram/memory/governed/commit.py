"""The one write path for durable memories: ``engram_commit``, ``save-session --force``,
the approval dialog's accept and ``engram promote`` all end here.

Each selected candidate's verdict is recomputed against the store inside one write
transaction. A duplicate (NOOP), an ADD related to a live memory, or a candidate whose verdict
changed since it was proposed (a SUPERSEDE whose target moved on, say) is deferred, not
written; everything else is applied and gets a fresh content hash.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engram.errors import EngramError
from engram.memory.governed import approvals
from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.content import content_hash, hashed_fields, normalized_hash, slugify
from engram.memory.governed.models import SCOPE_WIDTH, Candidate, CommitOutcome, Verdict
from engram.memory.governed.verdicts import candidate_key, verdict_for
from engram.store import governed as sql

Approve = str | Sequence[int]


def select_numbers(approve: Approve, count: int) -> list[int]:
    """Turn ``approve`` ("all" or 1-based numbers) into sorted numbers; refuse anything else."""
    if isinstance(approve, str):
        if approve.strip().lower() == "all":
            return list(range(1, count + 1))
        raise EngramError(
            "governed.bad_approve",
            f'approve must be "all" or a list of candidate numbers, got {approve!r}',
            f'pass "all" or numbers from 1 to {count}',
        )
    numbers = list(approve)
    bad = [
        n for n in numbers if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= count
    ]
    if bad or not numbers or len(set(numbers)) != len(numbers):
        raise EngramError(
            "governed.bad_approve",
            f"approve lists {numbers!r}; the proposal has candidates 1 to {count}",
            'pass "all" or distinct numbers from that range',
        )
    return sorted(numbers)


def narrow_scope(candidate: Candidate, scope: str | None) -> Candidate:
    """Apply a save-scope choice: it may narrow (global -> project), never widen."""
    if scope is None or scope == candidate.scope:
        return candidate
    if scope not in SCOPE_WIDTH:
        raise EngramError("governed.bad_scope", f"unknown scope {scope!r}", "use project or global")
    if SCOPE_WIDTH[scope] > SCOPE_WIDTH[candidate.scope]:
        raise EngramError(
            "governed.scope_widened",
            f"candidate {candidate.title!r} was proposed for {candidate.scope}; it cannot be widened to {scope}",
            "propose it again with the wider scope if that is what the human wants",
        )
    return Candidate.from_dict(candidate.to_dict() | {"scope": scope})


def allocate_id(kb: KnowledgeBase, title: str, owner: str) -> str:
    """A new memory id from ``title`` that no memory of either tier visible to ``owner`` has."""
    base = slugify(title)
    memory_id, n = base, 1
    while sql.id_taken(kb.conn, owner, memory_id):
        n += 1
        memory_id = f"{base}-{n}"
    return memory_id


def memory_row(
    kb: KnowledgeBase, candidate: Candidate, memory_id: str, tier: str, source: str
) -> dict[str, Any]:
    """The store row for a candidate (hashes and timestamps filled in)."""
    stamp = kb.now().isoformat()
    row: dict[str, Any] = {
        "id": memory_id,
        "project": "" if candidate.scope == "global" else kb.project,
        "scope": candidate.scope,
        "tier": tier,
        "key": candidate_key(candidate),
        "type": candidate.type,
        "title": candidate.title,
        "body": candidate.body,
        "variants": json.dumps(dict(candidate.variants), sort_keys=True),
        "roles": json.dumps(list(candidate.roles)),
        "objective": candidate.objective,
        "source": source,
        "norm_hash": normalized_hash(candidate.title, candidate.body),
        "status": "active",
        "created_at": stamp,
        "updated_at": stamp,
    }
    row["content_hash"] = content_hash(hashed_fields(row))
    return row


def _apply(kb: KnowledgeBase, candidate: Candidate, verdict: Verdict, source: str) -> str:
    """Write one candidate whose verdict allows it; return the id written."""
    if verdict.action == "UPDATE":
        target = sql.get_memory(kb.conn, kb.project, verdict.target, tier="durable")
        assert target is not None  # the verdict was computed in this transaction
        row = memory_row(kb, candidate, target["id"], "durable", target["source"])
        fields = {k: row[k] for k in ("type", "title", "body", "variants", "roles", "objective")}
        fields |= {"norm_hash": row["norm_hash"], "updated_at": row["updated_at"]}
        fields["content_hash"] = content_hash(hashed_fields(target | fields))
        sql.update_memory(kb.conn, target["rowid"], fields)
        return str(target["id"])
    owner = "" if candidate.scope == "global" else kb.project
    new_id = allocate_id(kb, candidate.title, owner)
    sql.insert_memory(kb.conn, memory_row(kb, candidate, new_id, "durable", source))
    if verdict.action == "SUPERSEDE":
        target = sql.get_memory(kb.conn, kb.project, verdict.target, tier="durable")
        assert target is not None
        sql.update_memory(
            kb.conn,
            target["rowid"],
            {"status": "superseded", "superseded_by": new_id, "updated_at": kb.now().isoformat()},
        )
    return new_id


def _deferral(verdict: Verdict, pinned: Verdict | None) -> str:
    if pinned is not None and pinned.line() != verdict.line():
        return f"verdict changed since the proposal: was {pinned.line()}, now {verdict.line()}"
    if verdict.action == "NOOP":
        return f"duplicate of {verdict.target}"
    if verdict.related:
        return f"related to {', '.join(verdict.related)}; update or supersede one of them instead"
    return ""


def write_candidates(
    kb: KnowledgeBase,
    candidates: Sequence[Candidate],
    numbers: Sequence[int],
    pinned: Sequence[Verdict] | None = None,
    source: str = "proposal",
) -> CommitOutcome:
    """Write the numbered candidates (1-based) in one transaction; defer what must wait."""
    written: list[dict[str, Any]] = []
    deferred: list[dict[str, Any]] = []
    with sql.immediate(kb.conn):
        for number in numbers:
            candidate = candidates[number - 1]
            verdict = verdict_for(kb, candidate)
            reason = _deferral(verdict, pinned[number - 1] if pinned is not None else None)
            if reason:
                deferred.append({"number": number, "title": candidate.title, "reason": reason})
                continue
            memory_id = _apply(kb, candidate, verdict, source)
            written.append({"number": number, "id": memory_id, "verdict": verdict.line()})
    return CommitOutcome(tuple(written), tuple(deferred), text=render_outcome(written, deferred))


def render_outcome(written: Sequence[dict[str, Any]], deferred: Sequence[dict[str, Any]]) -> str:
    """Human text for a commit."""
    lines = [f"Saved {len(written)} memor{'y' if len(written) == 1 else 'ies'}."]
    lines += [f"  {w['number']}. {w['verdict']} -> {w['id']}" for w in written]
    if deferred:
        lines.append(f"Deferred {len(deferred)}:")
        lines += [f"  {d['number']}. {d['title']}: {d['reason']}" for d in deferred]
    return "\n".join(lines)


def commit(
    kb: KnowledgeBase, approval_token: str, approve: Approve = "all", scope: str | None = None
) -> CommitOutcome:
    """Write an approved proposal (``engram_commit``). Single use; nothing written on error.

    Args:
        approval_token: the token ``engram_save``/``engram_save_session``/``engram_note`` returned.
        approve: ``"all"`` or the 1-based candidate numbers the human approved.
        scope: optional save scope chosen by the human; may only narrow.
    """
    from engram.memory.governed.notes import write_note

    with approvals.claim(kb.workspace, approval_token, kb.now()) as proposal:
        numbers = select_numbers(approve, len(proposal.candidates))
        candidates = [narrow_scope(c, scope) for c in proposal.candidates]
        if proposal.kind == "note":
            return write_note(kb, candidates[0])
        return write_candidates(kb, candidates, numbers, proposal.verdicts)
