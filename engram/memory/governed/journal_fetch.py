"""``engram_load id=`` for a journal entry: the ids a governed read lists under "journal".

A governed load labels the journal observations that match it (``#12``, :mod:`.journal`). An
agent that then loads one by id (``id="#12"`` or ``id="12"``) gets it here, labelled as
unapproved journal text, never mixed into the approved pack. Fetching it is a use: its review
cycle restarts (:func:`engram.memory.review.renew_on`) and its cited code is checked.
"""

from __future__ import annotations

from engram.memory.citations.checking import code_status_on
from engram.memory.governed.base import KnowledgeBase
from engram.memory.governed.models import JournalMatch, LoadPack
from engram.memory.governed.tokens import estimate_tokens
from engram.memory.review import renew_on, state_with_code
from engram.store import observations


def journal_id(memory_id: str) -> int | None:
    """The observation id in ``#12`` / ``12``, or None for a governed handle."""
    text = memory_id.strip().removeprefix("#")
    return int(text) if text.isdigit() and 0 < len(text) <= 18 else None


def fetch_journal(kb: KnowledgeBase, obs_id: int) -> LoadPack | None:
    """The journal observation ``obs_id`` of the workspace's project as a one-entry pack
    (renewed, its code checked), or None when the project has no such live observation."""
    found = observations.get(kb.conn, obs_id)
    if found is None or found.project != kb.project:
        return None
    renew_on(kb.conn, found)
    found = observations.get(kb.conn, obs_id) or found
    code = code_status_on(kb.conn, [found.id]).get(found.id)
    label = code.label() if code is not None and code.state != "current" else ""
    lines = [
        f"# Journal entry #{found.id} (not approved knowledge)",
        "",
        f"[{found.type}] {found.title}",
        "",
        found.content,
    ]
    if label:
        lines += ["", f"state: {state_with_code(found, code)}", label]
    text = "\n".join(lines) + "\n"
    match = JournalMatch(found.id, found.title, found.type, found.project, found.created_at, label)
    return LoadPack(
        text=text,
        selected_keys=(),
        body_keys=(),
        card_ids=(),
        omitted_ids=(),
        tokens=estimate_tokens(text),
        budget_tokens=None,
        journal=(match,),
    )
