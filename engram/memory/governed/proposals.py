"""Proposals: ``engram_save`` and ``engram_save_session`` never write, they propose.

Each proposal is a numbered list of redacted, validated candidates with a deterministic
``Verdict:`` line and an ``approval_token`` (see :mod:`engram.memory.governed.approvals`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engram.errors import EngramError
from engram.memory.governed import approvals
from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.commit import write_candidates
from engram.memory.governed.guard import check_candidate
from engram.memory.governed.models import Candidate, CommitOutcome, Proposal, Verdict
from engram.memory.governed.verdicts import candidate_key, verdicts_for
from engram.store import governed as sql

MAX_CANDIDATES = 50


def prepare_candidates(kb: KnowledgeBase, candidates: Sequence[Candidate]) -> tuple[Candidate, ...]:
    """Validate and redact a batch; refuse a ``supersedes`` naming no live durable memory."""
    if not candidates:
        raise EngramError(
            "governed.no_candidates", "nothing to propose", "pass at least one candidate"
        )
    if len(candidates) > MAX_CANDIDATES:
        raise EngramError(
            "governed.too_many_candidates",
            f"{len(candidates)} candidates; at most {MAX_CANDIDATES} per proposal",
            "split them into several proposals",
        )
    checked = tuple(check_candidate(c, n) for n, c in enumerate(candidates, 1))
    for number, candidate in enumerate(checked, 1):
        if candidate.supersedes:
            target = sql.get_memory(kb.conn, kb.project, candidate.supersedes, tier="durable")
            if target is None or target["status"] != "active":
                raise EngramError(
                    "governed.unknown_memory",
                    f"candidate {number} supersedes {candidate.supersedes!r}, which is not a live memory",
                    "check the id with engram_search",
                )
    return checked


def propose(kb: KnowledgeBase, candidates: Sequence[Candidate]) -> Proposal:
    """Record a proposal of durable memories and return its preview and approval token."""
    checked = prepare_candidates(kb, candidates)
    verdicts = verdicts_for(kb, checked)
    token, expires = approvals.open_proposal(kb.workspace, "memories", checked, verdicts, kb.now())
    text = render_proposal(checked, verdicts) + "\n" + token_footer(token, expires)
    return Proposal("memories", checked, verdicts, token, expires, text)


def render_proposal(candidates: Sequence[Candidate], verdicts: Sequence[Verdict]) -> str:
    """The numbered preview a human approves."""
    count = len(candidates)
    lines = [f"Proposal: {count} candidate{'s' if count != 1 else ''} (nothing is saved yet)."]
    for number, (candidate, verdict) in enumerate(zip(candidates, verdicts, strict=True), 1):
        lines.append(f"{number}. [{candidate.type}] {candidate.title}")
        lines.append(f"   Verdict: {verdict.line()}")
        lines.append(f"   scope: {candidate.scope}; key: {candidate_key(candidate)}")
        if candidate.roles:
            lines.append(f"   roles: {', '.join(candidate.roles)}")
        lines += [f"   | {line}" for line in candidate.body.splitlines()]
        lines += [f"   variant {name}: {text}" for name, text in candidate.variants]
    return "\n".join(lines)


def token_footer(token: str, expires: str) -> str:
    """How to commit: shown under every token-flow proposal."""
    return (
        f"approval_token: {token} (single use, bound to this workspace, expires {expires})\n"
        "Show these candidates to the human. Only after they approve, call engram_commit with "
        'this approval_token and approve: "all" or the approved numbers. Never commit unapproved.'
    )


# Journal observation types worth proposing as governed knowledge, and what they become.
JOURNAL_TYPES = {
    "decision": "decision",
    "architecture": "decision",
    "pattern": "convention",
    "config": "convention",
    "convention": "convention",
    "bugfix": "gotcha",
    "discovery": "gotcha",
    "learning": "gotcha",
    "procedure": "procedure",
}
HARVEST_BODY_BYTES = 4096


def session_candidates(kb: KnowledgeBase, query_level: int = 1) -> list[Candidate]:
    """Candidates from the journal: decisions, patterns, fixes... of the last N sessions."""
    if isinstance(query_level, bool) or not isinstance(query_level, int) or query_level < 1:
        raise EngramError(
            "governed.bad_query_level",
            f"query level must be a whole number >= 1, got {query_level!r}",
            "pass the number of recent sessions to read, e.g. --query-level 5",
        )
    rows = sql.recent_journal_observations(
        kb.conn, kb.project, query_level, JOURNAL_TYPES, MAX_CANDIDATES
    )
    out: list[Candidate] = []
    for row in rows:
        body = row["content"].strip()
        if len(body.encode("utf-8")) > HARVEST_BODY_BYTES:
            body = body.encode("utf-8")[: HARVEST_BODY_BYTES - 3].decode("utf-8", "ignore") + "..."
        if row["title"].strip() and body:
            out.append(Candidate(row["title"].strip()[:200], body, JOURNAL_TYPES[row["type"]]))
    if not out:
        raise EngramError(
            "governed.nothing_to_save",
            f"the last {query_level} session(s) of {kb.project} hold no decisions, patterns or fixes",
            "save observations with mem_save first, or raise --query-level",
        )
    return out


def propose_session(
    kb: KnowledgeBase, candidates: Sequence[Candidate] | None = None, query_level: int = 1
) -> Proposal:
    """``engram_save_session``: propose the given candidates, or harvest them from the journal."""
    return propose(kb, list(candidates) if candidates else session_candidates(kb, query_level))


def save_session_forced(kb: KnowledgeBase, query_level: int = 1) -> CommitOutcome:
    """``engram save-session --force``: the human at the terminal approves by running it.

    Writes through the same path as ``engram_commit``: duplicates and related candidates
    are deferred.
    """
    checked = prepare_candidates(kb, session_candidates(kb, query_level))
    numbers = range(1, len(checked) + 1)
    return write_candidates(kb, checked, list(numbers), None, source="save-session")
