"""Working-tier notes: short task notes that expire, and their promotion to durable memory.

A note is redacted, refused when a line reads like an instruction to the agent, approved with
one yes/cancel, then stored with ``tier = 'working'`` and ``valid_until = today +
load.working_ttl_days`` and materialised as ``.engram/working/<id>.md`` (gitignored). A note
never updates a durable memory, whatever its id; ``promote`` (the CLI) is the only way one
becomes durable, through the same write path as a commit.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from engram.errors import EngramError
from engram.memory.governed import approvals
from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.commit import allocate_id, memory_row, write_candidates
from engram.memory.governed.content import slugify
from engram.memory.governed.guard import (
    MAX_NOTE_BYTES,
    check_candidate,
    redact,
    refuse_instructions,
)
from engram.memory.governed.models import SCOPES, TYPES, Candidate, CommitOutcome, Proposal, Verdict
from engram.memory.governed.workspace import write_atomic
from engram.store import governed as sql

NOTE_TITLE_CHARS = 80


def note_candidate(
    text: str, objective: str = "", type: str = "note", scope: str = "project"
) -> Candidate:
    """Validate, redact and refuse instruction-like lines; the candidate a note proposal holds."""
    body = redact(text).strip()
    if not body:
        raise EngramError("governed.empty_note", "the note is empty", "pass the note text")
    if len(body.encode("utf-8")) > MAX_NOTE_BYTES:
        raise EngramError(
            "governed.note_too_long",
            f"the note is over {MAX_NOTE_BYTES} bytes",
            "keep working notes short; propose durable knowledge with engram_save",
        )
    if type not in TYPES:
        raise EngramError(
            "governed.bad_type", f"unknown note type {type!r}", f"use one of: {', '.join(TYPES)}"
        )
    if scope not in SCOPES:
        raise EngramError(
            "governed.bad_scope", f"unknown scope {scope!r}", "use 'project' or 'global'"
        )
    refuse_instructions(body, "the note")
    refuse_instructions(objective, "the note objective")
    first = body.splitlines()[0].strip()
    title = (
        first if len(first) <= NOTE_TITLE_CHARS else first[: NOTE_TITLE_CHARS - 1].rstrip() + "…"
    )
    return Candidate(
        title=title,
        body=body,
        type=type,
        scope=scope,
        key=f"note/{slugify(title)}",
        objective=" ".join(redact(objective).split()),
    )


def propose_note(
    kb: KnowledgeBase, text: str, objective: str = "", type: str = "note", scope: str = "project"
) -> Proposal:
    """Propose a working-tier note; the human answers yes (commit) or cancel."""
    candidate = note_candidate(text, objective, type, scope)
    verdicts = (Verdict("ADD"),)
    token, expires = approvals.open_proposal(kb.workspace, "note", (candidate,), verdicts, kb.now())
    valid_until = valid_until_for(kb)
    text_out = "\n".join(
        [
            "Working note (nothing is saved until the human says yes):",
            f"  [{candidate.type}] {candidate.title}",
            *(f"    {line}" for line in candidate.body.splitlines()),
            f"  objective: {candidate.objective or '(none)'}; valid until {valid_until}",
            f"approval_token: {token} (single use, expires {expires})",
            'After the human says yes, call engram_commit with this approval_token and approve: "all".',
        ]
    )
    return Proposal("note", (candidate,), verdicts, token, expires, text_out)


def valid_until_for(kb: KnowledgeBase) -> str:
    """Today + ``load.working_ttl_days``."""
    return (date.fromisoformat(kb.today()) + timedelta(days=kb.config.working_ttl_days)).isoformat()


def note_file(kb: KnowledgeBase, memory_id: str) -> Path:
    """Where a note is materialised: ``.engram/working/<id>.md``."""
    return kb.workspace.working_dir / f"{memory_id}.md"


def write_note(kb: KnowledgeBase, candidate: Candidate) -> CommitOutcome:
    """Store an approved note in the working tier and write its file; never touches durable rows."""
    kb.workspace.prepare()
    valid_until = valid_until_for(kb)
    owner = "" if candidate.scope == "global" else kb.project
    with sql.immediate(kb.conn):
        memory_id = allocate_id(kb, candidate.title, owner)
        row = memory_row(kb, candidate, memory_id, "working", "note") | {"valid_until": valid_until}
        sql.insert_memory(kb.conn, row)
        path = note_file(kb, memory_id)
        write_atomic(path, _note_markdown(memory_id, candidate, valid_until))
    note = {"id": memory_id, "file": str(path), "valid_until": valid_until}
    text = f"Saved working note {memory_id} (valid until {valid_until}): {path}"
    return CommitOutcome(note=note, text=text)


def _note_markdown(memory_id: str, candidate: Candidate, valid_until: str) -> str:
    return (
        f"---\nid: {memory_id}\ntype: {candidate.type}\nscope: {candidate.scope}\n"
        f"tier: working\nsource: note\nobjective: {candidate.objective}\n"
        f"valid_until: {valid_until}\n---\n\n{candidate.body}\n"
    )


def promote(
    kb: KnowledgeBase, note_id: str, type: str | None = None, scope: str | None = None
) -> CommitOutcome:
    """Make a working note durable (the CLI's ``engram promote``), then drop the note.

    The note goes through the same verdicts and deferrals as any commit; when it is deferred
    the note stays where it is.
    """
    row = sql.get_memory(kb.conn, kb.project, note_id, tier="working")
    if row is None:
        raise EngramError(
            "governed.unknown_note",
            f"no working note {note_id!r} in project {kb.project}",
            "list notes with `engram load --full --disclosure cards` (notes are marked `note`)",
        )
    new_type = type or ("convention" if row["type"] == "note" else row["type"])
    candidate = Candidate(
        title=row["title"],
        body=row["body"],
        type=new_type,
        scope=scope or row["scope"],
        objective=row["objective"],
    )
    candidate = check_candidate(candidate, 1)
    try:
        with sql.immediate(kb.conn):
            # The note goes first, so the durable memory it becomes can take its id (ids are
            # unique across both tiers); nothing written rolls the removal back.
            sql.delete_memory(kb.conn, row["rowid"])
            outcome = write_candidates(kb, [candidate], [1], None, source="promote")
            if not outcome.written:
                raise _NothingWritten(outcome)
    except _NothingWritten as kept:
        return kept.outcome
    if outcome.written:
        note_file(kb, row["id"]).unlink(missing_ok=True)
    return outcome


class _NothingWritten(Exception):
    """Rolls a promotion back when its candidate was not written (the note stays)."""

    def __init__(self, outcome: CommitOutcome) -> None:
        super().__init__("nothing written")
        self.outcome = outcome
